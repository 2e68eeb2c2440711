// The person's editor opens one file: a name with shell syntax in it is a name, and an editor setting with
// arguments (`code --wait`) still works.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editorOf, runEditorSync } from '../../src/util/runEditor.js';
import { tempDir } from '../helpers/env.js';

describe('runEditorSync', () => {
  it('hands the file to an editor with arguments as one argument, never as shell text', () => {
    const dir = tempDir('devx-editor-');
    const marker = path.join(dir, 'PWNED');
    // Relative names: the editor runs in this process's folder, for this test the temp one.
    const file = path.join(dir, 'reviewer;touch PWNED;$(touch PWNED) x.md');
    fs.writeFileSync(file, 'before');
    const editor = `node -e "require('fs').writeFileSync(process.argv[1], 'edited ' + process.argv.length)"`;
    const cwd = process.cwd();
    process.chdir(dir);
    const r = (() => {
      try {
        return runEditorSync(editor, file);
      } finally {
        process.chdir(cwd);
      }
    })();
    expect(r.status).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('edited 2');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('takes VISUAL, then EDITOR, then vi; an empty one is no choice', () => {
    expect(editorOf({ VISUAL: 'code --wait', EDITOR: 'nano' })).toBe('code --wait');
    expect(editorOf({ VISUAL: '', EDITOR: 'nano' })).toBe('nano');
    expect(editorOf({})).toBe('vi');
  });
});
