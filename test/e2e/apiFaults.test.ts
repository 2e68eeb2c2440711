// Faults between the model CLI and its API are told as what they are, through the
// real gemini (a process per call, and the warm ACP process) and the real claude, against fake APIs that
// reset the connection mid-reply, answer with garbage or refuse the connection. An API that hangs or
// stops mid-reply is in apiHangs.test.ts (those cases wait out a turn timeout, so they run at once).
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi, type FakeReply } from '../helpers/fakeGeminiApi.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { faultEnv, useBothFakes } from '../helpers/useBothFakes.js';
import { processesUnder, until } from '../helpers/processes.js';

const fakes = useBothFakes();
let gemini: FakeGeminiApi;
let claude: FakeAnthropicApi;
let home: string;
beforeEach(() => ({ gemini, claude, home } = fakes));

type Target = 'spawn' | 'warm' | 'claude';
const TARGETS: Target[] = ['spawn', 'warm', 'claude'];
const API = { spawn: 'the Gemini API', warm: 'the Gemini API', claude: 'the Anthropic API' } as const;

const REPLY = 'A reply long enough to arrive in three parts, of which only the first comes.\n'.repeat(20);

async function run(target: Target, reply: FakeReply, extra: Record<string, string> = {}) {
  gemini.fallback = reply;
  claude.fallback = reply;
  const env = faultEnv(gemini, claude, home, target, extra);
  const started = Date.now();
  const r = await runDevx(['run', ...(target === 'claude' ? ['--provider', 'claude'] : []), 'hello'], { cwd: makeProject({}), env, timeoutMs: 120_000 });
  return { ...r, elapsed: Date.now() - started };
}

async function nothingLeft(): Promise<void> {
  await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
  expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
}

describe('a connection reset mid-reply is told as a cut, retried, and never taken as a whole reply', () => {
  for (const target of TARGETS) {
    it(target, async () => {
      const r = await run(target, { text: REPLY, reset: true });
      expect(r.code).toBe(1);
      // Never the first part passed off as the answer (a per-call gemini with its own retries did that).
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`✗ the connection to ${API[target]} was cut mid-reply: ${target === 'claude' ? 'claude' : 'gemini'} said [^\\n]*(terminated|ECONNRESET)`),
      );
      expect(r.stderr.match(/↻ connection cut mid-reply, retrying/g)).toHaveLength(1);
      expect(r.stderr).not.toMatch(/cannot reach|server error|\(500\)/);
      await nothingLeft();
    });
  }

  it('a reset once, then a whole reply: the retry answers', async () => {
    gemini.push({ text: REPLY, reset: true }, { text: 'the whole answer' });
    const env = fakeEnv(gemini, home, { DEVX_PROVIDER_MODE: 'spawn' });
    const r = await runDevx(['run', 'hello'], { cwd: makeProject({}), env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('the whole answer');
    expect(r.stderr).toMatch(/↻ connection cut mid-reply, retrying/);
  });
});

describe('garbage from the API is a reply devx could not read, not an HTTP error', () => {
  const GARBAGE = {
    'a body that is not JSON': () => '<html><body>502 Bad Gateway from a proxy</body></html>',
    'JSON of the wrong shape': (t: Target) =>
      t === 'claude' ? 'event: message_start\ndata: {"type":"message_start","message":5}\n\n' : 'data: {"candidates": 5}\r\n\r\n',
  };
  for (const target of TARGETS) {
    for (const [what, body] of Object.entries(GARBAGE)) {
      it(`${target}: ${what}`, async () => {
        const r = await run(target, { garbage: body(target) });
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(
          new RegExp(`✗ ${API[target]} sent a reply devx could not read \\(not the API's JSON\\): ${target === 'claude' ? 'claude' : 'gemini'} said `),
        );
        expect(r.stderr).not.toMatch(/server error|\(500\)|HTTP 500|cannot reach/);
      });
    }
  }
});

describe('an API that refuses the connection is still "cannot reach", quickly', () => {
  for (const target of TARGETS) {
    it(target, async () => {
      const r = await run(
        target,
        { text: 'unused' },
        target === 'claude' ? { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } : { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `✗ cannot reach ${API[target]}: check your network connection, proxy settings and ${target === 'claude' ? 'ANTHROPIC_BASE_URL' : 'GOOGLE_GEMINI_BASE_URL'}`,
        ),
      );
      expect(r.stderr).not.toMatch(/stopped answering/);
      expect(r.elapsed).toBeLessThan(30_000);
    });
  }
});
