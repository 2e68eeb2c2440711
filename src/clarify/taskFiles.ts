// A clarification task folder: the file names, the statuses of task_status.md with their
// notes, and reading them. The status file's first line decides the next step; anything else in it
// is a note for the user.
import fs from 'node:fs';
import path from 'node:path';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';
import { READ_LIMITS, readTextIfPresentSync, UnreadableFileError } from '../util/readRegularFileSync.js';
import { outsideOrProtected } from '../policy/pathPolicy.js';

export const TASK_FILES = {
  description: 'task_description.md',
  architecture: 'tech_architecture.md',
  context: 'task_context.md',
  status: 'task_status.md',
  qna: 'questions-and-answers.md',
  changelog: 'changelog.md',
  /** devx's record of the feedback it has already given the model (so old answers are not "new"). */
  qnaState: '.devx-qna-state.json',
} as const;

export const TASK_STATUSES = ['AWAITING_CONTEXT_REVIEW', 'AWAITING_QUESTIONS', 'AWAITING_USER_FEEDBACK', 'READY_FOR_PRD'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The instructional note devx writes under each status it sets. */
export const STATUS_NOTES: Record<TaskStatus, string> = {
  AWAITING_CONTEXT_REVIEW: '# Note: After reviewing context, update this status to AWAITING_QUESTIONS',
  AWAITING_QUESTIONS: '# Note: devx task next will now generate assumptions and questions',
  AWAITING_USER_FEEDBACK: '# Note: After providing feedback between the USER_FEEDBACK markers in questions-and-answers.md, run devx task next again',
  READY_FOR_PRD: '# Note: Q&A complete; the task is ready for its PRD (devx workflow run --mode direct --from-task <folder>)',
};

export function statusFileText(status: TaskStatus): string {
  return `${status}\n${STATUS_NOTES[status]}\n`;
}

/** A problem with a task folder's files, for the user to fix: names the file (and line), exits non-zero. */
export class TaskFileError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'TaskFileError';
  }
}

export interface TaskFolder {
  /** Absolute (real) path of the folder. */
  dir: string;
  /** The folder as the user sees it, relative to the project root. */
  rel: string;
  root: string;
  file(name: keyof typeof TASK_FILES): string;
  relFile(name: keyof typeof TASK_FILES): string;
}

/** The task folder, which must exist inside the project (the agents' file tools reach only the project). */
export function openTaskFolder(root: string, folder: string, cwd = process.cwd()): TaskFolder {
  const abs = path.resolve(cwd, folder);
  let dir: string;
  try {
    dir = fs.realpathSync(abs);
  } catch {
    throw new TaskFileError(`task folder not found: ${abs}. Create it with devx task new ${folder} "<description>"`);
  }
  if (!fs.statSync(dir).isDirectory()) throw new TaskFileError(`${abs} is not a folder`);
  return taskFolderAt(root, dir);
}

export function taskFolderAt(root: string, dir: string): TaskFolder {
  const rel = path.relative(root, dir) || '.';
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new TaskFileError(`the task folder ${dir} is outside the project ${root}; put it inside the project`);
  return {
    dir,
    rel,
    root,
    file: (name) => path.join(dir, TASK_FILES[name]),
    relFile: (name) => path.join(rel, TASK_FILES[name]),
  };
}

/**
 * A task file's text, null when it is missing. What goes to the model from here is read like MEMORY.md: a file
 * that resolves outside the project (a committed link to ~/.aws/credentials) or to one the path policy protects
 * is refused, naming it.
 */
export function readIfExists(file: string, root: string): string | null {
  const problem = outsideOrProtected(file, [root], 'read', path.relative(root, file) || file);
  if (problem && problem.why !== 'unresolvable') throw new TaskFileError(`${problem.reason}: devx does not read it; replace the link with the file itself`);
  try {
    return readTextIfPresentSync(file, READ_LIMITS.state) ?? null;
  } catch (err) {
    throw new TaskFileError(err instanceof UnreadableFileError ? `cannot read ${err.message}` : `cannot read ${file}: ${(err as Error).message}`);
  }
}

/** The status on the first line of task_status.md, null when the file is missing; anything else is a TaskFileError. */
export function readTaskStatus(t: TaskFolder): TaskStatus | null {
  const text = readIfExists(t.file('status'), t.root);
  if (text === null) return null;
  const first = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]
    .trim();
  const allowed = `allowed values: ${TASK_STATUSES.join(', ')}`;
  if (!first) throw new TaskFileError(`${t.relFile('status')} line 1: the status is empty; the first line must hold the status (${allowed})`);
  if (!(TASK_STATUSES as readonly string[]).includes(first)) throw new TaskFileError(`${t.relFile('status')} line 1: unknown status "${first}"; ${allowed}`);
  return first as TaskStatus;
}

/** `devx task new`: the folder and its task_description.md; an existing description is never replaced. */
export function createTask(root: string, folder: string, description: string, cwd = process.cwd()): TaskFolder {
  if (!description.trim()) throw new TaskFileError('the description is empty; say what the task is');
  const abs = path.resolve(cwd, folder);
  mkdirOwnedSync(abs);
  const t = openTaskFolder(root, abs);
  try {
    // Exclusive: fails if the file exists, so a description the user wrote is never overwritten.
    writeNewOwnedSync(t.file('description'), `${description.trim()}\n`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new TaskFileError(`${t.relFile('description')} already exists; edit it, or choose another folder`);
    throw err;
  }
  return t;
}
