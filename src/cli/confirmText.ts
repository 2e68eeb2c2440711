// What a confirmation shows of the call a person approves: all of it, readable, and nothing in it that can pass
// for devx's own lines. A command padded with thousands of spaces pushed its real start off the screen, leaving
// a harmless tail by the question; a diff line of spaces wrapped into a fake header and diff of another file. So
// long runs of blanks are folded into a count, preview lines are wrapped here to the terminal's width with each
// continuation row marked, and a request longer than a few rows repeats its start next to the question.
import stringWidth from 'string-width';
import type { ApprovalRequest } from '../tools/runToolCall.js';
import { escapeControls, foldBlanks, shownForApproval } from '../util/terminalText.js';
import { colorDiff } from './visible.js';
import { DIFF_CUT_MARK, wholeUnifiedDiff } from '../tools/diffPreview.js';

/** The mark of a preview row that continues the line above it (a preview line never starts with it: see wrap). */
const CONTINUES = '↪ ';
/** A request this many rows long or more is repeated in short by the question. */
const LONG_ROWS = 6;

/** One preview line as rows of at most `width` columns, each row after the first marked as continuing it. */
function wrap(line: string, width: number): string[] {
  if (stringWidth(line) <= width) return [line];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const ch of line) {
    const w = stringWidth(ch);
    const room = rows.length ? width - CONTINUES.length : width;
    if (used + w > room) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += ch;
    used += w;
  }
  rows.push(row);
  return rows.map((r, i) => (i ? `${CONTINUES}${r}` : r));
}

/** The preview (a diff, or a call's arguments) as shown: controls visible, blanks folded, wrapped, coloured. */
export function shownPreview(preview: string, o: { width: number; color: boolean }): string {
  const lines = foldBlanks(escapeControls(preview)).split('\n');
  const rows = lines.flatMap((l) => {
    const [first, ...rest] = wrap(l, o.width);
    // A line of the repository's own that starts with the continuation mark is shown escaped, so only devx's rows carry it.
    return [first.startsWith(CONTINUES) ? `\\${first}` : first, ...rest];
  });
  const text = rows.join('\n');
  return (o.color ? colorDiff(text) : text).replace(/^/gm, '  ');
}

type Asked = Pick<ApprovalRequest, 'summary' | 'preview' | 'decision' | 'by' | 'plan'>;

/** The whole question: what the call is, what it would do, why devx asks, and the answers. */
export function confirmationText(req: Asked, o: { columns?: number; color: boolean }): string {
  const width = Math.max(40, (o.columns ?? 80) - 4);
  const summary = shownForApproval(req.summary);
  const preview = req.preview ? `${shownPreview(req.preview, { width, color: o.color })}\n` : '';
  const long = stringWidth(summary) > width * LONG_ROWS ? `  (${summary.length} characters; it starts: ${summary.slice(0, width - 30)}…)\n` : '';
  const who = req.by ? `the agent ${shownForApproval(req.by)} (a sub-agent)` : 'devx';
  return `\n? ${who} wants to ${summary}\n${preview}${long}  (asks because ${escapeControls(req.decision.reason)})\n${answersLine(req)}`;
}

/** The answers a question takes: with a cut diff, one that shows all of it first. */
export function answersLine(req: Pick<Asked, 'preview' | 'plan'>): string {
  return `  Allow? [y]es / [n]o / [a]lways this session${wholeDiffOf(req) === null ? '' : ' / [v]iew the whole diff'}: `;
}

/** The whole diff of a change whose preview was cut, as a confirmation shows a preview; null when nothing was cut. */
export function wholeDiffOf(req: Pick<Asked, 'preview' | 'plan'>, o: { columns?: number; color: boolean } = { color: false }): string | null {
  if (!req.plan || !req.preview?.includes(DIFF_CUT_MARK)) return null;
  const diff = wholeUnifiedDiff(req.plan.shown, req.plan.oldText ?? '', req.plan.newText);
  return `${shownPreview(diff, { width: Math.max(40, (o.columns ?? 80) - 4), color: o.color })}\n`;
}
