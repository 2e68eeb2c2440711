// The watchdog's program is source text in a string (node -e): it must be a valid argument and valid JavaScript,
// which the type check cannot see. Its effects (children gone after kill -9 of devx): test/e2e/childrenDie.test.ts.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { WATCHDOG_SOURCE } from '../../src/util/groupWatchdog.js';

describe('the watchdog program', () => {
  it('holds no NUL byte (spawn refuses such an argument) and compiles', () => {
    expect(WATCHDOG_SOURCE.includes('\0')).toBe(false);
    expect(() => new vm.Script(WATCHDOG_SOURCE)).not.toThrow();
  });
});
