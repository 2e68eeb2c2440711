// The model's prose as ACP message chunks: whole lines stream as they complete, up to the first
// TOOL_CALL line (calls are shown as tool calls, never as prose); the rest of the prose follows
// when the reply is complete.

export interface ProseStream {
  /** A new model reply begins. */
  reset(): void;
  /** Streamed text of the reply (a `text_delta`). */
  add(text: string): void;
  /** The reply's parsed prose: sends what was not streamed already. */
  finish(prose: string, final: boolean): void;
}

/** The prose lines not already sent (compared line by line, trailing blanks aside). */
export function unsentProse(prose: string, sent: string): string {
  if (!sent) return prose;
  const norm = (t: string) => t.split('\n').map((l) => l.trimEnd());
  const seen = norm(sent.replace(/\n$/, ''));
  const lines = norm(prose);
  while (seen.length && seen[0] === '') seen.shift();
  // A blank line streamed before the calls (the usual shape) is not prose the parser keeps.
  while (seen.length && seen[seen.length - 1] === '') seen.pop();
  const prefix = seen.every((l, i) => lines[i] === l);
  return prefix ? lines.slice(seen.length).join('\n').replace(/^\n+/, '') : prose;
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
    add(text) {
      buffer += text;
      let nl: number;
      while (!stopped && (nl = buffer.indexOf('\n', sent.length)) !== -1) {
        const line = buffer.slice(sent.length, nl);
        if (/TOOL_CALL/i.test(line)) {
          stopped = true;
          break;
        }
        emit(`${line}\n`);
      }
    },
    finish(prose, final) {
      const rest = unsentProse(prose, sent);
      if (rest) emit(final ? rest : `${rest}\n`);
    },
  };
}
