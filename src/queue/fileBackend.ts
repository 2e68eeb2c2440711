// The file queue (.devx/agents/, taskQueue.ts) behind the queue seam (queueBackend.ts): the default.
// Plans and transcripts are files in the project; the runner works in the same checkout that queued
// the task, so its changes are simply there.
import fs from 'node:fs';
import path from 'node:path';
import { TaskQueue } from './taskQueue.js';
import type { Task } from './taskSchema.js';
import type { NewTask, QueueBackend, RunArtifacts, TaskResult } from './queueBackend.js';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';

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
    const done = await this.queue.finish(id, runner, result);
    if (done && artifacts.logLine) this.appendLog(done, artifacts.logLine);
    return done;
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
  async preparePlan(): Promise<void> {
    /* written when the task was queued */
  }
  appendLog(t: Task, line: string): void {
    const file = path.join(this.root, t.logFile);
    mkdirOwnedSync(path.dirname(file));
    appendOwnedSync(file, `${line}\n`);
  }
  async readLog(id: string): Promise<{ task: Task; plan: string; log: string } | null> {
    const task = this.queue.read(id);
    if (!task) return null;
    const text = (rel: string) => {
      try {
        return fs.readFileSync(path.join(this.root, rel), 'utf8');
      } catch {
        return '';
      }
    };
    return { task, plan: text(task.planFile), log: text(task.logFile) };
  }
  async close(): Promise<void> {}
}
