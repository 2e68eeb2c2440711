import stringWidth from 'string-width';
import { codePointEscape, escapeControls } from '../util/terminalText.js';

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

/** A writer of text only (what slash commands print): each string written has its controls shown, not obeyed. */
export function textOnly(out: NodeJS.WritableStream): NodeJS.WritableStream {
  return { write: (chunk: string | Uint8Array) => out.write(escapeControls(String(chunk))) } as unknown as NodeJS.WritableStream;
}

/** Colour for a terminal that wants it (not with NO_COLOR, not into a pipe). */
export function useColor(out: NodeJS.WritableStream, env: NodeJS.ProcessEnv): boolean {
  return Boolean((out as NodeJS.WriteStream).isTTY) && env.NO_COLOR === undefined;
}

/** A unified diff with removed lines red and added lines green. */
export function colorDiff(diff: string): string {
  return diff
    .split('\n')
    .map((l) =>
      l.startsWith('+') && !l.startsWith('+++')
        ? `\x1b[32m${l}\x1b[0m`
        : l.startsWith('-') && !l.startsWith('---')
          ? `\x1b[31m${l}\x1b[0m`
          : l.startsWith('@@')
            ? `\x1b[36m${l}\x1b[0m`
            : l,
    )
    .join('\n');
}

/**
 * The text cut to `width` terminal columns, ending in … when cut: wide characters (CJK, emoji) count two, as the
 * terminal draws them, so a fitted line never wraps (a wrapped line throws off a redraw that counts its rows).
 */
export function fitColumns(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = stringWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}
