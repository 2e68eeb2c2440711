// A PATH with entries that are not absolute (`node_modules/.bin:$PATH`, a common habit) names programs by the
// folder a process is in: for devx, a repository not yet trusted. Its own `git`, `rg`, `bwrap`, `ls` must not
// run for devx's. The real binary and gemini against the fake API; the repository's programs leave a mark
// outside the project when they run.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});

const PROGRAMS = ['git', 'rg', 'bwrap', 'ls', 'cat', 'sh', 'bash', 'node', 'gemini', 'env'];

describe('a PATH with relative entries', () => {
  it('names none of the repository’s programs: not for devx’s own git, rg and sandbox, nor for a command the model runs', async () => {
    const marks = tempDir('devx-marks-');
    const shim = (name: string) => `#!/bin/sh\necho "${name} $*" >> ${marks}/ran\n`;
    const files = Object.fromEntries(
      PROGRAMS.flatMap((p) => [
        [`node_modules/.bin/${p}`, shim(p)],
        [`bin/${p}`, shim(p)],
        [p, shim(p)],
      ]),
    );
    const project = makeProject({ 'notes.txt': 'alpha\n', ...files });
    for (const rel of Object.keys(files)) fs.chmodSync(path.join(project, rel), 0o755);
    fake.push(
      { text: 'TOOL_CALL: search_code | pattern=alpha' },
      { text: 'TOOL_CALL: run_command | cmd=ls' },
      { text: 'TOOL_CALL: run_command | cmd=git status --short' },
      { text: 'Looked.' },
    );
    const env = fakeEnv(fake, home, { PATH: `node_modules/.bin:bin:.::${process.env.PATH}` });
    const r = await runDevx(['run', '--yes', 'look around'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Looked.');
    expect(fs.existsSync(path.join(marks, 'ran')) ? fs.readFileSync(path.join(marks, 'ran'), 'utf8') : '').toBe('');
    expect(r.stderr).toContain('devx: PATH has entries that are not absolute ("node_modules/.bin", "bin", "."); devx leaves them out');
    // The commands ran, with the machine's programs.
    const prompts = fake.modelCalls.map((c) => c.promptText).join('\n');
    expect(prompts).toMatch(/TOOL_RESULT: search_code \| status=ok[\s\S]*notes\.txt/);
    expect(prompts).toMatch(/TOOL_RESULT: run_command \| status=ok[\s\S]*notes\.txt/);
  }, 90_000);
});
