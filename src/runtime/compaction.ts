// Long sessions stay whole: when the conversation nears the context budget (or the user asks with
// /compact), the older turns are summarised by one model call and replaced in the live history by the
// summary; the newest turns stay verbatim and the replaced messages are appended to the project's
// transcript first. A failed call changes nothing (the prompt builder elides instead). A message too
// big for the budget is refused before anything is sent.
import path from 'node:path';
import type { AgentEvent } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import type { ModelBackend } from '../providers/types.js';
import { BackendError } from '../providers/types.js';
import { conversationRoom, renderedChars, renderMessage } from '../core/buildPrompt.js';
import { KEEP_FRACTION, checkSummary, needsCompaction, planCompaction, summaryMessage, summaryRequest, type CompactReason } from '../core/compact.js';
import { readProjectNote } from '../session/projectFiles.js';
import { readOwnHandoff } from '../session/handoff.js';
import { appendCompacted, conversationTranscript } from '../session/transcripts.js';

export type CompactResult =
  | { status: 'compacted'; messages: number; beforeChars: number; afterChars: number; transcript: string }
  | { status: 'failed'; error: string }
  | { status: 'nothing'; message: string };

export interface CompactContext {
  root: string;
  /** The live conversation: replaced in place. */
  history: Message[];
  budgetChars: number;
  backend: ModelBackend;
  model?: string;
  emit(e: AgentEvent): void;
  /** Persists the history after a change (project history). */
  save(): void;
  now(): Date;
  signal?: AbortSignal;
}

/** The characters the conversation may take in a prompt, with the project's memory and handoff. */
export function roomFor(root: string, budgetChars: number): number {
  return conversationRoom({ memory: readProjectNote(root, 'MEMORY.md'), handoff: readOwnHandoff(root), budgetChars });
}

/** Why a user message cannot be sent (it alone is over the room the budget leaves), or null. */
export function oversizedInput(input: string, root: string, budgetChars: number): string | null {
  const room = roomFor(root, budgetChars);
  const size = renderMessage({ role: 'user', content: input, at: '' }).length;
  if (size <= room) return null;
  return `Not sent: your message is ${size.toLocaleString('en-US')} characters, and the context budget (contextBudgetChars ${budgetChars.toLocaleString('en-US')}) leaves room for ${room.toLocaleString('en-US')}. Shorten it, or save it to a file and ask for the file to be read (long files are read in parts).`;
}

/** Whether the conversation plus the next input is past the threshold, with enough before the newest turns to be worth a call. */
export function compactionDue(history: readonly Message[], input: string, root: string, budgetChars: number, threshold: number): boolean {
  const room = roomFor(root, budgetChars);
  const size = renderedChars(history) + renderMessage({ role: 'user', content: input, at: '' }).length;
  if (!needsCompaction(size, room, threshold)) return false;
  const plan = planCompaction(history, room * KEEP_FRACTION);
  return plan !== null && renderedChars(history.slice(0, plan.cut)) > room * 0.1;
}

/**
 * Summarises the older turns with one model call and replaces them by the summary. `asked` (/compact)
 * keeps less verbatim: the newest turns within 30% of the conversation, at least the last one.
 */
export async function compactHistory(ctx: CompactContext, reason: CompactReason): Promise<CompactResult> {
  const { history } = ctx;
  const room = roomFor(ctx.root, ctx.budgetChars);
  const beforeChars = renderedChars(history);
  const keep = reason === 'asked' ? Math.min(room, beforeChars) * KEEP_FRACTION : room * KEEP_FRACTION;
  const plan = planCompaction(history, keep);
  if (!plan)
    return {
      status: 'nothing',
      message: `nothing to compact: the conversation is ${history.length} message${history.length === 1 ? '' : 's'} (${beforeChars.toLocaleString('en-US')} characters) and its last turn stays as it is`,
    };
  const older = history.slice(0, plan.cut);
  const olderChars = renderedChars(older);
  ctx.emit({ type: 'compaction', phase: 'start', reason, messages: plan.represents });
  const fail = (error: string): CompactResult => {
    ctx.emit({ type: 'compaction', phase: 'failed', reason, messages: plan.represents, error });
    return { status: 'failed', error };
  };
  let reply: string;
  try {
    const req = summaryRequest(older, ctx.budgetChars);
    const r = await ctx.backend.complete({ ...req, signal: ctx.signal, model: ctx.model }, (event) => ctx.emit({ type: 'backend', event }));
    reply = r.text;
  } catch (err) {
    if (ctx.signal?.aborted || (err instanceof BackendError && err.kind === 'cancelled')) return fail('cancelled');
    return fail(`the summary call failed (${err instanceof BackendError ? err.kind : 'internal'}): ${(err as Error).message}`);
  }
  const checked = checkSummary(reply, Math.floor(room * 0.2));
  if (!checked.ok) return fail(checked.error);
  const at = ctx.now().toISOString();
  const transcript = path.relative(ctx.root, conversationTranscript(ctx.root));
  const note = summaryMessage(checked.summary, plan.represents, transcript, at);
  const noteChars = renderMessage(note).length;
  if (noteChars >= olderChars) return fail(`the summary (${noteChars} characters) would not be shorter than the ${olderChars} characters it replaces`);
  // The messages go to the transcript before they leave the history: if that write fails, nothing changes.
  try {
    appendCompacted(ctx.root, older, at);
  } catch (err) {
    return fail(`the transcript could not be written (${(err as Error).message})`);
  }
  // The same array: the history writer and the session keep appending to it.
  history.splice(0, plan.cut, note);
  ctx.save();
  const afterChars = renderedChars(history);
  ctx.emit({ type: 'compaction', phase: 'done', reason, messages: plan.represents, beforeChars, afterChars, transcript });
  return { status: 'compacted', messages: plan.represents, beforeChars, afterChars, transcript };
}
