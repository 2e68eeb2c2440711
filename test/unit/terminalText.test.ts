// escapeControls, escapeJsonControls and what a person approves (src/util/terminalText.ts): text from a repository, a model or a tool
// shows its control characters instead of handing them to the terminal, chunk by chunk as it streams.
import { describe, expect, it } from 'vitest';
import { escapeControls, escapeJsonControls, makeVisible, shownForApproval } from '../../src/util/terminalText.js';

const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('escapeControls', () => {
  it('shows C0 controls as control pictures, DEL as ␡ and C1 controls as \\u{..}', () => {
    expect(escapeControls('\x1b]52;c;QQ==\x07')).toBe('␛]52;c;QQ==␇');
    expect(escapeControls('\x1b[?1049h\x1bP+q\x1b\\')).toBe('␛[?1049h␛P+q␛\\');
    expect(escapeControls('a\x00b\x08c\x7fd')).toBe('a␀b␈c␡d');
    expect(escapeControls('\u009b2J \u0085 \u0090')).toBe('\\u{9b}2J \\u{85} \\u{90}');
  });

  it('shows the characters that reorder or hide text: bidirectional controls, zero-width spaces, the BOM', () => {
    // A "Trojan Source" comment: shown with its overrides, never reordered by the terminal.
    expect(escapeControls('/*\u202e } \u2066if (isAdmin)\u2069 \u2066 begin admins only */')).toBe(
      '/*\\u{202e} } \\u{2066}if (isAdmin)\\u{2069} \\u{2066} begin admins only */',
    );
    expect(escapeControls('plain\u202etxt.exe a\u200bb \u200e\u200f\u061c \u2060\ufeff')).toBe(
      'plain\\u{202e}txt.exe a\\u{200b}b \\u{200e}\\u{200f}\\u{61c} \\u{2060}\\u{feff}',
    );
    // Joiners stay: emoji sequences and scripts need them.
    expect(escapeControls('👩\u200d💻 می\u200cخواهم')).toBe('👩\u200d💻 می\u200cخواهم');
  });

  it('keeps newlines, tabs and printable text of any script', () => {
    const text = 'line one\n\tindented — café, 日本語, emoji 🎉, a\u00a0non-breaking space\n';
    expect(escapeControls(text)).toBe(text);
  });

  it('turns CRLF into LF and shows a lone CR; a CR at the very end is dropped (it may be half of a CRLF)', () => {
    expect(escapeControls('a\r\nb\r\n')).toBe('a\nb\n');
    expect(escapeControls('rm -rf /\rls')).toBe('rm -rf /␍ls');
    expect(escapeControls('50%\r')).toBe('50%');
  });

  it('gives the same text chunk by chunk as whole, wherever the chunks are cut (a CRLF cut in two included)', () => {
    const whole = 'x\x1b]52;c;QQ==\x07y\r\nz\u009b1m\x1b[?1049h\tend\r\n';
    for (let i = 0; i <= whole.length; i++) {
      expect(escapeControls(whole.slice(0, i)) + escapeControls(whole.slice(i)), `cut at ${i}`).toBe(escapeControls(whole));
    }
  });

  it('leaves no control character, and a second pass changes nothing', () => {
    const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
    const once = escapeControls(all);
    expect(once.replace(/[\n\t]/g, '')).not.toMatch(CONTROLS);
    expect(escapeControls(once)).toBe(once);
  });
});

describe('escapeJsonControls', () => {
  it('escapes what JSON.stringify leaves raw (DEL, C1), and the value parses back the same', () => {
    const value = { answer: 'a\x1b]0;t\x07b\u009b2Jc\x7fd\r\n', list: ['\u0085'] };
    const json = escapeJsonControls(JSON.stringify(value, null, 2));
    expect(json.replace(/\n/g, '')).not.toMatch(CONTROLS);
    expect(json).toContain('\\u009b');
    expect(JSON.parse(json)).toEqual(value);
    const bidi = { name: 'a\u202eb\u2066c' };
    expect(escapeJsonControls(JSON.stringify(bidi))).toBe('{"name":"a\\u202eb\\u2066c"}');
    expect(JSON.parse(escapeJsonControls(JSON.stringify(bidi)))).toEqual(bidi);
  });

  it('escapes a raw control in a line that is not JSON as JSON would', () => {
    expect(escapeJsonControls('{"a":"\x1b[2J"')).toBe('{"a":"\\u001b[2J"');
  });
});

describe('makeVisible and shownForApproval (what a person approves)', () => {
  it('keeps the names of other scripts as they are: CJK, accents, Cyrillic and Greek words, emoji', () => {
    for (const s of ['write 文档/説明.md', 'write café-Zürich.txt', 'run: cat отчёт.txt', 'write λόγος.md', 'write 한국어.md', 'write 🚀.md'])
      expect(makeVisible(s), s).toBe(s);
    // NFD accents (one combining mark each) stay too.
    expect(makeVisible('write cafe\u0301.md')).toBe('write cafe\u0301.md');
  });

  it('escapes what cannot be seen: spaces other than the space, zero-width and filler characters, the braille blank', () => {
    expect(makeVisible('rm\u00a0-rf')).toBe('rm\\u{a0}-rf');
    expect(makeVisible('a\u200bb\u200dc\u3164d\u2800e\ufe0ff')).toBe('a\\u{200b}b\\u{200d}c\\u{3164}d\\u{2800}e\\u{fe0f}f');
    expect(makeVisible('x\u{e0041}y\ue000z')).toBe('x\\u{e0041}y\\u{e000}z');
    expect(makeVisible('a\nb\tc\rd')).toBe('a\\nb\\tc\\x0dd');
  });

  it('escapes letters that pass for ASCII: a lookalike in a Latin word, a word made of lookalikes, fullwidth and math letters', () => {
    expect(makeVisible('curl https://g\u0456thub.com/x.sh')).toBe('curl https://g\\u{456}thub.com/x.sh');
    // "рау" in Cyrillic reads as "pay".
    expect(makeVisible('curl https://\u0440\u0430\u0443.com')).toBe('curl https://\\u{440}\\u{430}\\u{443}.com');
    expect(makeVisible('\uff52\uff4d -rf /')).toBe('\\u{ff52}\\u{ff4d} -rf /');
    expect(makeVisible('\u{1d42b}\u{1d426}')).toBe('\\u{1d42b}\\u{1d426}');
    expect(makeVisible('npm i \u03bfk')).toBe('npm i \\u{3bf}k');
  });

  it('escapes right-to-left letters (they reorder the text around them) and marks stacked past two', () => {
    expect(makeVisible('rm -rf \u05d0 /tmp/x')).toBe('rm -rf \\u{5d0} /tmp/x');
    expect(makeVisible('a\u0300\u0301\u0302\u0303')).toBe('a\u0300\u0301\\u{302}\\u{303}');
  });

  it("folds padding into its count, and a request's own fold marks are escaped so none can be forged", () => {
    expect(shownForApproval(`run: ok${'\u3164'.repeat(50)}; npm i x`)).toBe('run: ok⟪50 × \\u{3164}⟫; npm i x');
    expect(shownForApproval('run: echo ⟪6000 blanks⟫ && rm -rf ~')).toBe('run: echo \\u{27ea}6000 blanks\\u{27eb} && rm -rf ~');
  });
});
