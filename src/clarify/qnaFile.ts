// questions-and-answers.md: the feedback blocks between <!-- USER_FEEDBACK_START --> and
// <!-- USER_FEEDBACK_END -->, each under its question. devx parses them itself (the model is given
// the result) and refuses a file whose markers are unbalanced or damaged, naming the line. An answer
// may mention the marker words (USER_FEEDBACK_START in prose); only a whole marker comment inside an
// answer is refused, with an error that says the answer is the cause.
import { TaskFileError } from './taskFiles.js';

export const FEEDBACK_START = '<!-- USER_FEEDBACK_START -->';
export const FEEDBACK_END = '<!-- USER_FEEDBACK_END -->';
export const FEEDBACK_PLACEHOLDER = 'USER FEEDBACK REQUIRED';

const MARKER = /<!--\s*USER_FEEDBACK_(START|END)\s*-->/g;
const MARKER_WORD = /USER_FEEDBACK_\w*/g;
const COMMENT = /<!--[\s\S]*?-->/g;

/** Marker words that look meant as markers: all of them outside an answer, those inside an HTML comment within one. */
function markerWords(raw: string, inAnswer: boolean): number {
  if (!inAnswer) return (raw.match(MARKER_WORD) ?? []).length;
  return [...raw.matchAll(COMMENT)].reduce((n, m) => n + (m[0].match(MARKER_WORD) ?? []).length, 0);
}

const quoted = (q: string) => (q ? `"${q.slice(0, 60)}"` : '(no heading)');

export interface FeedbackBlock {
  /** The line just above the block that asks the question (its heading), as written. */
  question: string;
  /** The block's text without the placeholder; empty when the user has not answered. */
  feedback: string;
  /** 1-based line of the start marker. */
  line: number;
}

/** Every feedback block of the file, or a TaskFileError naming the file and the line at fault. */
export function parseFeedbackBlocks(text: string, fileLabel: string): FeedbackBlock[] {
  const lines = text.split(/\r?\n/);
  const blocks: FeedbackBlock[] = [];
  let open: { line: number; question: string; body: string[] } | null = null;
  let lastQuestion = '';
  lines.forEach((raw, i) => {
    const n = i + 1;
    const markers = [...raw.matchAll(MARKER)];
    if (markerWords(raw, open !== null) !== markers.length) {
      const where = open ? ` (inside the answer to ${quoted(open.question)}, whose block opens on line ${open.line})` : '';
      throw new TaskFileError(`${fileLabel} line ${n}: a damaged feedback marker${where}; write it exactly as ${FEEDBACK_START} or ${FEEDBACK_END}`);
    }
    if (!markers.length) {
      if (open) open.body.push(raw);
      else if (raw.trim()) lastQuestion = raw.trim();
      return;
    }
    let rest = raw;
    for (const m of markers) {
      const before = rest.slice(0, rest.indexOf(m[0]));
      rest = rest.slice(rest.indexOf(m[0]) + m[0].length);
      if (m[1] === 'START') {
        if (open) {
          throw new TaskFileError(
            `${fileLabel} line ${n}: a second USER_FEEDBACK_START before the block opened on line ${open.line} (the answer to ${quoted(open.question)}) was closed with ${FEEDBACK_END}; close that block, or, if its answer holds the marker comment itself, take it out (an answer may mention USER_FEEDBACK_START in words, not hold a marker comment)`,
          );
        }
        if (before.trim()) lastQuestion = before.trim();
        open = { line: n, question: lastQuestion, body: [] };
      } else {
        if (!open) {
          const prev = blocks.at(-1);
          const cause = prev
            ? `; if the answer to ${quoted(prev.question)} (its block opens on line ${prev.line}) holds the marker ${FEEDBACK_END} itself, it ended that answer early: an answer may mention USER_FEEDBACK_END in words, but not hold a marker comment`
            : '';
          throw new TaskFileError(`${fileLabel} line ${n}: USER_FEEDBACK_END without a ${FEEDBACK_START} before it${cause}`);
        }
        open.body.push(before);
        blocks.push({ line: open.line, question: open.question, feedback: feedbackText(open.body.join('\n')) });
        open = null;
      }
    }
    if (open && rest.trim()) (open as { body: string[] }).body.push(rest);
  });
  if (open) throw new TaskFileError(`${fileLabel} line ${(open as { line: number }).line}: ${FEEDBACK_START} is never closed with ${FEEDBACK_END}`);
  return blocks;
}

/** The user's words in a block: the placeholder line removed, blank edges trimmed. */
function feedbackText(body: string): string {
  return body
    .split('\n')
    .filter((l) => l.trim() !== FEEDBACK_PLACEHOLDER)
    .join('\n')
    .trim();
}

export const answered = (blocks: FeedbackBlock[]) => blocks.filter((b) => b.feedback !== '');

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Answers of `before` that `after` no longer holds word for word (whitespace aside). */
export function droppedAnswers(before: FeedbackBlock[], after: FeedbackBlock[]): FeedbackBlock[] {
  const kept = new Set(after.map((b) => squash(b.feedback)));
  return answered(before).filter((b) => !kept.has(squash(b.feedback)));
}
