// GeminiCliBackend with an injected process runner: classification, accounts, backoff, deadlines.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeminiCliBackend, type GeminiCliOptions } from '../../src/providers/gemini/geminiCli.js';
import { BackendError, type BackendEvent } from '../../src/providers/types.js';
import { classifyGeminiResult, lastJsonObject } from '../../src/providers/gemini/classifyGeminiExit.js';
import { backoffDelay } from '../../src/providers/backoff.js';
import { CACHE_LIMIT_BYTES, emptyWhenOver } from '../../src/providers/gemini/compileCache.js';
import { BinaryMissingError, type ProcessRunner, type RunResult } from '../../src/util/processRunner.js';
import { tempDir } from '../helpers/env.js';

const ok = (text: string): Partial<RunResult> => ({
  exitCode: 0,
  stdout: JSON.stringify({ session_id: 's', response: text, stats: { models: { m: { tokens: { prompt: 10, candidates: 2, total: 12 } } } } }),
});
const fail = (exitCode: number, stderr = ''): Partial<RunResult> => ({ exitCode, stderr });
const apiError = (code: number) =>
  fail(
    code % 256,
    `noise\nmore noise\n{\n  "session_id": "x",\n  "error": {\n    "type": "Error",\n    "message": "{\\"error\\":{\\"code\\":${code},\\"message\\":\\"boom ${code}\\"}}",\n    "code": ${code}\n  }\n}`,
  );

function result(r: Partial<RunResult>): RunResult {
  return { exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: false, outputCapped: false, durationMs: 1, ...r };
}

function backend(script: (Partial<RunResult> | Error)[], opts: Partial<GeminiCliOptions> = {}) {
  const calls: { file: string; args: string[]; env: Record<string, string | undefined>; input?: string; cwd: string }[] = [];
  const sleeps: number[] = [];
  const runner: ProcessRunner = async (file, args, o) => {
    calls.push({ file, args, env: o.env ?? {}, input: o.input, cwd: o.cwd });
    const next = script.shift();
    if (!next) throw new Error('runner script exhausted');
    if (next instanceof Error) throw next;
    return result(next);
  };
  let now = 0;
  const b = new GeminiCliBackend({
    bin: 'gemini',
    model: 'm',
    accounts: [],
    workDir: tempDir('devx-backend-'),
    timeoutMs: 60_000,
    maxRetries: 2,
    baseDelayMs: 1000,
    maxDelayMs: 10_000,
    runner,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
    now: () => now,
    ...opts,
  });
  return { b, calls, sleeps };
}

const req = { prompt: 'PROMPT', systemPrompt: 'SYS' };

describe('GeminiCliBackend', () => {
  it('sends the prompt on stdin, -m and -o json, a deny-all policy, and runs in its scratch dir', async () => {
    const { b, calls } = backend([ok('hi')]);
    const r = await b.complete(req);
    expect(r).toMatchObject({ text: 'hi', model: 'm', attempts: 1, usage: { input: 10, output: 2, total: 12 } });
    const c = calls[0];
    expect(c.input).toBe('PROMPT');
    expect(c.args.slice(0, 3)).toEqual(['--model=m', '-o', 'json']);
    expect(c.args).not.toContain('PROMPT');
    const policy = fs.readFileSync(c.args[c.args.indexOf('--policy') + 1], 'utf8');
    expect(policy).toMatch(/toolName = "\*"\s+decision = "deny"/);
    expect(fs.readFileSync(c.env.GEMINI_SYSTEM_MD!, 'utf8')).toBe('SYS');
    expect(c.env.GEMINI_CLI_TRUST_WORKSPACE).toBe('true');
    expect(c.env.GEMINI_CLI_NO_RELAUNCH).toBe('true'); // one node process per call, not two
    expect(path.basename(c.cwd)).toBe('scratch');
    // Only gemini's workspace settings: one attempt per call, devx retries (its own retries hid faults).
    expect(fs.readdirSync(c.cwd)).toEqual(['.gemini']);
    expect(JSON.parse(fs.readFileSync(path.join(c.cwd, '.gemini', 'settings.json'), 'utf8')).general).toEqual({ maxAttempts: 1 });
    expect(c.env.TMPDIR).toMatch(/tmp$/);
  });

  it("gives gemini a compile cache folder (Node 22 and later keep its compiled bundle there) in devx's home, only the user can read it; the user's own is kept; none with Node's NODE_DISABLE_COMPILE_CACHE", async () => {
    const home = tempDir('devx-backend-home-');
    const workDir = path.join(home, 'runs', 'r1');
    const cacheOf = async (env: Record<string, string>, dir = workDir) => {
      const { b, calls } = backend([ok('hi')], { workDir: dir, env: { DEVX_HOME: home, ...env } });
      await b.complete(req);
      return calls[0].env.NODE_COMPILE_CACHE;
    };
    const mine = await cacheOf({});
    expect(mine).toBe(path.join(home, 'cache', 'gemini'));
    expect(fs.statSync(mine!).mode & 0o777).toBe(0o700);
    // The same folder for every call and backend, so the second start finds what the first left.
    expect(await cacheOf({})).toBe(mine);
    expect(await cacheOf({ NODE_COMPILE_CACHE: '/their/cache' })).toBe('/their/cache');
    expect(await cacheOf({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    // devx's own code cache switched off does not change gemini's launch (the head start adopts only the same launch).
    expect(await cacheOf({ DEVX_CODE_CACHE: 'off' })).toBe(mine);
    // A work folder outside devx's home (an embedder's) keeps its cache beside it.
    const elsewhere = tempDir('devx-backend-');
    expect(await cacheOf({}, elsewhere)).toBe(path.join(elsewhere, 'cache', 'gemini'));
    // A link where the folder would be: the call goes on without a cache, and nothing is made through the link.
    const linked = tempDir('devx-backend-');
    const target = tempDir('devx-backend-target-');
    fs.symlinkSync(target, path.join(linked, 'cache'));
    expect(await cacheOf({}, linked)).toBeUndefined();
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it('empties the compile cache folder once it holds more than its limit (each gemini release adds entries of its own)', () => {
    const dir = tempDir('devx-gcache-');
    fs.mkdirSync(path.join(dir, 'v22-abc'));
    fs.writeFileSync(path.join(dir, 'v22-abc', 'one'), Buffer.alloc(600));
    fs.writeFileSync(path.join(dir, 'two'), Buffer.alloc(300));
    emptyWhenOver(dir, 1000);
    expect(fs.readdirSync(dir).sort()).toEqual(['two', 'v22-abc']);
    fs.writeFileSync(path.join(dir, 'v22-abc', 'three'), Buffer.alloc(200));
    emptyWhenOver(dir, 1000);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(CACHE_LIMIT_BYTES).toBeGreaterThanOrEqual(32 * 1024 * 1024);
  });

  it('rotates accounts by call, env and wrapper-command accounts alike', async () => {
    const { b, calls } = backend([ok('1'), ok('2'), ok('3')], {
      accounts: [
        { name: 'a', env: { GEMINI_CLI_HOME: '/homes/a' } },
        { name: 'b', command: ['gemini-account.sh', '2'] },
      ],
    });
    await b.complete(req);
    await b.complete(req);
    await b.complete(req);
    expect(calls.map((c) => c.file)).toEqual(['gemini', 'gemini-account.sh', 'gemini']);
    // The account's own home is sealed (only its login carries over), the same seal each time it comes round;
    // a wrapper-command account gets none (its script chooses its home).
    expect(calls[0].env.GEMINI_CLI_HOME).not.toBe('/homes/a');
    expect(calls[0].env.GEMINI_CLI_HOME).toBe(calls[2].env.GEMINI_CLI_HOME);
    expect(calls[1].env.GEMINI_CLI_HOME).toBeUndefined();
    expect(calls[1].args.slice(0, 2)).toEqual(['2', '--model=m']);
  });

  it('moves to the next account on quota before backing off', async () => {
    const events: BackendEvent[] = [];
    const { b, calls, sleeps } = backend([apiError(429), apiError(429), ok('done')], { accounts: [{ name: 'a' }, { name: 'b' }] });
    const r = await b.complete(req, (e) => events.push(e));
    expect(r.text).toBe('done');
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([750]);
    expect(events.map((e) => e.type)).toEqual(['attempt', 'account_switch', 'attempt', 'retry', 'attempt']);
  });

  it('backs off exponentially with jitter on server errors, then gives up', async () => {
    const { b, sleeps } = backend([apiError(503), apiError(500), apiError(502)]);
    await expect(b.complete(req)).rejects.toMatchObject({ kind: 'server' });
    expect(sleeps).toEqual([750, 1500]);
    expect(backoffDelay(3, 1000, 5000, () => 0)).toBe(2500);
    expect(backoffDelay(3, 1000, 5000, () => 0.999)).toBeLessThanOrEqual(5000);
  });

  it('does not retry bad requests, auth, config or untrusted failures', async () => {
    for (const [r, kind] of [
      [apiError(400), 'bad_request'],
      [fail(41, 'auth noise'), 'auth'],
      [fail(52), 'config'],
      [fail(55, 'Gemini CLI is not running in a trusted directory'), 'untrusted'],
    ] as const) {
      const { b, calls } = backend([r, ok('never')]);
      await expect(b.complete(req)).rejects.toMatchObject({ kind });
      expect(calls).toHaveLength(1);
    }
  });

  it('types a missing binary with install instructions', async () => {
    const { b } = backend([new BinaryMissingError('gemini')]);
    const err = await b.complete(req).catch((e) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect(err.kind).toBe('binary_missing');
    expect(err.message).toContain('npm install -g @google/gemini-cli');
  });

  it('types a timeout as the API that stopped answering, and does not retry past the deadline', async () => {
    const { b, calls } = backend([{ timedOut: true, exitCode: null }, ok('late')]);
    await expect(b.complete(req)).rejects.toMatchObject({
      kind: 'stalled',
      message: expect.stringMatching(/^the Gemini API stopped answering: no reply within 60s, the turn timeout/),
    });
    expect(calls).toHaveLength(1);
  });

  it('types unparseable output', async () => {
    const { b } = backend([{ exitCode: 0, stdout: 'not json' }]);
    await expect(b.complete(req)).rejects.toMatchObject({ kind: 'unparseable' });
  });

  it('falls back to the fallback model after quota exhaustion', async () => {
    const { b, calls } = backend([apiError(429), ok('fb')], { fallbackModel: 'flash', maxRetries: 0 });
    const r = await b.complete(req);
    expect(r.model).toBe('flash');
    expect(calls[1].args[0]).toBe('--model=flash');
  });
});

describe('classifyGeminiResult', () => {
  it('finds the error JSON after stderr noise', () => {
    expect(lastJsonObject('x\n{"a":1}\ny\n{"b":\n 2}\n')).toEqual({ b: 2 });
    expect(() => classifyGeminiResult(result(apiError(429)), 'm')).toThrow(/boom 429/);
  });

  it('maps exit codes without JSON', () => {
    const kinds = [173, 144, 244, 247, 41, 55, 52, 99].map((code) => {
      try {
        classifyGeminiResult(result(fail(code)), 'm');
        return 'none';
      } catch (e) {
        return (e as BackendError).kind;
      }
    });
    expect(kinds).toEqual(['quota', 'bad_request', 'server', 'server', 'auth', 'untrusted', 'config', 'failed']);
  });

  it("not authenticated points at the user's settings file for accounts (a project cannot set them)", () => {
    expect(() => classifyGeminiResult(result(fail(41)), 'm')).toThrow(
      /set GEMINI_API_KEY \(accounts go in ~\/\.devx\/settings\.json under providers\.gemini\.accounts; project files cannot set them\)/,
    );
  });

  it("reads gemini's own retry log as the failure it is", async () => {
    const { geminiInternalRetry } = await import('../../src/providers/gemini/classifyGeminiExit.js');
    expect(
      geminiInternalRetry('Attempt 1 failed with status 429. Retrying with backoff... _ApiError: {"error":{"code":429,"message":"slow down"}}'),
    ).toMatchObject({ kind: 'quota', message: expect.stringMatching(/\(429\): slow down/) });
    expect(geminiInternalRetry('Attempt 1 failed with status 503. Retrying with backoff... x')?.kind).toBe('server');
    expect(geminiInternalRetry('Attempt 2 failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request')?.kind).toBe('network');
    expect(geminiInternalRetry('[STARTUP] Phase cli_startup')).toBeNull();
  });
});

describe('a model name that looks like an option', () => {
  it('reaches each model CLI as the value of --model, never as an option of its own', async () => {
    const { b, calls } = backend([ok('x')], { model: '--version' });
    await b.complete(req);
    expect(calls[0].args[0]).toBe('--model=--version');
    expect(calls[0].args).not.toContain('--version');
  });
});
