// The file-based task queue (.devx/agents/{tasks,plans,logs,workspace}). devx makes every state
// change itself: claims happen under a queue lock, a claimed task records its owner and a lease,
// and a task whose runner died (dead PID or expired lease) goes back to pending, or fails after
// too many of them. Task files are replaced atomically. `attempts` counts the task's own failures
// (a run that ended failed, blocked or incomplete, a lease that expired under a live runner);
// `runnerDeaths` counts runners that died while running it, judged apart (queueRecovery.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import lockfile from 'proper-lockfile';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { readStateText } from '../util/readRegularFileSync.js';
import { isAlive, setAsideLock } from '../session/sessionLock.js';
import { reapGroups } from '../util/reapGroups.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { foreignState, ownerId } from '../session/ownerId.js';
import { afterRunnerGone, retriedTask } from './queueRecovery.js';

import { TaskSchema, type Task } from './taskSchema.js';
export { TaskSchema, type Task };
export { renderStatusTable } from './renderStatusTable.js';

export { MAX_ATTEMPTS, MAX_RUNNER_DEATHS, HARD_RUNNER_DEATHS } from './queueRecovery.js';
/** A queue lock not refreshed for this long is stale (its holder died). */
const QUEUE_LOCK_STALE_MS = 15_000;
/** How a task ended: these count as its own failure. */
const OWN_FAILURES = new Set(['failed', 'blocked', 'incomplete']);

export class TaskQueue {
  readonly base: string;
  readonly tasksDir: string;
  readonly plansDir: string;
  readonly logsDir: string;
  readonly workspace: string;

  constructor(
    readonly root: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.base = path.join(root, '.devx', 'agents');
    this.tasksDir = path.join(this.base, 'tasks');
    this.plansDir = path.join(this.base, 'plans');
    this.logsDir = path.join(this.base, 'logs');
    this.workspace = path.join(this.base, 'workspace');
  }

  private ensure(): void {
    for (const d of [this.tasksDir, this.plansDir, this.logsDir, this.workspace]) mkdirOwnedSync(d);
  }

  private file(id: string): string {
    return path.join(this.tasksDir, `${id}.json`);
  }

  read(id: string): Task | null {
    try {
      const t = TaskSchema.parse(JSON.parse(readStateText(this.file(id))));
      return foreignState(this.file(id), t.queuedBy, this.tasksDir) ? null : t;
    } catch {
      return null;
    }
  }

  private write(t: Task): void {
    writeFileAtomicSync(this.file(t.taskId), JSON.stringify(t, null, 2) + '\n');
  }

  list(): Task[] {
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.tasksDir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith('.json'))
      .map((n) => this.read(n.slice(0, -5)))
      .filter((t): t is Task => t !== null)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.taskId.localeCompare(b.taskId));
  }

  /**
   * A queue lock dated ahead of now came with the project (a tarball keeps times; a live holder keeps its
   * lock's time at now): it would never go stale, so it is set aside instead of being waited on.
   */
  private setAsideShippedLock(): void {
    const lock = path.join(this.base, 'queue.lock');
    const st = fs.lstatSync(lock, { throwIfNoEntry: false });
    if (!st || st.mtimeMs <= Date.now() + QUEUE_LOCK_STALE_MS) return;
    fs.rmSync(setAsideLock(lock), { recursive: true, force: true });
    fs.renameSync(lock, setAsideLock(lock));
  }

  private async withLock<T>(fn: () => T): Promise<T> {
    this.ensure();
    this.setAsideShippedLock();
    const release = await lockfile.lock(this.tasksDir, {
      lockfilePath: path.join(this.base, 'queue.lock'),
      realpath: false,
      stale: QUEUE_LOCK_STALE_MS,
      retries: { retries: 400, minTimeout: 10, maxTimeout: 100 },
    });
    try {
      return fn();
    } finally {
      await release();
    }
  }

  async start(agent: string, prompt: string, after?: string, writes: string[] = [], revision?: string): Promise<Task> {
    this.ensure();
    const now = this.now();
    const taskId = `task_${now.getTime()}${crypto.randomBytes(2).toString('hex')}`;
    const rel = (p: string) => path.relative(this.root, p).split(path.sep).join('/');
    const queuedBy = ownerId() ?? undefined;
    const task: Task = {
      taskId,
      status: 'pending',
      agent,
      prompt,
      planFile: rel(path.join(this.plansDir, `${taskId}_plan.md`)),
      logFile: rel(path.join(this.logsDir, `${taskId}.log`)),
      createdAt: now.toISOString(),
      attempts: 0,
      runnerDeaths: 0,
      runs: 0,
      ...(writes.length ? { writes } : {}),
      ...(after ? { after } : {}),
      ...(queuedBy ? { queuedBy } : {}),
      ...(revision ? { revision } : {}),
    };
    writeFileAtomicSync(path.join(this.root, task.planFile), `# Plan for ${agent} - ${prompt}\n`);
    this.write(task);
    return task;
  }

  /** Puts tasks whose runner is gone back to pending, or fails them (queueRecovery.ts). Call under the lock. */
  private recoverLocked(): Task[] {
    const recovered: Task[] = [];
    const host = os.hostname();
    for (const t of this.list()) {
      if (t.status !== 'running') continue;
      const expired = t.leaseExpiresAt !== undefined && Date.parse(t.leaseExpiresAt) < this.now().getTime();
      const dead = t.owner !== undefined && t.owner.host === host && !isAlive(t.owner.pid);
      if (!expired && !dead) continue;
      const reason = dead ? `its runner (pid ${t.owner!.pid}) died` : `its runner's lease expired at ${t.leaseExpiresAt}`;
      if (dead) this.reapRunner(t.owner!.pid);
      const local = t.owner !== undefined && t.owner.host === host;
      // Every runner gone but one stuck under a live process counts in the queue's deaths.
      const queueDeaths = dead || !local ? this.countDeath() : this.queueDeaths();
      const next = afterRunnerGone(t, { dead, local, reason, now: this.now().toISOString(), queueDeaths });
      this.write(next);
      recovered.push(next);
    }
    return recovered;
  }

  private deathsFile(): string {
    return path.join(this.base, 'runner-deaths.json');
  }

  /** Runner deaths the queue has seen (call under the lock). */
  private queueDeaths(): number {
    try {
      const n = (JSON.parse(fs.readFileSync(this.deathsFile(), 'utf8')) as { deaths?: unknown }).deaths;
      return typeof n === 'number' ? n : 0;
    } catch {
      return 0;
    }
  }

  private countDeath(): number {
    const n = this.queueDeaths() + 1;
    writeFileAtomicSync(this.deathsFile(), `${JSON.stringify({ deaths: n })}\n`);
    return n;
  }

  private runnerFile(pid: number): string {
    return path.join(this.base, 'runners', `${pid}.json`);
  }

  /** Records the process groups a runner has running, so they can be stopped if the runner dies. */
  trackChildren(pid: number, children: number[]): void {
    mkdirOwnedSync(path.join(this.base, 'runners'));
    if (children.length) writeFileAtomicSync(this.runnerFile(pid), JSON.stringify({ pid, children }));
    else fs.rmSync(this.runnerFile(pid), { force: true });
  }

  private reapRunner(pid: number): void {
    try {
      const { children } = JSON.parse(fs.readFileSync(this.runnerFile(pid), 'utf8')) as { children: number[] };
      reapGroups(children, pid);
    } catch {
      /* no record */
    }
    fs.rmSync(this.runnerFile(pid), { force: true });
  }

  async recover(): Promise<Task[]> {
    // No queue yet: nothing to recover, and looking must not create one (`devx agent status` anywhere).
    if (!fs.existsSync(this.tasksDir)) return [];
    return this.withLock(() => this.recoverLocked());
  }

  /** Claims the oldest pending task atomically: two runners never take the same task. */
  async claim(runner: string, leaseMs: number, skip: ReadonlySet<string> = new Set()): Promise<Task | null> {
    return this.withLock(() => {
      this.recoverLocked();
      const all = this.list();
      const done = new Set(all.filter((t) => t.status === 'complete').map((t) => t.taskId));
      const next = all.find((t) => t.status === 'pending' && !skip.has(t.taskId) && (!t.after || done.has(t.after)));
      if (!next) return null;
      const claimed: Task = {
        ...next,
        status: 'running',
        startedAt: this.now().toISOString(),
        owner: { pid: process.pid, host: os.hostname(), runner },
        leaseExpiresAt: new Date(this.now().getTime() + leaseMs).toISOString(),
        runs: next.runs + 1,
        queueDeathsAtFirstRun: next.queueDeathsAtFirstRun ?? this.queueDeaths(),
      };
      this.write(claimed);
      return claimed;
    });
  }

  /** Extends the lease; returns the task as stored (so the runner sees a cancel request). */
  async heartbeat(id: string, runner: string, leaseMs: number): Promise<Task | null> {
    return this.withLock(() => {
      const t = this.read(id);
      if (!t || t.status !== 'running' || t.owner?.runner !== runner) return t;
      const next = { ...t, leaseExpiresAt: new Date(this.now().getTime() + leaseMs).toISOString() };
      this.write(next);
      return next;
    });
  }

  async finish(id: string, runner: string, result: Partial<Task> & Pick<Task, 'status'>): Promise<Task | null> {
    return this.withLock(() => {
      const t = this.read(id);
      if (!t || t.owner?.runner !== runner) return null; // lost the task (recovered by another runner)
      const next: Task = {
        ...t,
        ...result,
        attempts: t.attempts + (OWN_FAILURES.has(result.status) ? 1 : 0),
        completedAt: this.now().toISOString(),
        owner: undefined,
        leaseExpiresAt: undefined,
      };
      this.write(next);
      return next;
    });
  }

  /** Gives a claimed task back to pending, counting nothing against it (this runner cannot run it). */
  async release(id: string, runner: string, why: string): Promise<Task | null> {
    return this.withLock(() => {
      const t = this.read(id);
      if (!t || t.status !== 'running' || t.owner?.runner !== runner) return null;
      const next: Task = { ...t, status: 'pending', error: why, runs: Math.max(0, t.runs - 1), owner: undefined, leaseExpiresAt: undefined };
      this.write(next);
      return next;
    });
  }

  async cancel(id: string): Promise<Task> {
    return this.withLock(() => {
      const t = this.read(id);
      if (!t) throw new Error(`no task ${id}`);
      if (t.status === 'pending') {
        const next: Task = { ...t, status: 'cancelled', completedAt: this.now().toISOString() };
        this.write(next);
        return next;
      }
      if (t.status === 'running') {
        const next = { ...t, cancelRequested: true };
        this.write(next);
        return next;
      }
      throw new Error(`task ${id} is already ${t.status}`);
    });
  }

  async retry(id: string): Promise<Task> {
    return this.withLock(() => {
      const t = this.read(id);
      if (!t) throw new Error(`no task ${id}`);
      const next = retriedTask(t);
      this.write(next);
      return next;
    });
  }
}
