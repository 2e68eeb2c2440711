// A text file as devx's file tools read and rewrite it, keeping what the model never sees: its encoding
// (UTF-8, or a single-byte one such as Latin-1 or Windows-1252, kept byte for byte), a UTF-8 BOM, CRLF line
// endings and its final newline or the lack of one. UTF-16 is refused rather than rewritten: devx would
// have to guess how to write it, and getting it wrong garbles every character of the file.
import { isUtf8 } from 'node:buffer';
import { ToolError } from './types.js';
import { readFileNoFollow } from '../sandbox/openNoFollow.js';

/** How a file's bytes decode: 'single-byte' is any file that is not valid UTF-8 and has no NUL bytes. */
export type TextEncoding = 'utf8' | 'single-byte';

export type FileBytes = { kind: 'text'; encoding: TextEncoding; text: string } | { kind: 'utf16'; order: string } | { kind: 'binary' };

// Windows-1252's bytes 0x80-0x9F; the five it leaves undefined stand for themselves, so every byte has one character and back.
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];
const CP1252_BYTE = new Map(CP1252_HIGH.map((c, i) => [c, 0x80 + i]));

export function looksBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

const textByte = (b: number) => b === 9 || b === 10 || b === 13 || (b >= 0x20 && b < 0x7f);

/** UTF-16 by its BOM, or, without one, by most characters being ASCII with a NUL beside it (what English text in UTF-16 looks like). */
function utf16Order(buf: Buffer): string | null {
  if (buf[0] === 0xff && buf[1] === 0xfe) return 'little-endian, with a BOM';
  if (buf[0] === 0xfe && buf[1] === 0xff) return 'big-endian, with a BOM';
  const pairs = Math.min(buf.length, 8192) >> 1;
  let little = 0;
  let big = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (buf[i + 1] === 0 && textByte(buf[i])) little++;
    if (buf[i] === 0 && textByte(buf[i + 1])) big++;
  }
  if (pairs >= 2 && little * 2 > pairs && big * 8 < little) return 'little-endian';
  if (pairs >= 2 && big * 2 > pairs && little * 8 < big) return 'big-endian';
  return null;
}

function decodeSingleByte(buf: Buffer): string {
  let s = '';
  for (let i = 0; i < buf.length; i += 8192) {
    const part = buf.subarray(i, i + 8192);
    s += String.fromCharCode(...Array.from(part, (b) => (b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80] : b)));
  }
  return s;
}

/** What a file's bytes hold, as the file tools see it. */
export function decodeFile(buf: Buffer): FileBytes {
  const order = utf16Order(buf);
  if (order) return { kind: 'utf16', order };
  if (looksBinary(buf)) return { kind: 'binary' };
  if (isUtf8(buf)) return { kind: 'text', encoding: 'utf8', text: buf.toString('utf8') };
  return { kind: 'text', encoding: 'single-byte', text: decodeSingleByte(buf) };
}

/** Why devx will not read or rewrite a UTF-16 file, for the model to pass on. */
export function utf16Refusal(shown: string, order: string, done = 'did not change it'): string {
  return `${shown} is UTF-16 text (${order}); devx reads and edits only UTF-8 and single-byte (Latin-1, Windows-1252) text, so it ${done}. Tell the user: they can convert it (iconv -f UTF-16 -t UTF-8) or make the change themselves.`;
}

/** The file's text to edit, or a ToolError when it is UTF-16 or binary. */
export function editableText(buf: Buffer, shown: string): { encoding: TextEncoding; text: string } {
  const f = decodeFile(buf);
  if (f.kind === 'utf16') throw new ToolError(utf16Refusal(shown, f.order));
  if (f.kind === 'binary') throw new ToolError(`${shown} looks like a binary file (it contains NUL bytes); it cannot be edited as text.`);
  return f;
}

/** `text` in the file's encoding; a character a single-byte file cannot hold is a ToolError, never a '?'. */
export function encodeText(text: string, encoding: TextEncoding, shown: string): Buffer {
  if (encoding === 'utf8') return Buffer.from(text, 'utf8');
  const out = Buffer.alloc(text.length);
  const missing = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const b = c < 0x80 || (c >= 0xa0 && c <= 0xff) ? c : CP1252_BYTE.get(c);
    if (b !== undefined) out[i] = b;
    else {
      const whole = String.fromCodePoint(text.codePointAt(i)!);
      missing.add(whole);
      i += whole.length - 1;
    }
  }
  if (missing.size)
    throw new ToolError(
      `${shown} is not UTF-8: it is single-byte text (Latin-1 or Windows-1252), which devx keeps, and it cannot hold ${[...missing]
        .slice(0, 5)
        .map((c) => JSON.stringify(c))
        .join(', ')}. Use characters it can hold (or an ASCII spelling); nothing was changed.`,
    );
  return out;
}

/** The result header's note for a file that is not UTF-8 (the model then knows why its text shows as it does). */
export function encodingMeta(encoding: TextEncoding): { encoding?: string } {
  return encoding === 'utf8' ? {} : { encoding: 'single-byte (Latin-1/Windows-1252), kept' };
}

/** True when every line of `text` ends in CRLF (and there is at least one). */
function endsLinesWithCrlf(text: string): boolean {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
}

/**
 * `after` in the form of `before`, the file it replaces: CRLF line endings when every line of `before` had
 * one, its BOM, and its final newline or the lack of one. The model's text always comes with LF endings
 * (the protocol normalises them) and a fenced value always ends in a newline.
 */
export function inFormOf(before: string, after: string): string {
  if (before === '' || after === '') return after;
  const crlf = endsLinesWithCrlf(before);
  let out = crlf ? after.replace(/\r?\n/g, '\r\n') : after;
  if (before.startsWith('\uFEFF') && !out.startsWith('\uFEFF')) out = `\uFEFF${out}`;
  const eol = crlf ? '\r\n' : '\n';
  const hadFinal = before.endsWith('\n');
  if (hadFinal && !out.endsWith('\n')) out += eol;
  else if (!hadFinal && out.endsWith('\n')) out = out.slice(0, out.endsWith('\r\n') ? -2 : -1);
  return out;
}

/** Lines to append in a file's form: CRLF endings in a CRLF file. */
export function linesInFormOf(before: string | null, lines: string): string {
  return before !== null && endsLinesWithCrlf(before) ? lines.replace(/\r?\n/g, '\r\n') : lines;
}

/**
 * A file write_file or append_file is about to replace or extend: its text and encoding, null when there is
 * no regular file there (the tool then creates one, or refuses a FIFO), or a ToolError for UTF-16. A binary
 * file is read as UTF-8, as before: a write replaces it whole, with nothing of it to keep.
 */
export async function readForRewrite(abs: string, shown: string): Promise<RewrittenFile | null> {
  const buf = await readFileNoFollow(abs, shown).catch(() => null);
  return buf ? rewritableText(buf, shown) : null;
}

export interface RewrittenFile {
  encoding: TextEncoding;
  text: string;
  binary?: true;
}

/** A file's bytes as write_file and append_file see them (see readForRewrite). */
export function rewritableText(buf: Buffer, shown: string): RewrittenFile {
  const f = decodeFile(buf);
  if (f.kind === 'utf16') throw new ToolError(utf16Refusal(shown, f.order));
  return f.kind === 'text' ? f : { encoding: 'utf8', text: buf.toString('utf8'), binary: true };
}

/** write_file's content as it lands over `before`: in its form and its encoding (a new or binary file: as given, UTF-8). */
export function replacementFor(before: RewrittenFile | null, content: string, shown: string) {
  const text = before && !before.binary ? inFormOf(before.text, content) : content;
  const encoding = before?.encoding ?? 'utf8';
  return { text, encoding, bytes: encodeText(text, encoding, shown) };
}
