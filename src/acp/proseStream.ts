// The model's prose as ACP message chunks: text streams as it arrives, up to the first TOOL_CALL line
// (a line that may still become one waits until it cannot) (calls are shown as tool calls, never as prose); the rest of the prose follows
// when the reply is complete.

export interface ProseStream {
  /** A new prompt begins. */
  newTurn(): void;
  /** A new model reply begins. */
  reset(): void;
  /** Streamed text of the reply (a `text_delta`). */
  add(text: string): void;
  /** The reply's parsed prose: sends what was not streamed already. */
  finish(prose: string, final: boolean): void;
}

/** The prose not already sent (compared line by line, trailing blanks aside; a line sent in part is continued). */
export function unsentProse(prose: string, sent: string): string {
  if (!sent) return prose;
  const partial = !sent.endsWith('\n');
  const norm = (t: string) => t.split('\n').map((l) => l.trimEnd());
  const seen = partial ? sent.split('\n').map((l, i, all) => (i === all.length - 1 ? l : l.trimEnd())) : norm(sent.replace(/\n$/, ''));
  const lines = norm(prose);
  while (seen.length && seen[0] === '') seen.shift();
  // A blank line streamed before the calls (the usual shape) is not prose the parser keeps.
  while (!partial && seen.length && seen[seen.length - 1] === '') seen.pop();
  const last = seen.length - 1;
  const prefix = seen.every((l, i) => (partial && i === last ? continues(lines[i] ?? '', l) : lines[i] === l));
  if (!prefix) return prose;
  // The rest of a line shown in part continues it (no new line first); a line shown whole but for the
  // spaces the parser trims from its end has no rest.
  if (partial && last >= 0) return [lines[last].slice(seen[last].length), ...lines.slice(last + 1)].join('\n');
  return lines.slice(seen.length).join('\n').replace(/^\n+/, '');
}

/** Is `shown` (a line shown in part) the start of `line`, or all of it but spaces the parser trimmed from its end? */
function continues(line: string, shown: string): boolean {
  return line.startsWith(shown) || (line.length < shown.length && line === shown.trimEnd());
}

const CALL = 'tool_call';

/**
 * What of `buffer` (beyond the `from` characters already shown) can be shown now: whole lines, and the
 * part of the line still arriving that cannot turn into a TOOL_CALL line (a tail that may be the start
 * of "TOOL_CALL", or a line holding only markup so far, waits). `stop`: a line holding TOOL_CALL came.
 */
export function streamable(buffer: string, from: number): { text: string; stop: boolean } {
  let text = '';
  let i = from;
  while (i < buffer.length) {
    const lineStart = buffer.lastIndexOf('\n', i - 1) + 1;
    const nl = buffer.indexOf('\n', i);
    const line = buffer.slice(lineStart, nl === -1 ? buffer.length : nl);
    if (/TOOL_CALL/i.test(line)) return { text, stop: true };
    if (nl !== -1) {
      text += buffer.slice(i, nl + 1);
      i = nl + 1;
      continue;
    }
    if (/^[\s>*_`#-]*$/.test(line)) return { text, stop: false };
    let hold = 0;
    for (let k = Math.min(CALL.length, line.length); k > 0; k--) {
      if (CALL.startsWith(line.slice(-k).toLowerCase())) {
        hold = k;
        break;
      }
    }
    const upto = buffer.length - hold;
    if (upto > i) text += buffer.slice(i, upto);
    return { text, stop: false };
  }
  return { text, stop: false };
}

export function createProseStream(send: (text: string) => void): ProseStream {
  let buffer = '';
  let sent = '';
  let stopped = false;
  // Text sent in earlier replies of the turn: the next prose starts on a new paragraph.
  let anySent = false;
  const emit = (t: string) => {
    if (!t) return;
    send(anySent && !sent ? `\n${t}` : t);
    sent += t;
    anySent = true;
  };
  return {
    reset() {
      buffer = '';
      sent = '';
      stopped = false;
    },
    newTurn() {
      // A new prompt's first text starts at once (no paragraph break carried over from the last turn).
      anySent = false;
    },
    add(text) {
      buffer += text;
      if (stopped) return;
      const next = streamable(buffer, sent.length);
      stopped = next.stop;
      emit(next.text);
    },
    finish(prose, final) {
      const rest = unsentProse(prose, sent);
      if (rest) emit(final ? rest : `${rest}\n`);
    },
  };
}
