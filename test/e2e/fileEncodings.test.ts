// A file's bytes through the devx binary, with the real gemini against the fake API: the model changes one
// ASCII word in a Latin-1 file with CRLF endings and no final newline, and every other byte stays as it was
// (its accented letters are not turned into U+FFFD); a UTF-16 file is refused with a reason the model reads;
// `devx undo` puts the Latin-1 file's bytes back.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});

describe('the bytes of a file devx edits', () => {
  it('a Latin-1 file keeps every byte outside the edit, a UTF-16 file is refused, and undo restores the bytes', async () => {
    const project = makeProject({});
    const legacy = Buffer.from('Société générale\r\nbr — à bientôt\r\nfin', 'latin1');
    const wide = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('br wide\r\n', 'utf16le')]);
    fs.writeFileSync(path.join(project, 'legacy.txt'), legacy);
    fs.writeFileSync(path.join(project, 'wide.txt'), wide);
    fake.push(
      { text: 'TOOL_CALL: edit_file | path=legacy.txt | old_text=br | new_text=BR\nTOOL_CALL: edit_file | path=wide.txt | old_text=br | new_text=BR' },
      (req) => {
        expect(req.promptText).toMatch(/edited legacy\.txt: replaced 1 occurrence/);
        expect(req.promptText).toMatch(/wide\.txt is UTF-16 text \(little-endian, with a BOM\); devx reads and edits only UTF-8 and single-byte/);
        return { text: 'Changed legacy.txt; wide.txt is UTF-16.' };
      },
    );
    const env = fakeEnv(fake, home);
    const r = await runDevx(['run', '--yes', 'capitalise br'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Changed legacy\.txt/);
    const after = fs.readFileSync(path.join(project, 'legacy.txt'));
    expect(after.toString('hex')).toBe(Buffer.from('Société générale\r\nBR — à bientôt\r\nfin', 'latin1').toString('hex'));
    expect(fs.readFileSync(path.join(project, 'wide.txt')).toString('hex')).toBe(wide.toString('hex'));

    const u = await runDevx(['undo'], { cwd: project, env });
    expect(u.code, u.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project, 'legacy.txt')).toString('hex')).toBe(legacy.toString('hex'));
  }, 90_000);
});
