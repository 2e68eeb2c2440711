// A cloned repository's links cannot aim devx's own writes (the real binary, real gemini, the fake API).
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

function victim(): string {
  const f = path.join(tempDir('devx-victim-'), '.bashrc');
  fs.writeFileSync(f, '# bashrc\n');
  return f;
}

describe("a repository's links do not aim devx's own writes", () => {
  it('HANDOFF.md linked out of the project: the handoff is refused, naming the link, and the target is untouched', async () => {
    const target = victim();
    const project = makeProject({ 'README.md': 'hi\n' });
    fs.symlinkSync(target, path.join(project, 'HANDOFF.md'));
    fake.push({ text: 'Done: nothing to change.' });
    const r = await runDevx(['run', '--handoff', 'say hi'], { cwd: project, env: { ...fakeEnv(fake, home), DEVX_HANDOFF: 'plain' } });
    expect(fs.readFileSync(target, 'utf8')).toBe('# bashrc\n');
    expect(r.stderr).toMatch(/HANDOFF\.md is a symbolic link/);
    expect(r.code).not.toBe(0);
  });

  it('.devx as a link stops devx at start with exit 2, and nothing is written where it points', async () => {
    const outside = tempDir('devx-elsewhere-');
    const project = makeProject({ 'README.md': 'hi\n' });
    fs.symlinkSync(outside, path.join(project, '.devx'));
    const r = await runDevx(['run', 'say hi'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\.devx is a symbolic link/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('.devx/audit.jsonl linked to ~/.bashrc: the audit line is not written there and the run says why', async () => {
    const target = victim();
    const project = makeProject({ 'README.md': 'hi\n' });
    fs.mkdirSync(path.join(project, '.devx'));
    fs.symlinkSync(target, path.join(project, '.devx', 'audit.jsonl'));
    fake.push({ text: 'TOOL_CALL: read_file | path=README.md' }, { text: 'It says hi.' });
    const r = await runDevx(['run', 'read the readme'], { cwd: project, env: fakeEnv(fake, home) });
    expect(fs.readFileSync(target, 'utf8')).toBe('# bashrc\n');
    expect(r.stderr).toMatch(/audit\.jsonl is a symbolic link/);
    expect(r.code).not.toBe(0);
  });
});
