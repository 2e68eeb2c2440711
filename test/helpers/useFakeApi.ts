// The per-test lifecycle every e2e file shares: a fresh fake Gemini API and temp HOME before each
// test; afterwards the fake is closed and any failed request assertion fails the test.
import { afterEach, beforeEach, expect } from 'vitest';
import { FakeGeminiApi } from './fakeGeminiApi.js';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { makeHome } from './env.js';
import { killUnder } from './processes.js';

export function useFakeApi(set: (fake: FakeGeminiApi, home: string) => void): void {
  let current: FakeGeminiApi;
  beforeEach(async () => {
    current = await new FakeGeminiApi().start();
    set(current, makeHome());
  });
  afterEach(async () => {
    await current.close();
    expect(current.scriptErrors.map((e) => e.message)).toEqual([]);
  });
}

/**
 * useFakeApi, plus the devx processes a test starts in the background: returns their registry; after
 * each test they are killed, with whatever they left running under the temp HOME.
 */
export function useFakeApiAndChildren(set: (fake: FakeGeminiApi, home: string) => void): ChildProcess[] {
  const children: ChildProcess[] = [];
  let home = '';
  useFakeApi((f, h) => {
    home = h;
    set(f, h);
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    killUnder(path.join(home, '.devx'));
  });
  return children;
}
