// Context research. devx writes what it can know for certain: task_context.md's
// description and file listing, and task_status.md. The context-researcher model does the one thing
// that needs judgement, picking the relevant architecture sections, and returns them as its answer;
// devx inserts them. The model records the step through the changelog agent.
import fs from 'node:fs';
import path from 'node:path';
import { runGitSync } from '../util/safeGit.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { readIfExists, statusFileText, TaskFileError, TASK_FILES, type TaskFolder } from './taskFiles.js';
import { stopMessage } from './planTask.js';
import { changelogCall, changelogLines, ensureChangelogEntry, snapshotChangelog } from './taskChangelog.js';
import { approveOwnedFiles, describeFailure, type StepDeps, type StepResult } from './stepDeps.js';

export const FILE_LIST_LIMIT = 100;
const SKIP = new Set(['.git', 'node_modules', '.devx']);

/** tech_architecture.md beside the task, else at the project root. */
export function findArchitecture(t: TaskFolder): { file: string; text: string } | null {
  for (const file of [t.file('architecture'), path.join(t.root, TASK_FILES.architecture)]) {
    const text = readIfExists(file, t.root);
    if (text !== null) return { file, text };
  }
  return null;
}

/** The project's files (git's view when it is a repository: ignored files left out), the first `limit` of them. */
export function listProjectFiles(root: string, limit = FILE_LIST_LIMIT): { files: string[]; total: number } {
  const git = runGitSync(root, ['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
  let all = git.status === 0 ? git.stdout.split('\0').filter(Boolean) : walk(root, '');
  all = [...new Set(all)].filter((f) => !SKIP.has(f.split('/')[0])).sort();
  return { files: all.slice(0, limit), total: all.length };
}

function walk(root: string, rel: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(root, p));
    else out.push(p);
  }
  return out;
}

const ENTRY = 'Generated initial context, awaiting review.';

export async function runContextResearch(t: TaskFolder, deps: StepDeps): Promise<StepResult> {
  const description = readIfExists(t.file('description'), t.root);
  if (description === null || !description.trim()) {
    throw new TaskFileError(`${t.relFile('description')} is missing or empty; write the task there (devx task new ${t.rel} "<description>")`);
  }
  // task_context.md is the user's to edit once written: a status-less folder never silently replaces it.
  if (fs.existsSync(t.file('context'))) {
    throw new TaskFileError(
      `${t.relFile('context')} exists but ${t.relFile('status')} is missing; delete ${t.relFile('context')} to generate it again, or write AWAITING_QUESTIONS on the first line of ${t.relFile('status')} to go on with it`,
    );
  }
  const arch = findArchitecture(t);
  const archRel = arch ? path.relative(t.root, arch.file) : null;
  const listing = listProjectFiles(t.root);
  const at = deps.now();
  const before = changelogLines(t);
  const changelog = snapshotChangelog(t);
  const prompt = [
    `Prepare the initial context of the task in ${t.rel}/.`,
    '',
    `## Task description (${t.relFile('description')})`,
    description.trim(),
    '',
    arch ? `## Architecture document (${archRel})` : '## Architecture document',
    arch ? arch.text.trim() : 'There is none: no tech_architecture.md in the task folder or at the project root.',
    '',
    `## Project files (${listing.files.length} of ${listing.total})`,
    ...listing.files,
    '',
    'When you have chosen the relevant architecture context, record this step in the changelog with exactly this call, once:',
    changelogCall(t, at, ENTRY),
    '',
    'Then answer with the extracted architecture context only (Markdown), or exactly NONE.',
  ].join('\n');
  const r = await deps.run({
    prompt,
    cwd: deps.cwd,
    env: deps.env,
    persona: 'context-researcher',
    approval: deps.approval,
    model: deps.model,
    provider: deps.provider,
    onEvent: deps.onEvent,
    approve: approveOwnedFiles(t.root, [t.file('changelog')]),
  });
  // A step that does not stand leaves no changelog entry.
  if (r.status !== 'answered') changelog.rollback();
  if (r.error?.kind === 'binary_missing') return { code: 3, message: r.error.message, warnings: [] };
  if (r.status !== 'answered')
    return {
      code: 1,
      message: `context research stopped: ${describeFailure('context-researcher', r)}. Nothing was written; run devx task next ${t.rel} again.`,
      warnings: [],
    };
  const extract = cleanExtract(r.answer ?? '');
  const context = [
    `# Task context: ${t.rel}`,
    '',
    '## Task description',
    description.trim(),
    '',
    '## Architecture context',
    arch
      ? `_Extracted from ${archRel}._\n\n${extract ?? 'Nothing in it is relevant to this task.'}`
      : 'No tech_architecture.md in the task folder or at the project root.',
    '',
    '## Files',
    `The first ${listing.files.length} of ${listing.total} files in the project:`,
    '',
    ...listing.files.map((f) => `- ${f}`),
    ...(listing.total > listing.files.length ? [`- … ${listing.total - listing.files.length} more not listed`] : []),
    '',
  ].join('\n');
  await writeFileAtomic(t.file('context'), context);
  // The status last: a crash before it leaves the step to be redone, never a status without its context.
  await writeFileAtomic(t.file('status'), statusFileText('AWAITING_CONTEXT_REVIEW'));
  const warning = ensureChangelogEntry(t, before, at, ENTRY, 'context-researcher');
  return {
    code: 0,
    message: `Wrote ${t.relFile('context')} and ${t.relFile('status')} (AWAITING_CONTEXT_REVIEW).\n${stopMessage(t, 'AWAITING_CONTEXT_REVIEW')}`,
    warnings: warning ? [warning] : [],
  };
}

/** The model's extract, or null when it found nothing relevant. A repeated section heading is dropped. */
function cleanExtract(answer: string): string | null {
  const text = answer
    .trim()
    .replace(/^#+\s*Architecture context\s*\n/i, '')
    .trim();
  return !text || /^none\.?$/i.test(text) ? null : text;
}
