// Codex one-shot: `devx run --provider codex` against one bare `codex exec` with the same flags, the same
// environment and the same sealed home devx gives it, both against the fake Responses API, alternated in
// the same run so drift hits both. Printed as a ratio.
import fs from 'node:fs';
import path from 'node:path';
import { FakeOpenAiApi } from '../test/helpers/fakeOpenAiApi.js';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeHome, makeProject, tempDir } from '../test/helpers/env.js';
import { codexSpec } from '../src/providers/codex/codexCli.js';
import { getProvider } from '../src/providers/registry.js';
import { fmt, median, timeProcess } from './timing.js';

export async function benchCodex(): Promise<void> {
  const runs = Number(process.env.BENCH_TURN_RUNS ?? 21);
  const fake = await new FakeOpenAiApi().start();
  fake.fallback = { text: 'pong' };
  const home = makeHome();
  const project = makeProject({});
  const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'codex');
  const env = { ...fakeEnv(new FakeGeminiApi(), home), OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-bench', DEVX_CODEX_BIN: bin };
  const bareDir = tempDir('devx-bare-codex-');
  const scratch = path.join(bareDir, 'scratch');
  fs.mkdirSync(scratch);
  const systemFile = path.join(bareDir, 'system.md');
  fs.writeFileSync(systemFile, 'You are a helpful assistant.');
  const spec = codexSpec(bareDir);
  const model = getProvider('codex').defaultModel;
  const bareArgs = spec.args(model, systemFile);
  const bareEnv = spec.env({ ...(env as Record<string, string>) }, { systemFile });
  const bare: number[] = [];
  const devx: number[] = [];
  const nodeAlone: number[] = [];
  const forget = () => fs.rmSync(path.join(project, '.devx', 'history.json'), { force: true });
  await timeProcess(bin, bareArgs, { cwd: scratch, env: bareEnv, input: 'ping' });
  await timeProcess(process.execPath, [DEVX_BIN, 'run', '--provider', 'codex', 'ping'], { cwd: project, env });
  for (let i = 0; i < runs; i++) {
    bare.push(await timeProcess(bin, bareArgs, { cwd: scratch, env: bareEnv, input: 'ping' }));
    // Each run a single request, as the bare call is (devx run otherwise continues the project's conversation).
    forget();
    devx.push(await timeProcess(process.execPath, [DEVX_BIN, 'run', '--provider', 'codex', 'ping'], { cwd: project, env }));
    nodeAlone.push(await timeProcess(process.execPath, ['-e', '0'], { cwd: project, env }));
  }
  await fake.close();
  const b = median(bare);
  const d = median(devx);
  const n = median(nodeAlone);
  console.log(
    `codex one-shot: devx run --provider codex ${fmt(d)} vs bare codex exec (same flags, same sealed home) ${fmt(b)} (median of ${runs}) -> ratio ${(d / b).toFixed(3)} (+${fmt(d - b)})`,
  );
  // codex is a native binary that answers the fake API in a few hundred ms, so any Node program in front of it is a large share.
  console.log(
    `codex one-shot floor: node -e 0 alone ${fmt(n)} -> (bare codex + node start-up) / bare codex = ${((b + n) / b).toFixed(3)}; devx's own share over that floor: ${fmt(d - b - n)}`,
  );
}
