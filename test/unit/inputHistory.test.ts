// The REPL's input history, kept per project in devx's home: what one session typed, the next recalls.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_SIZE, inputHistoryFile, loadInputHistory, saveInputHistory } from '../../src/cli/inputHistory.js';
import { tempDir } from '../helpers/env.js';

describe('input history', () => {
  it('is one file per project in devx home, kept newest first and bounded, in a folder only the user reads', () => {
    const home = tempDir('devx-ih-home-');
    const env = { HOME: home };
    const [a, b] = [tempDir('devx-ih-a-'), tempDir('devx-ih-b-')];
    const fa = inputHistoryFile(env, a);
    expect(fa.startsWith(path.join(home, '.devx'))).toBe(true);
    expect(inputHistoryFile(env, b)).not.toBe(fa);
    expect(loadInputHistory(fa)).toEqual([]);
    const many = Array.from({ length: HISTORY_SIZE + 20 }, (_, i) => `message ${i}`);
    saveInputHistory(fa, ['x'.repeat(5000), ...many]);
    const back = loadInputHistory(fa);
    expect(back).toHaveLength(HISTORY_SIZE);
    expect(back[0]).toBe('message 0');
    expect(fs.statSync(path.dirname(fa)).mode & 0o777).toBe(0o700);
  });

  it('reads a broken or foreign file as empty', () => {
    const file = path.join(tempDir('devx-ih-'), 'h.json');
    fs.writeFileSync(file, '{"not": "a list"}');
    expect(loadInputHistory(file)).toEqual([]);
    fs.writeFileSync(file, '["ok", 3, null, "fine"]');
    expect(loadInputHistory(file)).toEqual(['ok', 'fine']);
    fs.writeFileSync(file, 'not json');
    expect(loadInputHistory(file)).toEqual([]);
  });
});
