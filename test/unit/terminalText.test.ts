// escapeControls and escapeJsonControls (src/util/terminalText.ts): text from a repository, a model or a tool
// shows its control characters instead of handing them to the terminal, chunk by chunk as it streams.
import { describe, expect, it } from 'vitest';
import { escapeControls, escapeJsonControls } from '../../src/util/terminalText.js';

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
