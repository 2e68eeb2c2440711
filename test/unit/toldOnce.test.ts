// A warning about a file is said once per version of the file: the same file and words say nothing the
// second time; a changed file, or other words, are said again.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notToldBefore } from '../../src/session/toldOnce.js';
import { tempDir } from '../helpers/env.js';

describe('warnings about a file', () => {
  it('are said once until the file changes', () => {
    const home = tempDir('devx-told-');
    const file = path.join(tempDir('devx-told-files-'), 'broken.md');
    fs.writeFileSync(file, 'one');
    const w = [{ file, text: `custom command ${file} was not loaded: no text` }];
    expect(notToldBefore(home, w)).toEqual([w[0].text]);
    expect(notToldBefore(home, w)).toEqual([]);
    // Other words about the same file are new.
    expect(notToldBefore(home, [{ file, text: 'another warning' }])).toEqual(['another warning']);
    // The file changed (its size): said again.
    fs.writeFileSync(file, 'one two');
    expect(notToldBefore(home, w)).toEqual([w[0].text]);
  });

  it('are said every time when the record cannot be kept', () => {
    const home = path.join(tempDir('devx-told-ro-'), 'not-a-dir');
    fs.writeFileSync(home, 'a file where the folder would be');
    const w = [{ file: home, text: 'x' }];
    expect(notToldBefore(home, w)).toEqual(['x']);
    expect(notToldBefore(home, w)).toEqual(['x']);
  });
});
