// What becomes of a running task whose runner is gone (taskQueue.ts recover). A runner that died is
// counted as a runner death, not as the task's failure: runners are killed for reasons of their own
// (kill -9, a reboot, OOM elsewhere). Only a task that looks like the cause is given up for it: one
// with MAX_RUNNER_DEATHS deaths that are over two thirds of the queue's runner deaths since it first
// ran (its runners die while other runners live on); HARD_RUNNER_DEATHS ends any task. A live runner
// on this host that stopped renewing the lease is stuck in the task: that is the task's own failure.
import type { Task } from './taskSchema.js';

export const MAX_ATTEMPTS = 3;
/** Runner deaths after which a task that looks like their cause is given up. */
export const MAX_RUNNER_DEATHS = 10;
/** Runner deaths after which any task is given up. */
export const HARD_RUNNER_DEATHS = 50;

export interface Gone {
  /** Its runner's process is gone (same host). */
  dead: boolean;
  /** Its runner is on this host. */
  local: boolean;
  reason: string;
  now: string;
  /** Runner deaths the queue has seen, this one included. */
  queueDeaths: number;
}

/** The task after its runner is gone: pending again, or failed with why. */
export function afterRunnerGone(t: Task, g: Gone): Task {
  const own = !g.dead && g.local;
  let gaveUp: string | null = null;
  let counted: Task;
  if (own) {
    counted = { ...t, attempts: t.attempts + 1 };
    if (counted.attempts >= MAX_ATTEMPTS) gaveUp = `gave up after ${counted.attempts} failed attempts of its own`;
  } else {
    counted = { ...t, runnerDeaths: t.runnerDeaths + 1 };
    const since = Math.max(counted.runnerDeaths, g.queueDeaths - (t.queueDeathsAtFirstRun ?? 0));
    const share = counted.runnerDeaths / since;
    if (counted.runnerDeaths >= HARD_RUNNER_DEATHS) gaveUp = `gave up after ${counted.runnerDeaths} runner deaths`;
    else if (counted.runnerDeaths >= MAX_RUNNER_DEATHS && share > 2 / 3)
      gaveUp = `gave up after ${counted.runnerDeaths} runner deaths, ${counted.runnerDeaths} of the ${since} in the queue since it first ran: it looks like their cause`;
  }
  return gaveUp
    ? { ...counted, status: 'failed', error: `${g.reason}; ${gaveUp}`, completedAt: g.now, owner: undefined, leaseExpiresAt: undefined }
    : { ...counted, status: 'pending', error: `${g.reason}; queued again`, owner: undefined, leaseExpiresAt: undefined };
}

/** `agent retry`: a failed, blocked, incomplete or cancelled task pending again with fresh counts; throws for any other. */
export function retriedTask(t: Task): Task {
  if (!['failed', 'blocked', 'incomplete', 'cancelled'].includes(t.status))
    throw new Error(`task ${t.taskId} is ${t.status}; only failed, blocked, incomplete or cancelled tasks can be retried`);
  return {
    ...t,
    status: 'pending',
    attempts: 0,
    runnerDeaths: 0,
    error: undefined,
    failedCalls: undefined,
    changed: undefined,
    noChanges: undefined,
    hasPatch: undefined,
    resultBranch: undefined,
    completedAt: undefined,
    cancelRequested: undefined,
    summary: undefined,
  };
}
