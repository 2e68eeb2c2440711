// A workflow's state is one file, .devx/workflows/<id>/state.json, replaced atomically after every
// step, so Ctrl-C, a crash or kill -9 leaves the last completed step on disk and `resume` goes on
// from there. A lock file beside it keeps two orchestrators off one workflow.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import * as z from 'zod';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { readStateText, UnreadableFileError } from '../util/readRegularFileSync.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { foreignState, ownerId } from '../session/ownerId.js';
import { REMOVE_SET_ASIDE } from '../session/setAside.js';

export const STATUSES = ['running', 'paused', 'failed', 'done', 'cancelled'] as const;
export type WorkflowStatus = (typeof STATUSES)[number];

const StepRecord = z.object({
  step: z.string(),
  role: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  attempt: z.number().int(),
  artifact: z.string().optional(),
  verdict: z.record(z.string(), z.unknown()).optional(),
  /** The word that chose the transition (APPROVE, FAIL, ...) or "next". */
  outcome: z.string(),
  next: z.string(),
  tokens: z.object({ input: z.number(), output: z.number() }),
  modelCalls: z.number().int(),
  startedAt: z.string(),
  durationMs: z.number(),
  commit: z.string().optional(),
  /** The commit of the artifacts is done (a crash between the step and its commit redoes only the commit). */
  committed: z.boolean(),
  transcript: z.string().optional(),
  note: z.string().optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;

const StateSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  workflow: z.string(),
  definitionFile: z.string(),
  definitionHash: z.string(),
  mode: z.string().optional(),
  request: z.string(),
  slug: z.string(),
  status: z.enum(STATUSES),
  /** The step to run next (or the one running); "$done" at the end. */
  current: z.string(),
  /** Why the workflow paused or failed, in a sentence the user can act on. */
  reason: z.string().optional(),
  /** Feedback handed to the next run of a step (a REJECT's, a FAIL's, a person's). */
  feedback: z.record(z.string(), z.string()).default({}),
  loops: z.record(z.string(), z.number()).default({}),
  gates: z.array(z.string()).default([]),
  /** Set while paused at a gate: the step after which the workflow waits. */
  gate: z.object({ after: z.string(), next: z.string() }).optional(),
  /** A step whose model work is done but whose claims devx could not check yet: resume checks only. */
  pending: StepRecord.omit({ next: true, outcome: true, committed: true }).optional(),
  git: z.object({ base: z.string().optional(), baseCommit: z.string().optional(), branch: z.string().optional(), merge: z.enum(['no-ff', 'ff', 'none']) }),
  approval: z.string().optional(),
  steps: z.array(StepRecord),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Who started it (session/ownerId.ts): a run that came with a clone is never resumed. */
  owner: z.string().optional(),
});
export type WorkflowState = z.infer<typeof StateSchema>;

export function workflowsDir(root: string): string {
  return path.join(root, '.devx', 'workflows');
}

export function stateDir(root: string, id: string): string {
  return path.join(workflowsDir(root), id);
}

export function statePath(root: string, id: string): string {
  return path.join(stateDir(root, id), 'state.json');
}

export function lockFile(root: string, id: string): string {
  return path.join(stateDir(root, id), 'lock');
}

export function newWorkflowId(now: Date): string {
  const d = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `wf-${d}-${crypto.randomBytes(3).toString('hex')}`;
}

export function slugOf(request: string): string {
  const s = request
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 40).replace(/-+$/, '') || 'task';
}

export function writeState(root: string, state: WorkflowState): void {
  const dir = stateDir(root, state.id);
  mkdirOwnedSync(dir);
  // The run's folder is personal state, whatever .devx/.gitignore says.
  const gi = path.join(dir, '.gitignore');
  if (!fs.existsSync(gi)) writeFileAtomicSync(gi, '*\n');
  const owner = state.owner ?? ownerId() ?? undefined;
  writeFileAtomicSync(statePath(root, state.id), `${JSON.stringify(owner ? { ...state, owner } : state, null, 2)}\n`);
}

export class StateError extends Error {}
/** The state is not this user's (session/ownerId.ts): set aside, never resumed. */
export class ForeignStateError extends StateError {}

export function readState(root: string, id: string): WorkflowState {
  const file = statePath(root, id);
  let text: string;
  try {
    text = readStateText(file);
  } catch (err) {
    if (err instanceof UnreadableFileError) throw new StateError(err.message);
    const known = listStates(root).map((s) => s.id);
    throw new StateError(`no workflow "${id}" in ${workflowsDir(root)}${known.length ? `; known: ${known.join(', ')}` : ''}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new StateError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const r = StateSchema.safeParse(raw);
  if (!r.success) throw new StateError(`${file}: ${r.error.issues[0].path.join('.')}: ${r.error.issues[0].message}`);
  const foreign = foreignState(file, r.data.owner, workflowsDir(root));
  if (foreign)
    throw new ForeignStateError(`workflow ${id} is not yours to resume (${foreign}); devx leaves ${stateDir(root, id)} alone. Remove it: ${REMOVE_SET_ASIDE}`);
  return r.data;
}

/** Every workflow run in the project, newest first; unreadable ones are skipped. */
export function listStates(root: string): WorkflowState[] {
  let names: string[] = [];
  try {
    names = fs.readdirSync(workflowsDir(root));
  } catch {
    return [];
  }
  const out: WorkflowState[] = [];
  for (const n of names) {
    if (!fs.existsSync(statePath(root, n))) continue;
    try {
      out.push(readState(root, n));
    } catch {
      // a broken state file is reported by `status <id>`, not here
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
