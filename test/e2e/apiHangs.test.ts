// A hung API is told as what it is: through the real gemini (a process per call, and
// the warm ACP process) and the real claude, against fake APIs that never answer or stop mid-reply. These
// cases mostly wait out a 5 s turn timeout, so they run at once, each with fake APIs and a HOME of its own
// (apiFaults.test.ts holds the other faults, one after another).
import path from 'node:path';
import { describe, it } from 'vitest';
import { FakeGeminiApi, type FakeReply } from '../helpers/fakeGeminiApi.js';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { makeHome, makeProject, runDevx } from '../helpers/env.js';
import { faultEnv } from '../helpers/useBothFakes.js';
import { killUnder, processesUnder, until } from '../helpers/processes.js';

type Target = 'spawn' | 'warm' | 'claude';
const TARGETS: Target[] = ['spawn', 'warm', 'claude'];
const API = { spawn: 'the Gemini API', warm: 'the Gemini API', claude: 'the Anthropic API' } as const;
const REPLY = 'A reply long enough to arrive in three parts, of which only the first comes.\n'.repeat(20);

describe.concurrent('a hung API fails within the turn timeout as "stopped answering", not "cannot reach"', () => {
  for (const target of TARGETS) {
    for (const [what, reply] of [
      ['no reply at all', { hang: true }],
      ['a reply that stops after its first part', { text: REPLY, stall: true }],
    ] as [string, FakeReply][]) {
      it(`${target}: ${what}`, async ({ expect }) => {
        const gemini = await new FakeGeminiApi().start();
        const claude = await new FakeAnthropicApi().start();
        const home = makeHome();
        try {
          gemini.fallback = reply;
          claude.fallback = reply;
          const env = faultEnv(gemini, claude, home, target, { DEVX_TURN_TIMEOUT_SEC: '5' });
          const started = Date.now();
          const r = await runDevx(['run', ...(target === 'claude' ? ['--provider', 'claude'] : []), 'hello'], {
            cwd: makeProject({}),
            env,
            timeoutMs: 120_000,
          });
          const elapsed = Date.now() - started;
          expect(r.code).toBe(1);
          expect(r.stdout).toBe('');
          expect(r.stderr).toMatch(
            new RegExp(`✗ ${API[target]} stopped answering: (no reply|mid-reply[^\\n]*) within 5s, the turn timeout \\(DEVX_TURN_TIMEOUT_SEC`),
          );
          expect(r.stderr).not.toMatch(/cannot reach|did not finish within/);
          // Within the turn timeout, plus devx's own start and exit: a ceiling generous enough for a loaded
          // 2-core machine, still far under gemini's own 60 s header timeout (and the retries of it that came
          // before the deadline was the whole call's).
          expect(elapsed).toBeLessThan(5000 + 30_000);
          // The deadline is the whole call's: no retry after it.
          expect(r.stderr).not.toMatch(/↻/);
          await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
          expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
          expect([...gemini.scriptErrors, ...claude.scriptErrors].map((e) => e.message)).toEqual([]);
        } finally {
          killUnder(path.join(home, '.devx'));
          await gemini.close();
          await claude.close();
        }
      }, 60_000);
    }
  }
});
