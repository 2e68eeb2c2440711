// Text, never control: what devx prints that came from a repository, a model or a tool shows its control
// characters instead of handing them to the terminal (an OSC 52 clipboard write, a window title, the
// alternate screen). devx's own colours and cursor moves are added after the text is escaped.

// C0 controls but newline and tab, DEL, and C1 controls (U+0080-U+009F, the 8-bit CSI U+009B among them); then
// the characters that reorder or hide text without a control sequence: bidirectional embeddings, overrides,
// isolates and marks (a "Trojan Source" line reads otherwise than it runs), and zero-width spaces, joiners kept
// out (emoji and scripts need them), word joiners, invisible operators and the byte-order mark.
// eslint-disable-next-line no-control-regex
const CONTROL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** How a code point with no control picture is written (U+009B as `\u{9b}`), as makeVisible writes it too. */
export function codePointEscape(code: number): string {
  return `\\u{${code.toString(16)}}`;
}

function showControl(c: string): string {
  if (c === '\r\n') return '\n';
  const code = c.charCodeAt(0);
  // ESC as ␛, BEL as ␇, CR as ␍: Unicode's control pictures, one column wide like the text around them.
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? '␡' : codePointEscape(code);
}

/**
 * The text with every terminal control shown: C0 controls but newline and tab as control pictures (`␛`,
 * `␇`, a lone CR as `␍`), DEL as `␡`, C1 controls and the characters that reorder or hide text as `\u{9b}`,
 * `\u{202e}`; CRLF becomes LF. Every escape sequence
 * (CSI, OSC, DCS, the alternate screen) starts with ESC or a C1 control, so none survives, and text escaped
 * chunk by chunk reads as the whole escaped at once (a CR at a chunk's end is dropped rather than shown).
 */
export function escapeControls(text: string): string {
  // A CR that ends the text may be the first half of a CRLF cut between two chunks: dropped, never obeyed.
  return text.replace(CONTROL, (c, at: number) => (c === '\r' && at === text.length - 1 ? '' : showControl(c)));
}

// eslint-disable-next-line no-control-regex
const JSON_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * JSON text with the controls JSON.stringify leaves raw (DEL, C1, and those that reorder or hide text) written
 * as `\u` escapes, so printed JSON carries no control either; it parses to the same value. Newlines and tabs between values stay.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(JSON_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify, with escapeJsonControls: for JSON printed on stdout. */
export function printableJson(value: unknown, indent?: number): string {
  return escapeJsonControls(JSON.stringify(value, null, indent));
}

/** Runs of blanks this long are folded: longer than any indentation, far shorter than a screen's width. */
const BLANKS = /[ \t]{16,}/g;

/**
 * Each long run of blanks folded into its length (`⟪6000 blanks⟫`), for text a person approves: a command padded
 * with spaces would push its start off the screen, a diff line of spaces wrap into lines of its own making.
 */
export function foldBlanks(text: string): string {
  return text.replace(BLANKS, (run) => `⟪${run.length} blanks⟫`);
}

/**
 * Shows hidden characters (control, NUL, CR, non-ASCII such as NBSP or lookalikes) as escapes: for what a
 * person approves (a command, a call's summary), stricter than escapeControls, which all printed text of a
 * repository or a model goes through and which leaves newlines, tabs and other scripts as they are.
 */
export function makeVisible(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code > 0x7e) out += codePointEscape(code);
    else out += ch;
  }
  return out;
}

/** Eight or more of one escaped character in a row (`\u{3164}` padding): folded like blanks. */
const REPEATED_ESCAPES = /(\\u\{[0-9a-f]+\}|\\n|\\t)\1{7,}/g;

/**
 * A request a person approves, on one line: every hidden or non-ASCII character shown (makeVisible), long runs of
 * blanks and of one escaped character folded into their count, so padding cannot push the end of a command out of
 * view. The folds' ⟪ ⟫ cannot come from the request itself: makeVisible wrote its non-ASCII as escapes.
 */
export function shownForApproval(summary: string): string {
  return foldBlanks(makeVisible(summary)).replace(REPEATED_ESCAPES, (run, one: string) => `⟪${run.length / one.length} × ${one}⟫`);
}
