// The per-test lifecycle every e2e file shares: a fresh fake Gemini API and temp HOME before each
// test; afterwards the fake is closed and any failed request assertion fails the test.
import { afterEach, beforeEach, expect } from 'vitest';
import { FakeGeminiApi } from './fakeGeminiApi.js';
import { makeHome } from './env.js';

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
