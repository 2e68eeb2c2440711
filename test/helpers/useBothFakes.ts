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
