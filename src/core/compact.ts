// Compaction: the older turns of a long conversation become one summary note the model writes, and the
// newest turns stay verbatim. This file decides what is compacted and builds the summary request and
// note; the runtime (AgentRun.compact) makes the one model call, keeps the full transcript on disk and
// replaces the messages. No I/O here.
import type { Message } from './messages.js';
import { renderedChars } from './buildPrompt.js';
import { readPrompt } from '../util/packageRoot.js';

/** The share of the conversation room the newest turns may keep verbatim after a compaction. */
export const KEEP_FRACTION = 0.3;
/** A tool result is shown to the summariser at most this long (its start and end). */
const TOOL_RESULT_CAP = 3000;
/** Any other message is shown to the summariser at most this long. */
const MESSAGE_CAP = 12_000;

export type CompactReason = 'auto' | 'asked';

export type CompactionEvent =
  | { type: 'compaction'; phase: 'start'; reason: CompactReason; messages: number }
  | { type: 'compaction'; phase: 'done'; reason: CompactReason; messages: number; beforeChars: number; afterChars: number; transcript: string }
  | { type: 'compaction'; phase: 'failed'; reason: CompactReason; messages: number; error: string };

export interface CompactionPlan {
  /** messages[0..cut) are summarised; messages[cut..] stay verbatim. */
  cut: number;
  /** The original messages the summary will stand for (an earlier summary counts as those it stood for). */
  represents: number;
}

/** The messages a summary stands for: itself counted as what it replaced. */
export function countRepresented(messages: readonly Message[]): number {
  return messages.reduce((n, m) => n + (m.summaryOf ?? 1), 0);
}

/** True when the conversation (with the next input) takes more than `threshold` of the room. */
export function needsCompaction(historyChars: number, room: number, threshold: number): boolean {
  return threshold < 1 && historyChars > room * threshold;
}

/**
 * Where to cut: at the start of a turn (a user message), so the kept part starts with a request and never
 * with a tool result. The newest turns that fit in `keepChars` stay verbatim, and always the last turn.
 * Null when there is nothing to compact (one turn, or only an earlier summary before the cut).
 */
export function planCompaction(messages: readonly Message[], keepChars: number): CompactionPlan | null {
  const starts: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'user') starts.push(i);
  if (!starts.length) return null;
  let cut = starts[starts.length - 1];
  let kept = renderedChars(messages.slice(cut));
  // Walk back over turn starts while the part from there on still fits.
  for (let k = starts.length - 2; k >= 0; k--) {
    kept += renderedChars(messages.slice(starts[k], starts[k + 1]));
    if (kept > keepChars) break;
    cut = starts[k];
  }
  const older = messages.slice(0, cut);
  if (older.length === 0 || (older.length === 1 && older[0].summaryOf)) return null;
  return { cut, represents: countRepresented(older) };
}

function capMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - head - tail} characters cut for the summary ...]\n${text.slice(text.length - tail)}`;
}

const LABELS: Record<Message['role'], string> = { user: 'User', assistant: 'Assistant', tool: 'Tool results', devx: 'Note from devx' };

/**
 * The messages as the summariser sees them, under `maxChars`: long tool results and messages are cut in
 * the middle, and when that is still too much the oldest are left out (an earlier summary always stays).
 */
export function renderForSummary(messages: readonly Message[], maxChars: number): string {
  const blocks = messages.map(
    (m) =>
      `### ${m.summaryOf ? `Summary of ${m.summaryOf} earlier messages` : LABELS[m.role]}\n${capMiddle(m.content, m.role === 'tool' ? TOOL_RESULT_CAP : m.summaryOf ? maxChars / 3 : MESSAGE_CAP)}\n\n`,
  );
  const pinned = messages[0]?.summaryOf ? 1 : 0;
  let size = blocks.reduce((n, b) => n + b.length, 0);
  let first = pinned;
  while (size > maxChars && first < blocks.length - 1) size -= blocks[first++].length;
  const left = first - pinned;
  return (
    (pinned ? blocks[0] : '') + (left ? `[${left} messages left out here to fit; the summary need not cover them]\n\n` : '') + blocks.slice(first).join('')
  );
}

/** The request for the summary call: prompts/compact.md with the conversation, within `budgetChars`. */
export function summaryRequest(older: readonly Message[], budgetChars: number): { prompt: string; systemPrompt: string } {
  const template = readPrompt('compact.md');
  const room = Math.max(2000, Math.floor(budgetChars * 0.9) - template.length);
  return {
    systemPrompt: readPrompt('compact-system.md').trim(),
    prompt: template.replace('{{COUNT}}', String(countRepresented(older))).replace('{{CONVERSATION}}', () => renderForSummary(older, room).trimEnd()),
  };
}

/** The model's reply as the summary to keep (cut to `maxChars`), or why it cannot be one. */
export function checkSummary(reply: string, maxChars: number): { ok: true; summary: string } | { ok: false; error: string } {
  const summary = reply.trim();
  if (!summary) return { ok: false, error: 'the model replied with an empty summary' };
  return { ok: true, summary: summary.length > maxChars ? `${summary.slice(0, maxChars)}\n[summary cut at ${maxChars} characters]` : summary };
}

/** The note that takes the place of the compacted messages. */
export function summaryMessage(summary: string, represents: number, transcript: string, at: string): Message {
  return {
    role: 'devx',
    summaryOf: represents,
    at,
    content: `Summary of the ${represents} earlier messages of this conversation, written by the model when devx compacted them (the full transcript is in ${transcript}; read it with read_file if a detail is missing):\n\n${summary}`,
  };
}
