// Q&A. devx parses the feedback blocks itself; with nothing new to process while the
// user is awaited, it stops without a model call. Otherwise the qna model rewrites
// questions-and-answers.md and names the next status; devx checks the file (markers balanced, every
// earlier answer kept, a question left when it awaits feedback) and restores it when the check fails,
// then writes task_status.md itself.
import fs from 'node:fs';
import crypto from 'node:crypto';
import * as z from 'zod';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { readIfExists, statusFileText, TaskFileError, type TaskFolder } from './taskFiles.js';
import { answered, droppedAnswers, parseFeedbackBlocks, FEEDBACK_END, FEEDBACK_START, type FeedbackBlock } from './qnaFile.js';
import { stopMessage } from './planTask.js';
import { changelogCall, changelogLines, ensureChangelogEntry, snapshotChangelog } from './taskChangelog.js';
import { approveOwnedFiles, describeFailure, type StepDeps, type StepResult } from './stepDeps.js';

export const NO_FEEDBACK_MESSAGE = 'Checked Q&A file; no new user feedback provided yet.';

const DecidedStatus = z.enum(['AWAITING_USER_FEEDBACK', 'READY_FOR_PRD']);

const feedbackKey = (b: FeedbackBlock) => crypto.createHash('sha256').update(b.feedback.replace(/\s+/g, ' ').trim()).digest('hex');

function readProcessed(t: TaskFolder): Set<string> {
  const text = readIfExists(t.file('qnaState'), t.root);
  if (text === null) return new Set();
  const parsed = z.object({ processed: z.array(z.string()) }).safeParse(
    (() => {
      try {
        return JSON.parse(text);
      } catch {
        return null;
      }
    })(),
  );
  // A damaged record only means every answer counts as new again: the model sees it once more.
  return new Set(parsed.success ? parsed.data.processed : []);
}

/** Answers the model has not been given yet. */
export function newFeedback(t: TaskFolder, blocks: FeedbackBlock[]): FeedbackBlock[] {
  const seen = readProcessed(t);
  return answered(blocks).filter((b) => !seen.has(feedbackKey(b)));
}

/** The status the model's answer ends with (`STATUS: ...`, the last such line), or null. */
export function decidedStatus(answer: string): z.infer<typeof DecidedStatus> | null {
  const all = [...answer.matchAll(/^[ \t>*_`-]*STATUS:\s*`?([A-Z_]+)`?[ \t*_`.]*$/gm)];
  const last = all.at(-1)?.[1];
  const parsed = DecidedStatus.safeParse(last);
  return parsed.success ? parsed.data : null;
}

export async function runQna(t: TaskFolder, status: 'AWAITING_QUESTIONS' | 'AWAITING_USER_FEEDBACK', deps: StepDeps): Promise<StepResult> {
  const qnaBefore = readIfExists(t.file('qna'), t.root);
  // A hand-broken file stops here, before any model call and without touching anything.
  const blocksBefore = qnaBefore === null ? [] : parseFeedbackBlocks(qnaBefore, t.relFile('qna'));
  const fresh = newFeedback(t, blocksBefore);
  if (status === 'AWAITING_USER_FEEDBACK' && qnaBefore !== null && fresh.length === 0) {
    const open = blocksBefore.filter((b) => !b.feedback).length;
    return {
      code: 0,
      message: `${NO_FEEDBACK_MESSAGE}\nAnswer the ${open} open question(s) between the ${FEEDBACK_START} and ${FEEDBACK_END} markers in ${t.relFile('qna')}, then run devx task next ${t.rel}`,
      warnings: [],
    };
  }
  const context = readIfExists(t.file('context'), t.root);
  if (context === null) throw new TaskFileError(`${t.relFile('context')} is missing; delete ${t.relFile('status')} to run context research again`);
  const initial = qnaBefore === null;
  const entry = fresh.length ? 'Processed feedback, updated Q&A.' : initial ? 'Generated initial questions.' : 'Updated questions.';
  const at = deps.now();
  const before = changelogLines(t);
  const changelog = snapshotChangelog(t);
  const prompt = [
    `Clarify the task in ${t.rel}/.`,
    '',
    `## Task context (${t.relFile('context')})`,
    context.trim(),
    '',
    `## Current ${t.relFile('qna')}`,
    initial ? '(none yet: write the first version)' : qnaBefore.trim(),
    '',
    '## New feedback from the user (parsed from the USER_FEEDBACK blocks)',
    ...(fresh.length
      ? fresh.flatMap((b) => [`- Question: ${b.question || '(no heading)'} (line ${b.line})`, `  Feedback: ${b.feedback.replace(/\n/g, '\n  ')}`])
      : ['(none)']),
    '',
    `Write the whole updated file with write_file to ${t.relFile('qna')}. Then record this step in the changelog with exactly this call, once:`,
    changelogCall(t, at, entry),
    '',
    'End your answer with the line STATUS: AWAITING_USER_FEEDBACK or STATUS: READY_FOR_PRD.',
  ].join('\n');
  const r = await deps.run({
    prompt,
    cwd: deps.cwd,
    env: deps.env,
    persona: 'qna',
    approval: deps.approval,
    model: deps.model,
    provider: deps.provider,
    onEvent: deps.onEvent,
    approve: approveOwnedFiles(t.root, [t.file('qna'), t.file('changelog')]),
  });
  // A step that does not stand leaves no trace: the Q&A file as it was, and no changelog entry for it.
  const restore = async () => {
    if (qnaBefore === null) fs.rmSync(t.file('qna'), { force: true });
    else if (readIfExists(t.file('qna'), t.root) !== qnaBefore) await writeFileAtomic(t.file('qna'), qnaBefore);
    changelog.rollback();
  };
  const fail = async (why: string, code = 1): Promise<StepResult> => {
    await restore();
    return {
      code,
      message: `Q&A stopped: ${why}. ${t.relFile('qna')} and ${t.relFile('status')} are unchanged; run devx task next ${t.rel} again.`,
      warnings: [],
    };
  };
  if (r.error?.kind === 'binary_missing') return fail(r.error.message, 3);
  if (r.status !== 'answered') return fail(describeFailure('qna', r));
  const next = decidedStatus(r.answer ?? '');
  if (!next) return fail('the qna agent did not end its answer with STATUS: AWAITING_USER_FEEDBACK or STATUS: READY_FOR_PRD');
  const written = readIfExists(t.file('qna'), t.root);
  if (written === null || written === qnaBefore) return fail(`the qna agent did not write ${t.relFile('qna')}`);
  let blocks: FeedbackBlock[];
  try {
    blocks = parseFeedbackBlocks(written, t.relFile('qna'));
  } catch (err) {
    return fail(`the qna agent wrote a file devx cannot read: ${(err as Error).message}`);
  }
  const dropped = droppedAnswers(blocksBefore, blocks);
  if (dropped.length)
    return fail(`the qna agent dropped or reworded the answer(s) on line ${dropped.map((b) => b.line).join(', ')}; answered questions must keep their answers`);
  const open = blocks.filter((b) => !b.feedback).length;
  if (next === 'AWAITING_USER_FEEDBACK' && open === 0) return fail('the qna agent awaits feedback but left no question with a USER FEEDBACK REQUIRED block');
  // Every answer now in the file has been seen by the model (or was written by it).
  await writeFileAtomic(t.file('qnaState'), `${JSON.stringify({ version: 1, processed: answered(blocks).map(feedbackKey) }, null, 1)}\n`);
  await writeFileAtomic(t.file('status'), statusFileText(next));
  const warning = ensureChangelogEntry(t, before, at, entry, 'qna');
  const head = `Wrote ${t.relFile('qna')}: ${blocks.length} question(s), ${open} awaiting your feedback. Status: ${next}.`;
  const tail =
    next === 'READY_FOR_PRD'
      ? stopMessage(t, 'READY_FOR_PRD')
      : `Answer between the ${FEEDBACK_START} and ${FEEDBACK_END} markers in ${t.relFile('qna')}, then run devx task next ${t.rel}`;
  return { code: 0, message: `${head}\n${tail}`, warnings: warning ? [warning] : [] };
}
