// The file queue (.devx/agents/, taskQueue.ts) behind the queue seam (queueBackend.ts): the default.
// Plans, transcripts and patches are files in the project. The runner works from the checkout that
// queued the task: in a worktree of its own (its plan copied in, and back with the result; its changes
// kept as .devx/agents/patches/<id>.patch and applied to the checkout), or, without git, in the checkout.
import fs from 'node:fs';
import path from 'node:path';
import { TaskQueue } from './taskQueue.js';
import type { Task } from './taskSchema.js';
import type { NewTask, QueueBackend, RunArtifacts, TaskResult } from './queueBackend.js';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';

export class FileBackend implements QueueBackend {
  readonly kind = 'file' as const;
  readonly remote = false;
  readonly queue: TaskQueue;

  constructor(root: string, now?: () => Date) {
    this.queue = new TaskQueue(root, now);
  }

  get root(): string {
    return this.queue.root;
  }
  get workspace(): string {
    return this.queue.workspace;
  }
  get where(): string {
    return path.relative(this.root, this.queue.base) || '.';
  }

  start(t: NewTask): Promise<Task> {
    return this.queue.start(t.agent, t.prompt, t.after, t.writes ?? [], t.revision);
  }
  async read(id: string): Promise<Task | null> {
    return this.queue.read(id);
  }
  async list(): Promise<Task[]> {
    return this.queue.list();
  }
  recover(): Promise<Task[]> {
    return this.queue.recover();
  }
  claim(runner: string, leaseMs: number, skip?: ReadonlySet<string>): Promise<Task | null> {
    return this.queue.claim(runner, leaseMs, skip);
  }
  heartbeat(id: string, runner: string, leaseMs: number): Promise<Task | null> {
    return this.queue.heartbeat(id, runner, leaseMs);
  }
  async finish(id: string, runner: string, result: TaskResult, artifacts: RunArtifacts = {}): Promise<Task | null> {
    const done = await this.queue.finish(id, runner, artifacts.patch ? { ...result, hasPatch: true } : result);
    if (!done) return null;
    if (artifacts.plan !== undefined) writeFileAtomicSync(path.join(this.root, done.planFile), artifacts.plan);
    if (artifacts.patch) writeFileAtomicSync(this.patchFile(id), artifacts.patch);
    if (artifacts.logLine) this.appendLog(done, artifacts.logLine);
    return done;
  }

  private patchFile(id: string): string {
    mkdirOwnedSync(path.join(this.queue.base, 'patches'));
    return path.join(this.queue.base, 'patches', `${id}.patch`);
  }
  release(id: string, runner: string, why: string): Promise<Task | null> {
    return this.queue.release(id, runner, why);
  }
  cancel(id: string): Promise<Task> {
    return this.queue.cancel(id);
  }
  retry(id: string): Promise<Task> {
    return this.queue.retry(id);
  }
  trackChildren(pid: number, children: number[]): void {
    this.queue.trackChildren(pid, children);
  }
  /** Written when the task was queued; a worktree gets a copy. */
  async preparePlan(t: Task, root: string): Promise<void> {
    if (root === this.root) return;
    const plan = readTextOrNull(path.join(this.root, t.planFile), READ_LIMITS.state) ?? '';
    mkdirOwnedSync(path.dirname(path.join(root, t.planFile)));
    writeFileAtomicSync(path.join(root, t.planFile), plan);
  }
  appendLog(t: Task, line: string): void {
    const file = path.join(this.root, t.logFile);
    mkdirOwnedSync(path.dirname(file));
    appendOwnedSync(file, `${line}\n`);
  }
  async readLog(id: string): Promise<{ task: Task; plan: string; log: string; patch?: string } | null> {
    const task = this.queue.read(id);
    if (!task) return null;
    const text = (rel: string) => {
      try {
        return fs.readFileSync(path.join(this.root, rel), 'utf8');
      } catch {
        return '';
      }
    };
    const patch = task.hasPatch ? text(path.relative(this.root, this.patchFile(id))) : '';
    return { task, plan: text(task.planFile), log: text(task.logFile), ...(patch ? { patch } : {}) };
  }
  async close(): Promise<void> {}
}
