// The answer to "Carry it out?" after a plan: `y` is yes (the default mode, asking before changes), as everywhere
// else in devx; yolo is only ever typed out.
import { describe, expect, it } from 'vitest';
import { modeForAnswer } from '../../src/cli/planFlow.js';

describe('modeForAnswer', () => {
  it('y and d are the default mode, a auto-edit, and only yolo typed out is yolo', () => {
    expect(modeForAnswer('y')).toBe('default');
    expect(modeForAnswer('yes')).toBe('default');
    expect(modeForAnswer('d')).toBe('default');
    expect(modeForAnswer('a')).toBe('auto-edit');
    expect(modeForAnswer('yolo')).toBe('yolo');
    for (const other of ['c', 'r', '', 'yo', 'constructor', '__proto__']) expect(modeForAnswer(other)).toBeUndefined();
  });
});
