// The workflow engine: start a run (clean tree, task branch, state file), drive it step by step
// (each a fresh headless run), follow the verdicts' transitions with bounded loops, pause at gates
// and on anything it cannot decide, and finish (archive the artifacts, merge the branch back).
// State is written after every step, so `resume` goes on from the last completed one.
import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowDef, Transition } from './definition.js';
import { END, PREVIOUS } from './definition.js';
import { newWorkflowId, slugOf, writeState, lockFile, type StepRecord, type WorkflowState } from './state.js';
import { finishStep, runStep, type StepDeps, type StepOutcome } from './runStep.js';
import { latestRecord } from './stepPrompt.js';
import { branchExists, commitPaths, currentBranch, dirtyPaths, head, isRepo, merge, GitError } from './git.js';
import type { AgentDef } from '../personas/loadAgents.js';
import { acquireLock, reapChildren, SessionLock } from '../session/sessionLock.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { SharedBackends } from '../runtime/sharedBackends.js';

export type WorkflowEvent =
  | { type: 'step_start'; step: string; role: string; model?: string; attempt: number }
  | { type: 'step_end'; record: StepRecord }
  | { type: 'check_failed'; step: string; message: string }
  | { type: 'committed'; step: string; commit: string }
  | { type: 'merged'; into: string; branch: string }
  | { type: 'status'; state: WorkflowState };

export interface EngineDeps extends StepDeps {
  /** The role's agent definition (builtin, user or project). */
  role: (name: string) => AgentDef;
  onEvent?: (e: WorkflowEvent) => void;
}

export class WorkflowError extends Error {}
export class WorkflowBusy extends WorkflowError {}

export interface StartOptions {
  request: string;
  mode?: string;
  gates?: string[];
  merge?: boolean;
}

/** Creates the run: checks the tree, creates and switches to the task branch, writes the state. */
export async function startWorkflow(def: WorkflowDef, opts: StartOptions, deps: Pick<EngineDeps, 'root' | 'git' | 'now'>): Promise<WorkflowState> {
  let start: string = def.start ?? Object.keys(def.steps)[0];
  if (opts.mode) {
    const m = def.modes[opts.mode];
    if (!m) throw new WorkflowError(`workflow "${def.name}" has no mode "${opts.mode}"; its modes are ${Object.keys(def.modes).join(', ') || '(none)'}`);
    start = m;
  }
  for (const g of opts.gates ?? [])
    if (!def.steps[g]) throw new WorkflowError(`--gate ${g}: no such step in ${def.name}; steps are ${Object.keys(def.steps).join(', ')}`);
  const now = deps.now();
  const id = newWorkflowId(now);
  const slug = slugOf(opts.request);
  const git: WorkflowState['git'] = { merge: opts.merge === false ? 'none' : def.git.merge };
  if (def.git.branch) {
    if (!(await isRepo(deps.git)))
      throw new WorkflowError(
        `${deps.root} is not a git repository; the ${def.name} workflow commits every step (run git init, or set git.branch: false in a copy of the definition)`,
      );
    const dirty = await dirtyPaths(deps.git);
    if (dirty.length)
      throw new WorkflowError(
        `the working tree has uncommitted changes (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', ...' : ''}); commit or stash them first, so the workflow's commits hold only its own work`,
      );
    git.base = await currentBranch(deps.git);
    git.branch = `${def.git.branchPrefix}${id}-${slug}`;
    if (await branchExists(deps.git, git.branch)) throw new WorkflowError(`branch ${git.branch} already exists`);
    // The developer's commit must come after this one.
    git.baseCommit = await head(deps.git);
    await deps.git.run(['switch', '-c', git.branch]);
  }
  const state: WorkflowState = {
    version: 1,
    id,
    workflow: def.name,
    definitionFile: def.file,
    definitionHash: def.hash,
    mode: opts.mode,
    request: opts.request,
    slug,
    status: 'running',
    current: start,
    feedback: {},
    loops: {},
    gates: [...def.gates, ...(opts.gates ?? [])],
    git,
    steps: [],
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  writeState(deps.root, state);
  return state;
}

/**
 * Runs the workflow from its current step until it is done, pauses or fails. Holds the workflow's
 * lock throughout; a dead holder's leftover processes are reaped first.
 */
export async function driveWorkflow(def: WorkflowDef, state: WorkflowState, deps: EngineDeps): Promise<WorkflowState> {
  const file = lockFile(deps.root, state.id);
  mkdirOwnedSync(path.dirname(file));
  const got = acquireLock(deps.root, state.id, deps.now(), file);
  if (got.status === 'busy') throw new WorkflowBusy(`workflow ${state.id} is being run by process ${got.holder.pid} (since ${got.holder.startedAt})`);
  if (got.stale) reapChildren(got.stale);
  const lock = new SessionLock(deps.root, { session: state.id, startedAt: deps.now().toISOString() }, file);
  const observer = { started: (g: number) => lock.childStarted(g), ended: (g: number) => lock.childEnded(g) };
  // The steps share warm model processes (one per provider and model; their calls are many), stopped when this drive ends.
  const sharedBackends = new SharedBackends();
  const save = () => {
    state.updatedAt = deps.now().toISOString();
    writeState(deps.root, state);
    deps.onEvent?.({ type: 'status', state });
  };
  try {
    state.status = 'running';
    state.reason = undefined;
    save();
    await ensureBranch(state, deps);
    for (;;) {
      await commitPending(state, deps, save);
      if (state.current === END) return await finish(def, state, deps, save);
      const name = state.current;
      const step = def.steps[name];
      if (!step) return pause(state, save, `the definition ${def.file} has no step "${name}" any more; restore it or start a new workflow`, 'failed');
      const persona = deps.role(step.role);
      let out: StepOutcome;
      if (state.pending?.step === name) {
        // The model's answer is kept: only devx's checks run again (no completed model call is repeated).
        out = await finishStep(def, state, state.pending, deps);
      } else {
        deps.onEvent?.({
          type: 'step_start',
          step: name,
          role: step.role,
          model: step.model ?? persona.model ?? def.model,
          attempt: state.steps.filter((s) => s.step === name).length + 1,
        });
        out = await runStep(def, state, name, persona, { ...deps, childObserver: observer, sharedBackends });
      }
      state.pending = undefined;
      if (out.kind === 'check_blocked') {
        state.pending = out.record;
        return pause(state, save, `${out.reason}; then devx workflow resume ${state.id} checks the ${name} step again (its model work is kept)`);
      }
      if (out.kind === 'pause') return pause(state, save, `${out.reason}; continue with devx workflow resume ${state.id}`);
      if (out.kind === 'check_failed') {
        deps.onEvent?.({ type: 'check_failed', step: name, message: out.message });
        const capped = takeLoop(state, def, `${name}.CHECK`, { to: name, cap: typeof def.maxLoops === 'number' ? def.maxLoops : 3 });
        record(state, { ...out.record, outcome: 'CHECK_FAILED', next: name, committed: true }, deps);
        if (capped) return pause(state, save, capped + `\nLast problem: ${out.message.split('\n')[0]}`);
        state.feedback[name] = out.message;
        state.current = name;
        save();
        continue;
      }
      const word = out.word;
      const t: Transition | undefined = (word ? step.transitions[word] : undefined) ?? step.after;
      if (!t)
        return pause(
          state,
          save,
          `step ${name} answered ${word ?? '(no verdict)'}, and the definition has no transition for it; edit ${def.file} (add it under "on"), then devx workflow resume ${state.id}`,
        );
      const target = t.to === PREVIOUS ? previousOf(state, step.reads) : t.to;
      if (!target) return pause(state, save, `step ${name} sent the work back, but none of the steps it reads has run`);
      const ran = target !== END && state.steps.some((s) => s.step === target);
      const capped = ran && word ? takeLoop(state, def, `${name}.${word}`, t) : null;
      delete state.feedback[name];
      if (target !== END && out.feedback && word) state.feedback[target] = feedbackText(name, word, out.feedback, out.record.artifact);
      const rec = record(state, { ...out.record, outcome: word ?? 'next', next: target, committed: false }, deps);
      state.current = target;
      save();
      await commitPending(state, deps, save);
      // Past the cap the work waits at the loop's target for a person (resume, reject with guidance, or cancel).
      if (capped) return pause(state, save, `${capped}\nLast feedback from ${name}: ${out.feedback ?? '(none)'}`);
      if ((step.gate || state.gates.includes(name)) && target !== END) {
        state.gate = { after: name, next: target };
        return pause(
          state,
          save,
          `waiting at the gate after ${name} (${rec.artifact ?? 'no artifact'}): devx workflow approve ${state.id}, or devx workflow reject ${state.id} --feedback "..."`,
        );
      }
    }
  } finally {
    await sharedBackends.dispose();
    // As for a session: a model CLI that answered and is still exiting keeps its group in the lock.
    await lock.releaseAfter(awaitLingering());
  }
}

function previousOf(state: WorkflowState, reads: string[]): string | undefined {
  for (let i = state.steps.length - 1; i >= 0; i--) if (reads.includes(state.steps[i].step)) return state.steps[i].step;
  return undefined;
}

function feedbackText(from: string, word: string, feedback: string, artifact?: string): string {
  return `${from} answered ${word}${artifact ? ` (its report: ${artifact})` : ''}:\n${feedback}`;
}

/** Counts one more trip round a loop; returns the pause message when the cap is passed. */
function takeLoop(state: WorkflowState, def: WorkflowDef, key: string, t: Transition): string | null {
  if (t.cap === undefined) return null;
  const n = (state.loops[key] ?? 0) + 1;
  state.loops[key] = n;
  if (n <= t.cap) return null;
  return `the loop ${key.replace('.', ' -> ')} reached its cap of ${t.cap} (maxLoops in ${path.basename(def.file)}); a person must decide: devx workflow reject ${state.id} --feedback "..." to try again with guidance, or devx workflow cancel ${state.id}`;
}

function record(state: WorkflowState, rec: StepRecord, deps: EngineDeps): StepRecord {
  state.steps.push(rec);
  deps.onEvent?.({ type: 'step_end', record: rec });
  return rec;
}

function pause(state: WorkflowState, save: () => void, reason: string, status: 'paused' | 'failed' = 'paused'): WorkflowState {
  state.status = status;
  state.reason = reason;
  save();
  return state;
}

/** Commits the artifact of a step whose commit did not happen yet (also after a crash between the two). */
async function commitPending(state: WorkflowState, deps: EngineDeps, save: () => void): Promise<void> {
  const rec = state.steps.at(-1);
  if (!rec || rec.committed) return;
  if (state.git.branch && rec.artifact && fs.existsSync(path.join(deps.root, rec.artifact))) {
    const verdict = rec.verdict ? `\n\nVerdict: ${JSON.stringify(rec.verdict)}` : '';
    const hash = await commitPaths(
      deps.git,
      [rec.artifact],
      `${rec.step} (${rec.role}): ${rec.outcome === 'next' ? 'report' : rec.outcome} [devx workflow ${state.id}]${verdict}`,
    );
    if (hash) {
      rec.commit ??= hash;
      (rec as StepRecord & { artifactCommit?: string }).artifactCommit = hash;
      deps.onEvent?.({ type: 'committed', step: rec.step, commit: hash });
    }
  }
  rec.committed = true;
  save();
}

/** Back on the task branch if a person switched away (only with a clean tree). */
async function ensureBranch(state: WorkflowState, deps: EngineDeps): Promise<void> {
  if (!state.git.branch) return;
  const cur = await currentBranch(deps.git).catch(() => '');
  if (cur === state.git.branch) return;
  if (!(await branchExists(deps.git, state.git.branch))) throw new WorkflowError(`the workflow's branch ${state.git.branch} no longer exists`);
  const dirty = await dirtyPaths(deps.git);
  if (dirty.length)
    throw new WorkflowError(
      `the workflow runs on ${state.git.branch}, but ${cur || 'HEAD'} is checked out with uncommitted changes (${dirty.slice(0, 3).join(', ')}); commit or stash them first`,
    );
  await deps.git.run(['switch', state.git.branch]);
}

/** Phase D: archive the artifacts on the task branch, then merge it back (never forced). */
async function finish(def: WorkflowDef, state: WorkflowState, deps: EngineDeps, save: () => void): Promise<WorkflowState> {
  if (state.git.branch && state.git.base) {
    const artifacts = [...new Set(state.steps.map((s) => s.artifact).filter((a): a is string => !!a))].filter((a) => fs.existsSync(path.join(deps.root, a)));
    if (artifacts.length) {
      const dest = path.join(def.git.archiveDir, state.id);
      const moved: string[] = [];
      for (const a of artifacts) {
        const to = path.join(dest, path.basename(a));
        mkdirOwnedSync(path.join(deps.root, dest));
        await deps.git.run(['mv', '-k', a, to]);
        if (!fs.existsSync(path.join(deps.root, a))) moved.push(a, to);
      }
      await commitPaths(deps.git, moved, `Archive the artifacts of ${state.id} to ${dest} [devx workflow ${state.id}]`);
    }
    if (state.git.merge !== 'none') {
      await deps.git.run(['switch', state.git.base]);
      const m = await merge(
        deps.git,
        state.git.branch,
        state.git.merge,
        `Merge ${state.git.branch}: ${state.request.split('\n')[0].slice(0, 60)} [devx workflow ${state.id}]`,
      );
      if (!m.ok) {
        await deps.git.run(['switch', state.git.branch]).catch(() => undefined);
        return pause(
          state,
          save,
          `merging ${state.git.branch} into ${state.git.base} stopped (${m.message}); nothing was forced. Merge it by hand, or resolve and run devx workflow resume ${state.id}`,
        );
      }
      deps.onEvent?.({ type: 'merged', into: state.git.base, branch: state.git.branch });
    }
  }
  state.status = 'done';
  state.reason = undefined;
  save();
  return state;
}

export { GitError, latestRecord };
