// Both fake APIs (Gemini and Anthropic) and a temp HOME for each test, for e2e files that drive gemini and
// claude alike: started before each test, closed after it (with what devx left running stopped), and any
// error in their scripts fails the test.
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { FakeGeminiApi } from './fakeGeminiApi.js';
import { FakeAnthropicApi } from './fakeAnthropicApi.js';
import { REPO_ROOT, fakeEnv, makeHome } from './env.js';
import { killUnder } from './processes.js';

export const CLAUDE_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'claude');

export interface BothFakes {
  gemini: FakeGeminiApi;
  claude: FakeAnthropicApi;
  home: string;
  /** devx's environment pointed at both fakes (claude through its real binary). */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export function useBothFakes(): BothFakes {
  const f = {
    env: (extra: Record<string, string> = {}) =>
      fakeEnv(f.gemini, f.home, { ANTHROPIC_BASE_URL: f.claude.url, ANTHROPIC_API_KEY: 'sk-ant-test', DEVX_CLAUDE_BIN: CLAUDE_BIN, ...extra }),
  } as BothFakes;
  beforeEach(async () => {
    f.gemini = await new FakeGeminiApi().start();
    f.claude = await new FakeAnthropicApi().start();
    f.home = makeHome();
  });
  afterEach(async () => {
    killUnder(path.join(f.home, '.devx'));
    await f.gemini.close();
    await f.claude.close();
    expect([...f.gemini.scriptErrors, ...f.claude.scriptErrors].map((e) => e.message)).toEqual([]);
  });
  return f;
}

/** devx's environment for one fault case: gemini (a process per call, or warm) or claude, both fakes, one quick retry. */
export function faultEnv(
  gemini: FakeGeminiApi,
  claude: FakeAnthropicApi,
  home: string,
  target: 'spawn' | 'warm' | 'claude',
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return fakeEnv(gemini, home, {
    ANTHROPIC_BASE_URL: claude.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    DEVX_CLAUDE_BIN: CLAUDE_BIN,
    DEVX_RETRY_BASE_MS: '50',
    // One retry shows a fault is retried; three (the default) only made the suite slower.
    DEVX_MAX_RETRIES: '1',
    ...(target === 'claude' ? {} : { DEVX_PROVIDER_MODE: target }),
    ...extra,
  });
}
