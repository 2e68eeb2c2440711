// `devx task next`: the TaskPlanner's route, then the step it names. Also what the dev pipeline
// reads from a task that is ready (readTaskInput, for `devx workflow run --from-task`).
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { runHeadless } from '../runtime/runHeadless.js';
import { findProjectRoot } from '../config/paths.js';
import { planTask } from './planTask.js';
import { runContextResearch } from './contextResearch.js';
import { runQna } from './qnaStep.js';
import { openTaskFolder, readIfExists, readTaskStatus, TaskFileError, type TaskFolder } from './taskFiles.js';
import { parseFeedbackBlocks, FEEDBACK_START, FEEDBACK_END, FEEDBACK_PLACEHOLDER } from './qnaFile.js';
import type { StepDeps, StepResult } from './stepDeps.js';

export function defaultStepDeps(over: Partial<StepDeps> = {}): StepDeps {
  return { run: runHeadless, now: () => new Date(), cwd: process.cwd(), env: process.env, ...over };
}

/** One planner cycle: route by task_status.md, run at most one step. TaskFileError for bad files. */
export async function nextTaskStep(t: TaskFolder, deps: StepDeps): Promise<StepResult & { step: string }> {
  // One planner per folder at a time; a killed one's lock goes stale (its mtime stops moving).
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(t.dir, { lockfilePath: path.join(t.dir, '.devx-task.lock'), realpath: false, stale: 30_000, retries: 0 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new TaskFileError(`another devx task next is working on ${t.rel}; wait for it to finish`, 4);
    throw err;
  }
  try {
    return await routeAndRun(t, deps);
  } finally {
    await release().catch(() => {});
  }
}

async function routeAndRun(t: TaskFolder, deps: StepDeps): Promise<StepResult & { step: string }> {
  const route = planTask(t);
  if (route.step === 'stop') return { step: route.status, code: 0, message: route.message, warnings: [] };
  if (route.step === 'context_research') return { step: 'context_research', ...(await runContextResearch(t, deps)) };
  return { step: 'qna', ...(await runQna(t, route.status, deps)) };
}

/** readTaskInput for a folder path as the user typed it (relative to `cwd`), in the project around `cwd`. */
export function readTaskInputAt(folder: string, cwd = process.cwd()): string {
  return readTaskInput(openTaskFolder(findProjectRoot(cwd), folder, cwd));
}

/**
 * A READY_FOR_PRD task as one Markdown text: its description, its context and its Q&A (answers in
 * place of the feedback blocks). Throws a TaskFileError for any other status or a broken file.
 */
export function readTaskInput(t: TaskFolder): string {
  const status = readTaskStatus(t);
  if (status !== 'READY_FOR_PRD') {
    throw new TaskFileError(`${t.relFile('status')} says ${status ?? '(missing)'}; the task must be READY_FOR_PRD first (run devx task next ${t.rel})`);
  }
  const description = readIfExists(t.file('description'), t.root);
  const context = readIfExists(t.file('context'), t.root);
  const qna = readIfExists(t.file('qna'), t.root);
  for (const [name, text] of [
    ['description', description],
    ['context', context],
    ['qna', qna],
  ] as const) {
    if (text === null) throw new TaskFileError(`${t.relFile(name)} is missing; the task is not complete`);
  }
  parseFeedbackBlocks(qna!, t.relFile('qna'));
  // Each block becomes its answer as plain text (or says it was left open).
  const answers = qna!.replace(new RegExp(`${esc(FEEDBACK_START)}([\\s\\S]*?)${esc(FEEDBACK_END)}`, 'g'), (_m, body: string) => {
    const text = body
      .split('\n')
      .filter((l) => l.trim() !== FEEDBACK_PLACEHOLDER)
      .join('\n')
      .trim();
    return text ? `**Answer:** ${text}` : '**Answer:** (left open)';
  });
  return [
    `# Task (${t.rel})`,
    '',
    description!.trim(),
    '',
    '# Task context',
    '',
    demote(context!.trim()),
    '',
    '# Questions and answers',
    '',
    demote(answers.trim()),
    '',
  ].join('\n');
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Headings one level down, so the documents nest under this text's own headings. */
const demote = (md: string) => md.replace(/^(#{1,5}) /gm, '#$1 ');
