// What a person does to a workflow between steps: resume it, approve or reject at a gate, cancel it.
import { isAlive, liveHolder, readLock } from '../session/sessionLock.js';
import type { WorkflowDef } from './definition.js';
import { driveWorkflow, WorkflowError, type EngineDeps } from './runWorkflow.js';
import { lockFile, readState, writeState, type WorkflowState } from './state.js';

/**
 * A state that says `running` while no live process holds its lock: its orchestrator was killed (kill -9,
 * a crash, a reboot). A state just written, before its orchestrator took the lock, is not one.
 */
export function isInterrupted(root: string, s: WorkflowState, now = Date.now()): boolean {
  if (s.status !== 'running') return false;
  if (readLock(lockFile(root, s.id))) return !liveHolder(lockFile(root, s.id));
  return now - Date.parse(s.updatedAt) > 5_000;
}

/** What `workflow status` reports: the stored state, or `interrupted` with how to go on. */
export function reportedState(root: string, s: WorkflowState): WorkflowState | (Omit<WorkflowState, 'status'> & { status: 'interrupted'; resume: string }) {
  return isInterrupted(root, s) ? { ...s, status: 'interrupted', resume: `devx workflow resume ${s.id}` } : s;
}

export function checkDefinition(def: WorkflowDef, state: WorkflowState): string | null {
  return def.hash === state.definitionHash ? null : `the definition ${def.file} changed since this workflow started; the current one is used`;
}

export async function resumeWorkflow(def: WorkflowDef, id: string, deps: EngineDeps): Promise<WorkflowState> {
  const state = readState(deps.root, id);
  if (state.status === 'done') throw new WorkflowError(`workflow ${id} is done; nothing to resume`);
  if (state.status === 'cancelled') throw new WorkflowError(`workflow ${id} was cancelled; start a new one`);
  if (state.gate)
    throw new WorkflowError(
      `workflow ${id} waits at the gate after ${state.gate.after}: devx workflow approve ${id}, or devx workflow reject ${id} --feedback "..."`,
    );
  return driveWorkflow(def, state, deps);
}

export async function approveWorkflow(def: WorkflowDef, id: string, deps: EngineDeps): Promise<WorkflowState> {
  const state = readState(deps.root, id);
  if (!state.gate) throw new WorkflowError(`workflow ${id} is not waiting at a gate (status: ${state.status}${state.reason ? `: ${state.reason}` : ''})`);
  state.current = state.gate.next;
  state.gate = undefined;
  writeState(deps.root, state);
  return driveWorkflow(def, state, deps);
}

/** At a gate: the gated step runs again with the person's feedback. Past a loop cap: the waiting step runs with it. */
export async function rejectWorkflow(def: WorkflowDef, id: string, feedback: string, deps: EngineDeps): Promise<WorkflowState> {
  const state = readState(deps.root, id);
  if (state.status === 'done' || state.status === 'cancelled') throw new WorkflowError(`workflow ${id} is ${state.status}`);
  const step = state.gate ? state.gate.after : state.current;
  if (!state.gate && state.status !== 'paused') throw new WorkflowError(`workflow ${id} is ${state.status}; reject applies to a paused workflow`);
  state.gate = undefined;
  state.pending = undefined;
  state.current = step;
  state.feedback[step] = `A person reviewed the work and asks for changes:\n${feedback}`;
  // A person's decision starts the loop counts afresh.
  state.loops = {};
  writeState(deps.root, state);
  return driveWorkflow(def, state, deps);
}

/** Marks the workflow cancelled; a live orchestrator is asked to stop first (SIGTERM) and waited for. */
export async function cancelWorkflow(root: string, id: string, now: () => Date, waitMs = 15_000): Promise<WorkflowState> {
  let state = readState(root, id);
  if (state.status === 'done') throw new WorkflowError(`workflow ${id} is done; nothing to cancel`);
  // Only a live devx of this user's is asked to stop: a lock's PID is not enough to signal a process.
  const holder = liveHolder(lockFile(root, id));
  if (holder) {
    process.kill(holder.pid, 'SIGTERM');
    const until = Date.now() + waitMs;
    while (Date.now() < until && isAlive(holder.pid)) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(holder.pid)) throw new WorkflowError(`process ${holder.pid} runs workflow ${id} and did not stop; try again, or kill it`);
    state = readState(root, id);
  }
  state.status = 'cancelled';
  state.reason = 'cancelled by a person';
  state.gate = undefined;
  state.updatedAt = now().toISOString();
  writeState(root, state);
  return state;
}
