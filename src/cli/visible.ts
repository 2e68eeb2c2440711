import stringWidth from 'string-width';
import { escapeControls } from '../util/terminalText.js';
export { makeVisible } from '../util/terminalText.js';

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
