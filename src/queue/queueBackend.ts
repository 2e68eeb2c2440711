// The seam every task queue sits behind: the file queue (.devx/agents/, fileBackend.ts) and
// the PostgreSQL queue (postgres/pgQueue.ts). The runner (runTasks.ts) and the CLI see only this.
// Both keep the same Task records, statuses and counts (queueRecovery.ts decides what becomes of a
// task whose runner is gone); they differ in where tasks, plans and logs live and in how a claim is
// made atomic (a lock file; a row lock taken with FOR UPDATE SKIP LOCKED).
import type { Task } from './taskSchema.js';

/** What a run ended with, as the runner records it. */
export type TaskResult = Pick<Task, 'status' | 'summary' | 'error' | 'usage' | 'failedCalls' | 'resultBranch' | 'hasPatch' | 'changed' | 'noChanges'>;

/** What a run leaves beside its result: the plan file's text and the task's changes as a patch. */
export interface RunArtifacts {
  plan?: string;
  patch?: string;
  /** The transcript's last line, written only if the result is recorded. */
  logLine?: string;
}

export interface NewTask {
  agent: string;
  prompt: string;
  after?: string;
  writes?: string[];
  /** The repository revision it was queued at (git rev-parse HEAD). */
  revision?: string;
}

export interface QueueBackend {
  readonly kind: 'file' | 'postgres';
  /** Where it is, for messages (a database URL with its password redacted). */
  readonly where: string;
  /** The checkout this process runs tasks in (the project root). */
  readonly root: string;
  /** The queue's workspace in that checkout. */
  readonly workspace: string;
  /** Runners elsewhere (another checkout, another machine) may run its tasks: changes come back as a branch or patch. */
  readonly remote: boolean;
  start(t: NewTask): Promise<Task>;
  read(id: string): Promise<Task | null>;
  list(): Promise<Task[]>;
  /** Puts tasks whose runner is gone back to pending, or fails them. */
  recover(): Promise<Task[]>;
  /** Takes the oldest runnable pending task; two runners never get the same one. */
  claim(runner: string, leaseMs: number, skip?: ReadonlySet<string>): Promise<Task | null>;
  /** Renews the lease; returns the task as stored (a cancel request shows on it). */
  heartbeat(id: string, runner: string, leaseMs: number): Promise<Task | null>;
  /** Records the outcome; null when this runner no longer holds the task. */
  finish(id: string, runner: string, result: TaskResult, artifacts?: RunArtifacts): Promise<Task | null>;
  /** Gives a claimed task back without counting anything against it (it cannot run here). */
  release(id: string, runner: string, why: string): Promise<Task | null>;
  cancel(id: string): Promise<Task>;
  retry(id: string): Promise<Task>;
  /** Records the process groups a runner has running, so they can be stopped if it dies. */
  trackChildren(pid: number, children: number[]): void;
  /** Makes the task's plan file exist where it runs (`root`: this checkout, or the task's worktree) before it runs. */
  preparePlan(t: Task, root: string): Promise<void>;
  /** Adds a line to the task's transcript. */
  appendLog(t: Task, line: string): void;
  /** The task's plan, transcript and patch, for `devx agent log`; null for no such task. */
  readLog(id: string): Promise<{ task: Task; plan: string; log: string; patch?: string } | null>;
  close(): Promise<void>;
}
