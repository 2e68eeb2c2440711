// One temp folder per test run: the helpers put every directory they make under it (test/helpers/env.ts
// tempDir), and it is removed when the run ends, so runs do not pile up in /tmp. DEVX_KEEP_TEMP=1 keeps it.
// Then one real `devx run` (a tool round and an answer, through the real gemini) makes devx's code cache
// for the built bundle; makeHome copies it into each test's home, as a person's home holds it after their
// first run. Without it every devx process in the suite compiled the bundle from scratch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { FakeGeminiApi } from './helpers/fakeGeminiApi.js';
import { DEVX_BIN, fakeEnv, makeHome, makeProject, runDevx } from './helpers/env.js';

export default async function setup(project: TestProject): Promise<() => void> {
  // vitest calls this for the root config and again for each project in the run, in one process: the
  // first call makes the folder, the first from the project whose tests start devx makes the cache (the
  // fast tier starts no process, and does not wait for one).
  const teardown = process.env.DEVX_TEST_TMP ? () => undefined : makeTestTmp();
  const state = globalThis as { devxCodeCacheTried?: boolean };
  if (project.name === 'processes' && !state.devxCodeCacheTried) {
    state.devxCodeCacheTried = true;
    await makeCodeCache();
  }
  return teardown;
}

/** Makes the run's temp folder (DEVX_TEST_TMP) and returns what removes it. */
function makeTestTmp(): () => void {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-tests-')));
  process.env.DEVX_TEST_TMP = root;
  return () => {
    if (process.env.DEVX_KEEP_TEMP) process.stderr.write(`test folders kept in ${root}\n`);
    else fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Sets DEVX_TEST_CODE_CACHE to the cache a run of the loop left; on any failure, none (each test then starts cold). */
async function makeCodeCache(): Promise<void> {
  if (!fs.existsSync(DEVX_BIN)) return;
  const fake = await new FakeGeminiApi().start();
  try {
    const home = makeHome({ codeCache: false });
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'Done.' });
    const r = await runDevx(['run', 'read a.txt'], { cwd: makeProject({ 'a.txt': 'a\n' }), env: fakeEnv(fake, home) });
    const dir = path.join(home, '.devx', 'cache');
    const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.v8')) : undefined;
    if (r.code === 0 && file) process.env.DEVX_TEST_CODE_CACHE = path.join(dir, file);
    else process.stderr.write(`no code cache for the tests (devx run exited ${r.code}): ${r.stderr.slice(-300)}\n`);
  } catch (err) {
    process.stderr.write(`no code cache for the tests: ${(err as Error).message.slice(0, 300)}\n`);
  } finally {
    await fake.close();
  }
}
