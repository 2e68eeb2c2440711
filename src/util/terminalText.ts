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

// What a person approving a request cannot see, or cannot tell from ASCII: controls and format characters,
// every space but the ASCII one (NBSP), default-ignorable code points (zero-width characters, the Hangul fillers,
// variation selectors, tags), private-use, unassigned and lone surrogates, the braille blank, fullwidth and
// mathematical letters that copy ASCII; and right-to-left letters, which reorder the text around them where the
// display applies the bidirectional algorithm (an editor's permission dialog).
const HIDDEN =
  /[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Co}\p{Cn}\p{Cs}\p{Cc}\p{Cf}\u2800\uff01-\uff5e\u{1d400}-\u{1d7ff}\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}\p{Script=Hanifi_Rohingya}\p{Script=Yezidi}]/u;
// Letters of the scripts whose letters pass for Latin ones.
const LOOKALIKE_SCRIPT = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Cherokee}\p{Script=Coptic}\p{Script=Lisu}]/u;
// The letters of those scripts that look like a Latin letter: a word made only of them reads as a Latin word.
const LOOKS_LATIN = new Set([...'аеіјорсуходһԁԛԝѕӏАВЕЅІЈКМНОРСТХУԜοαικνρτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧօհոսզЬ']);
/** A word: letters, marks and digits. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The code points of `word` that pass for something they are not: a lookalike letter in a Latin word, or a word of lookalikes. */
function lookalikesIn(word: string): Set<number> {
  const chars = [...word];
  const foreign = chars.map((c, i) => (LOOKALIKE_SCRIPT.test(c) ? i : -1)).filter((i) => i >= 0);
  if (!foreign.length) return new Set();
  const latin = chars.some((c) => /\p{Script=Latin}/u.test(c));
  const allLookalike = chars.every((c) => !/\p{L}/u.test(c) || LOOKS_LATIN.has(c));
  return latin || allLookalike ? new Set(foreign) : new Set();
}

/** The offsets (in UTF-16 units) of the lookalike letters in `s`. */
function lookalikeOffsets(s: string): Set<number> {
  const out = new Set<number>();
  for (const m of s.matchAll(WORD)) {
    const picked = lookalikesIn(m[0]);
    if (!picked.size) continue;
    let at = m.index;
    [...m[0]].forEach((c, i) => {
      if (picked.has(i)) out.add(at);
      at += c.length;
    });
  }
  return out;
}

/**
 * Shows what a person could not see or could misread as escapes: controls, NUL, CR, newline and tab, NBSP and
 * other spaces, zero-width and filler characters, fullwidth copies of ASCII, right-to-left letters, a Cyrillic or
 * Greek letter inside a Latin word (`g\u{456}thub`) or a word made only of such lookalikes, and combining marks
 * stacked more than two deep. Other scripts stay as they are (`写 文档.md`, `café`): for what a person approves (a
 * command, a call's summary), stricter than escapeControls, which all printed text of a repository or a model
 * goes through.
 */
export function makeVisible(s: string): string {
  const lookalikes = /[^\x00-\x7f]/.test(s) ? lookalikeOffsets(s) : new Set<number>();
  let out = '';
  let marks = 0;
  let at = 0;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    marks = /\p{M}/u.test(ch) ? marks + 1 : 0;
    if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code > 0x7e && (HIDDEN.test(ch) || lookalikes.has(at) || marks > 2)) out += codePointEscape(code);
    else out += ch;
    at += ch.length;
  }
  return out;
}

/** Eight or more of one escaped character in a row (`\u{3164}` padding): folded like blanks. */
const REPEATED_ESCAPES = /(\\u\{[0-9a-f]+\}|\\n|\\t)\1{7,}/g;

/**
 * A request a person approves, on one line: every hidden or misleading character shown (makeVisible), long runs
 * of blanks and of one escaped character folded into their count, so padding cannot push the end of a command out
 * of view. A ⟪ or ⟫ of the request's own is escaped, so a fold cannot be forged.
 */
export function shownForApproval(summary: string): string {
  const own = makeVisible(summary).replace(/[⟪⟫]/g, (c) => codePointEscape(c.codePointAt(0)!));
  return foldBlanks(own).replace(REPEATED_ESCAPES, (run, one: string) => `⟪${run.length / one.length} × ${one}⟫`);
}
