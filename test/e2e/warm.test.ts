// The warm Gemini backend: one `gemini --acp` process kept for the session (real gemini against the
// fake API), restarted once on a crash, replaced by one process per call after a second, and reaped
// after devx is killed with -9.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { DEVX_BIN, GEMINI_BIN, fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';
import { startInPty } from '../helpers/pty.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => ((fake = f), (home = h)));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/**
 * A gemini wrapper that logs each start; with CRASH_ACP it crashes `--acp` starts (once, or always). With
 * `noteTerm`, an `--acp` gemini runs under the wrapper, which notes a SIGTERM sent to the group in terms.log.
 */
function wrapper(opts: { noteTerm?: boolean } = {}): {
  bin: string;
  starts: () => string[];
  terms: () => boolean;
  crashOnce: () => void;
  crashAlways: () => void;
} {
  const dir = tempDir('devx-warm-');
  const log = path.join(dir, 'starts.log');
  const terms = path.join(dir, 'terms.log');
  const mode = path.join(dir, 'crash');
  const bin = path.join(dir, 'gemini');
  fs.writeFileSync(
    bin,
    `#!/bin/sh
echo "$*" >> ${log}
case "$*" in *--acp*)
  if [ -f ${mode} ]; then
    m=$(cat ${mode}); [ "$m" = once ] && rm -f ${mode}
    echo "simulated crash" >&2; exit 3
  fi
  ${opts.noteTerm ? `trap 'echo term >> ${terms}' TERM; ${GEMINI_BIN} "$@"; exit` : ''};;
esac
exec ${GEMINI_BIN} "$@"
`,
    { mode: 0o755 },
  );
  return {
    bin,
    starts: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []),
    terms: () => fs.existsSync(terms),
    crashOnce: () => fs.writeFileSync(mode, 'once'),
    crashAlways: () => fs.writeFileSync(mode, 'always'),
  };
}

const warmEnv = (bin: string) => fakeEnv(fake, home, { DEVX_GEMINI_BIN: bin, DEVX_PROVIDER_MODE: 'warm' });

describe('warm gemini', () => {
  it('by default a REPL session and a one-shot run each keep one warm process for all their calls; spawn mode starts one per call', async () => {
    const w = wrapper({ noteTerm: true });
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'first answer' }, { text: 'second answer' });
    const pty = startInPty([], project, fakeEnv(fake, home, { DEVX_GEMINI_BIN: w.bin }));
    try {
      await pty.waitFor(/devx>/, 60_000);
      pty.type('one\r');
      await pty.waitFor(/first answer/, 60_000);
      pty.type('two\r');
      await pty.waitFor(/second answer/, 60_000);
    } finally {
      pty.kill();
    }
    expect(w.starts()).toHaveLength(1);
    expect(w.starts()[0]).toMatch(/--acp/);
    // A one-shot run of two calls (a tool round, then the answer): one process.
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'one-shot answer' });
    const r = await runDevx(['run', 'three'], { cwd: makeProject({ 'a.txt': 'alpha\n' }), env: fakeEnv(fake, home, { DEVX_GEMINI_BIN: w.bin }) });
    expect(r.stdout).toContain('one-shot answer');
    expect(w.starts()).toHaveLength(2);
    expect(w.starts()[1]).toMatch(/--acp/);
    // Its warm process was killed outright at the end, not sent SIGTERM: devx's exit waits for no shutdown of gemini's.
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000);
    expect(w.terms()).toBe(false);
    // The same run with a process per call: two.
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'spawned answer' });
    const s = await runDevx(['run', 'four'], {
      cwd: makeProject({ 'a.txt': 'alpha\n' }),
      env: fakeEnv(fake, home, { DEVX_GEMINI_BIN: w.bin, DEVX_PROVIDER_MODE: 'spawn' }),
    });
    expect(s.stdout).toContain('spawned answer');
    expect(w.starts().slice(2)).toHaveLength(2);
    for (const line of w.starts().slice(2)) expect(line).not.toMatch(/--acp/);
    expect(fake.modelCalls[5].promptText).toContain('alpha');
  }, 120_000);

  it("a session's model calls go through one warm process, with devx's system prompt and no tools", async () => {
    const w = wrapper();
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'TOOL_CALL: list_directory | path=.' }, { text: 'It says alpha.' });
    const r = await runDevx(['run', 'what is in a.txt'], { cwd: project, env: warmEnv(w.bin) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('It says alpha.');
    expect(w.starts()).toHaveLength(1);
    expect(w.starts()[0]).toMatch(/--acp/);
    expect(fake.modelCalls).toHaveLength(3);
    for (const c of fake.modelCalls) {
      expect(c.systemText).toContain('TOOL_CALL:');
      expect(c.functionDeclarations).toBe(0);
    }
    expect(fake.modelCalls[1].promptText).toContain('alpha');
  });

  it('a crashed warm process is restarted once; a second crash falls back to one process per call, saying so', async () => {
    const once = wrapper();
    once.crashOnce();
    fake.push({ text: 'First answer.' });
    const a = await runDevx(['run', 'hi'], { cwd: makeProject({}), env: warmEnv(once.bin) });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('First answer.');
    expect(once.starts().filter((s) => s.includes('--acp'))).toHaveLength(2);
    expect(a.stderr).not.toMatch(/one gemini process per call/);

    const always = wrapper();
    always.crashAlways();
    fake.push({ text: 'Second answer.' });
    const b = await runDevx(['run', 'hi'], { cwd: makeProject({}), env: warmEnv(always.bin) });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('Second answer.');
    expect(b.stderr.match(/using one gemini process per call for the rest of this session/g)).toHaveLength(1);
    expect(always.starts().filter((s) => s.includes('--acp'))).toHaveLength(2);
    expect(always.starts().filter((s) => s.includes('-o json'))).toHaveLength(1);
  });

  it('after devx is killed with -9, the next start reaps its warm gemini', async () => {
    const w = wrapper();
    const project = makeProject({});
    const env = warmEnv(w.bin);
    fake.push({ text: 'Warm and ready.' });
    const repl = spawn(process.execPath, [DEVX_BIN], { cwd: project, env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(repl);
    let out = '';
    repl.stdout!.on('data', (d) => (out += d));
    repl.stdin!.write('say something\n');
    await until(() => out.includes('Warm and ready.'), 60_000);
    const warm = processesUnder(path.join(home, '.devx'));
    expect(warm.length).toBeGreaterThan(0);
    repl.kill('SIGKILL');
    await new Promise((r) => repl.once('exit', r));
    // Whatever outlived devx (gemini may take a moment to see its stdin close) is gone once the next
    // devx in the project recovers the crashed session.
    fake.push({ text: 'Fresh start.' });
    const next = await runDevx(['run', 'hello again'], { cwd: project, env: fakeEnv(fake, home) });
    expect(next.code, next.stderr).toBe(0);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });
});
