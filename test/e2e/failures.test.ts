// Failure paths end to end, with the real gemini binary and the fake API (the tool-round limit, devx's own loop, in
// this process with a scripted model).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAILY_QUOTA_429, FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';
import { runScripted } from '../helpers/runCliHere.js';

let fake: FakeGeminiApi;
let home: string;

useFakeApi((f, h) => {
  fake = f;
  home = h;
});

function writeUserSettings(settings: unknown): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
}

const TWO_ACCOUNTS = {
  accounts: [
    { name: 'first', env: { GEMINI_API_KEY: 'key-first' } },
    { name: 'second', env: { GEMINI_API_KEY: 'key-second' } },
  ],
};

describe('model failures', () => {
  it('on a 429 moves the turn to the next account; once every account is out of quota, backs off and retries, rotating by turn', async () => {
    writeUserSettings(TWO_ACCOUNTS);
    fake.push(DAILY_QUOTA_429, DAILY_QUOTA_429, { text: 'finally' });
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('finally');
    expect(fake.modelCalls.map((c) => c.apiKey)).toEqual(['key-first', 'key-second', 'key-first']);
    expect(r.stderr).toMatch(/account first hit its quota; trying second/);
    expect(r.stderr).toMatch(/quota error, retrying in/);
  });

  it('uses the fallback model after every account and retry is exhausted', async () => {
    writeUserSettings({ ...TWO_ACCOUNTS, fallbackModel: 'gemini-2.5-flash', gemini: { maxRetries: 0 } });
    fake.push(DAILY_QUOTA_429, DAILY_QUOTA_429, { text: 'from the fallback' });
    const r = await runDevx(['run', '--model', 'gemini-2.5-pro', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.modelCalls.map((c) => c.model)).toEqual(['gemini-2.5-pro', 'gemini-2.5-pro', 'gemini-2.5-flash']);
    expect(r.stderr).toMatch(/falling back to gemini-2.5-flash/);
  });

  it('a 400 is a clear error with no retry', async () => {
    fake.push({ status: 400 });
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad_request|rejected the request/);
    expect(r.stderr).toContain('fake API error 400');
    expect(fake.modelCalls).toHaveLength(1);
  });

  for (const [name, reply] of [['a hung API', { hang: true }]] as const) {
    it(`${name} is bounded by the turn timeout and leaves no process behind`, async () => {
      fake.fallback = reply;
      const started = Date.now();
      const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home, { DEVX_TURN_TIMEOUT_SEC: '5' }) });
      const elapsed = Date.now() - started;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/timeout|did not (answer|finish)/);
      expect(elapsed).toBeLessThan(40_000);
      expect(fake.modelCalls.length).toBeGreaterThan(0);
      // SIGKILL is asynchronous: give a loaded machine a bounded moment, then nothing may be left.
      await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
      expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    });
  }

  it('a missing gemini binary gets a clear message and exit code 3', async () => {
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home, { DEVX_GEMINI_BIN: '/nonexistent/gemini' }) });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('npm install -g @google/gemini-cli');
    expect(fake.requests).toHaveLength(0);
  });

  it('bad settings are a startup error naming the file and key', async () => {
    const project = makeProject({ '.devx/settings.json': JSON.stringify({ maxToolRounds: 'lots' }) });
    const r = await runDevx(['run', 'hello'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(project, '.devx', 'settings.json'));
    expect(r.stderr).toContain('maxToolRounds');
    expect(fake.requests).toHaveLength(0);
  });

  it('stops a runaway turn after the configured number of tool rounds', async () => {
    // devx's own loop: here, with a scripted model that never stops calling.
    const loop = Array.from({ length: 5 }, () => 'TOOL_CALL: list_directory | path=.');
    const r = await runScripted(['run', '--max-rounds', '2', 'loop forever'], { cwd: makeProject({}), home, replies: loop });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Stopped after 2 tool rounds/);
    expect(r.model.requests).toHaveLength(2);
  });
});

describe('large prompts', () => {
  it('a 1 MB prompt goes to gemini on stdin, not argv', async () => {
    const { GeminiCliBackend } = await import('../../src/providers/gemini/geminiCli.js');
    const { runProcess } = await import('../../src/util/processRunner.js');
    const { GEMINI_BIN, tempDir } = await import('../helpers/env.js');
    fake.push({ text: 'got it' });
    const backend = new GeminiCliBackend({
      bin: GEMINI_BIN,
      model: 'gemini-2.5-pro',
      accounts: [],
      workDir: tempDir(),
      timeoutMs: 60_000,
      maxRetries: 0,
      baseDelayMs: 10,
      maxDelayMs: 10,
      runner: runProcess,
      env: fakeEnv(fake, home) as Record<string, string>,
    });
    const prompt = `BEGIN ${'lorem ipsum '.repeat(90_000)} END-MARKER`;
    expect(prompt.length).toBeGreaterThan(1_000_000);
    const r = await backend.complete({ prompt, systemPrompt: 'S' });
    expect(r.text).toBe('got it');
    expect(fake.modelCalls[0].promptText).toContain('END-MARKER');
    expect(fake.modelCalls[0].promptText.length).toBeGreaterThan(1_000_000);
  });
});

describe('API failures are reported as what they are', () => {
  it('an unreachable API is reported within 30 s, naming what to check, with a line per retry', async () => {
    const started = Date.now();
    const r = await runDevx(['run', 'hello'], {
      cwd: makeProject({}),
      env: { ...fakeEnv(fake, home, { DEVX_RETRY_BASE_MS: '200' }), GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /✗ cannot reach the Gemini API: check your network connection, proxy settings and GOOGLE_GEMINI_BASE_URL \(now http:\/\/127\.0\.0\.1:9\)/,
    );
    expect(r.stderr.match(/↻ network error, retrying/g)).toHaveLength(3);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('a 429 on every call is a quota error after rotating through the accounts, not a timeout', async () => {
    writeUserSettings({ ...TWO_ACCOUNTS, providers: { gemini: { maxRetries: 1 } } });
    fake.fallback = { status: 429 };
    const started = Date.now();
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/account first hit its quota; trying second/);
    expect(r.stderr).toMatch(/✗ the Gemini quota or rate limit was hit \(429\)/);
    expect(new Set(fake.modelCalls.map((c) => c.apiKey))).toEqual(new Set(['key-first', 'key-second']));
  });

  it('a 500 on every call is a server error, retried with a line each', async () => {
    fake.fallback = { status: 500 };
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/↻ server error, retrying/g)).toHaveLength(3);
    expect(r.stderr).toMatch(/✗ the Gemini API returned a server error \(500\): fake API error 500/);
  });

  it('an empty reply, and a long repetitive one gemini cuts off, are errors with a message, never an empty success', async () => {
    for (const text of ['', 'The same line again.\n'.repeat(250_000)]) {
      fake.fallback = { text };
      const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/✗ the model returned an empty reply/);
    }
  });

  it('SIGTERM during a hung call ends devx within seconds and leaves no gemini behind', async () => {
    const { startDevx } = await import('../helpers/processes.js');
    const children: import('node:child_process').ChildProcess[] = [];
    fake.fallback = { hang: true };
    const project = makeProject({});
    const d = startDevx(['run', 'hello'], project, fakeEnv(fake, home, { DEVX_HANDOFF: 'model' }), children);
    await until(() => fake.modelCalls.length >= 1);
    const started = Date.now();
    d.child.kill('SIGTERM');
    const code = await new Promise((r) => d.child.on('close', r));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(code).toBe(130);
    // No handoff draft was started after the cancel: one model call in all.
    expect(fake.modelCalls).toHaveLength(1);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });
});
