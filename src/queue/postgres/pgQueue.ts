// The task queue in PostgreSQL (#33), chosen by `"queue": "postgres://…"` in settings or DEVX_QUEUE_URL.
// Same tasks, statuses and counts as the file queue (taskQueue.ts), shared by runners on any machine:
// a claim takes the oldest runnable pending row with SELECT … FOR UPDATE SKIP LOCKED in a transaction and
// records a lease (`lease_until`, from the database's clock) that the runner renews every third of it;
// a task whose lease expired, or whose runner on this host died, goes back to pending and counts a runner
// death (or an attempt) as queueRecovery.ts decides. Plans, transcripts and patches are stored with the
// task, so `devx agent log <id>` reads them from any machine. Transient failures (the server restarting)
// are retried for a while; the URL's password never appears in a message.
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import type { Task } from '../taskSchema.js';
import { retriedTask } from '../queueRecovery.js';
import type { NewTask, QueueBackend, RunArtifacts, TaskResult } from '../queueBackend.js';
import { openPool, redactError, redactUrl, withRetry } from './pgConnect.js';
import { checkSchema, SchemaError } from './pgMigrations.js';
import { dbNow, insertTask, parseTask, queueDeaths, readTask, recoverGone, taskOf, writeTask } from './pgTaskRows.js';
import { inTransaction } from './pgConnect.js';
import { pidSpace } from './pidSpace.js';
import { writeFileAtomicSync } from '../../util/atomicWrite.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';

const OWN_FAILURES = new Set(['failed', 'blocked', 'incomplete']);
/** How long a claim or a result waits out a database that is away (a restart). */
const RETRY_MS = 60_000;

export class PgQueue implements QueueBackend {
  readonly kind = 'postgres' as const;
  readonly remote = true;
  readonly where: string;
  readonly workspace: string;
  private chain: Promise<unknown> = Promise.resolve();
  private pendingLines: [string, string][] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly root: string,
    private readonly pool: Pool,
    private readonly url: string,
  ) {
    this.where = redactUrl(url);
    this.workspace = path.join(root, '.devx', 'agents', 'workspace');
  }

  /** Connects and checks the schema (SchemaError: not migrated, or newer than this devx). */
  static async open(root: string, url: string): Promise<PgQueue> {
    const pool = await openPool(url);
    const q = new PgQueue(root, pool, url);
    try {
      await withRetry(() => checkSchema(pool, q.where), 5_000);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err instanceof SchemaError ? err : redactError(err, url);
    }
    return q;
  }

  /** Runs `fn`, retrying transient failures, with the URL's secrets kept out of any error. */
  private async run<T>(fn: () => Promise<T>, ms = RETRY_MS): Promise<T> {
    try {
      return await withRetry(fn, ms);
    } catch (err) {
      throw redactError(err, this.url);
    }
  }

  private tx<T>(fn: Parameters<typeof inTransaction<T>>[1], ms = RETRY_MS): Promise<T> {
    return this.run(() => inTransaction(this.pool, fn), ms);
  }

  async start(n: NewTask): Promise<Task> {
    return this.tx(async (c) => {
      const now = await dbNow(c);
      const taskId = `task_${now.getTime()}${crypto.randomBytes(2).toString('hex')}`;
      const task: Task = {
        taskId,
        status: 'pending',
        agent: n.agent,
        prompt: n.prompt,
        planFile: `.devx/agents/plans/${taskId}_plan.md`,
        logFile: `.devx/agents/logs/${taskId}.log`,
        createdAt: now.toISOString(),
        attempts: 0,
        runnerDeaths: 0,
        runs: 0,
        ...(n.writes?.length ? { writes: n.writes } : {}),
        ...(n.after ? { after: n.after } : {}),
        ...(n.revision ? { revision: n.revision } : {}),
      };
      await insertTask(c, task, `# Plan for ${n.agent} - ${n.prompt}\n`);
      return task;
    }, 10_000);
  }

  read(id: string): Promise<Task | null> {
    return this.run(() => readTask(this.pool, id), 10_000);
  }

  list(): Promise<Task[]> {
    return this.run(
      async () =>
        (await this.pool.query<{ data: unknown }>('SELECT data FROM devx_tasks ORDER BY created_at, task_id')).rows
          .map((r) => parseTask(r.data))
          .filter((t): t is Task => t !== null),
      10_000,
    );
  }

  recover(): Promise<Task[]> {
    return this.tx(async (c) => recoverGone(c, await dbNow(c)));
  }

  claim(runner: string, leaseMs: number, skip: ReadonlySet<string> = new Set()): Promise<Task | null> {
    return this.tx(async (c) => {
      const now = await dbNow(c);
      await recoverGone(c, now);
      let next: Task | null = null;
      while (!next) {
        const r = await c.query<{ task_id: string; data: unknown }>(
          `SELECT t.task_id, t.data FROM devx_tasks t
            WHERE t.status = 'pending' AND NOT (t.task_id = ANY($1))
              AND (t.after_id IS NULL OR EXISTS (SELECT 1 FROM devx_tasks p WHERE p.task_id = t.after_id AND p.status = 'complete'))
            ORDER BY t.created_at, t.task_id LIMIT 1 FOR UPDATE OF t SKIP LOCKED`,
          [[...skip]],
        );
        if (!r.rows[0]) return null;
        next = parseTask(r.rows[0].data);
        // A row that is not a task (written by hand, or by something else) is set aside, not run, and does not stop the queue.
        if (!next) await c.query(`UPDATE devx_tasks SET status = 'failed' WHERE task_id = $1`, [r.rows[0].task_id]);
      }
      const claimed: Task = {
        ...next,
        status: 'running',
        startedAt: now.toISOString(),
        owner: { pid: process.pid, host: os.hostname(), runner, space: pidSpace() },
        leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString(),
        runs: next.runs + 1,
        queueDeathsAtFirstRun: next.queueDeathsAtFirstRun ?? (await queueDeaths(c, false)),
      };
      await writeTask(c, claimed);
      return claimed;
    });
  }

  /** One statement: the lease from the database's clock, only while this runner holds the task. */
  async heartbeat(id: string, runner: string, leaseMs: number): Promise<Task | null> {
    try {
      const r = await this.pool.query<{ data: unknown }>(
        `UPDATE devx_tasks t SET lease_until = x.l,
                data = t.data || jsonb_build_object('leaseExpiresAt', to_char(x.l AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           FROM (SELECT clock_timestamp() + $3 * interval '1 millisecond' AS l) x
          WHERE t.task_id = $1 AND t.status = 'running' AND t.owner_runner = $2
          RETURNING t.data`,
        [id, runner, leaseMs],
      );
      return r.rows[0] ? taskOf(r.rows[0].data) : await readTask(this.pool, id);
    } catch (err) {
      throw redactError(err, this.url);
    }
  }

  async finish(id: string, runner: string, result: TaskResult, artifacts: RunArtifacts = {}): Promise<Task | null> {
    await this.flushLog(); // the transcript's lines land before the result
    return this.tx(async (c) => {
      const t = await readTask(c, id, true);
      if (!t || t.owner?.runner !== runner) return null; // lost the task (recovered by another runner)
      const now = await dbNow(c);
      const next: Task = {
        ...t,
        ...result,
        ...(artifacts.patch ? { hasPatch: true } : {}),
        attempts: t.attempts + (OWN_FAILURES.has(result.status) ? 1 : 0),
        completedAt: now.toISOString(),
        owner: undefined,
        leaseExpiresAt: undefined,
      };
      await writeTask(c, next);
      await c.query('UPDATE devx_tasks SET plan = COALESCE($2, plan), patch = $3 WHERE task_id = $1', [id, artifacts.plan ?? null, artifacts.patch ?? null]);
      if (artifacts.logLine) await c.query('INSERT INTO devx_task_logs (task_id, line) VALUES ($1, $2)', [id, artifacts.logLine]);
      return next;
    });
  }

  release(id: string, runner: string, why: string): Promise<Task | null> {
    return this.tx(async (c) => {
      const t = await readTask(c, id, true);
      if (!t || t.status !== 'running' || t.owner?.runner !== runner) return null;
      const next: Task = { ...t, status: 'pending', error: why, runs: Math.max(0, t.runs - 1), owner: undefined, leaseExpiresAt: undefined };
      await writeTask(c, next);
      return next;
    });
  }

  cancel(id: string): Promise<Task> {
    return this.tx(async (c) => {
      const t = await readTask(c, id, true);
      if (!t) throw new Error(`no task ${id}`);
      let next: Task;
      if (t.status === 'pending') next = { ...t, status: 'cancelled', completedAt: (await dbNow(c)).toISOString() };
      else if (t.status === 'running') next = { ...t, cancelRequested: true };
      else throw new Error(`task ${id} is already ${t.status}`);
      await writeTask(c, next);
      return next;
    }, 10_000);
  }

  retry(id: string): Promise<Task> {
    return this.tx(async (c) => {
      const t = await readTask(c, id, true);
      if (!t) throw new Error(`no task ${id}`);
      const next = retriedTask(t);
      await writeTask(c, next);
      return next;
    }, 10_000);
  }

  /** Queued one after another, so the last list of children is the one stored. */
  private later(fn: () => Promise<unknown>): void {
    this.chain = this.chain.then(() => withRetry(fn, 10_000)).catch(() => {});
  }

  trackChildren(pid: number, children: number[]): void {
    this.later(() =>
      this.pool.query('INSERT INTO devx_runners (host, pid, children) VALUES ($1, $2, $3) ON CONFLICT (host, pid) DO UPDATE SET children = EXCLUDED.children', [
        pidSpace(),
        pid,
        children,
      ]),
    );
  }

  /** The plan as stored, written into this checkout where the agent reads and updates it. */
  async preparePlan(t: Task): Promise<void> {
    const r = await this.run(() => this.pool.query<{ plan: string }>('SELECT plan FROM devx_tasks WHERE task_id = $1', [t.taskId]), 10_000);
    const file = path.join(this.root, t.planFile);
    mkdirOwnedSync(path.dirname(file));
    writeFileAtomicSync(file, r.rows[0]?.plan ?? '');
  }

  /** Transcript lines are written in batches (every half second, and before a result): one INSERT for many. */
  appendLog(t: Task, line: string): void {
    this.pendingLines.push([t.taskId, line]);
    this.flushTimer ??= setTimeout(() => this.flushLog(), 500).unref();
  }

  private flushLog(): Promise<unknown> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const lines = this.pendingLines.splice(0);
    if (lines.length)
      this.later(() =>
        this.pool.query('INSERT INTO devx_task_logs (task_id, line) SELECT t, l FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(t, l, n) ORDER BY n', [
          lines.map((l) => l[0]),
          lines.map((l) => l[1]),
        ]),
      );
    return this.chain;
  }

  async readLog(id: string): Promise<{ task: Task; plan: string; log: string; patch?: string } | null> {
    await this.flushLog();
    return this.run(async () => {
      const r = await this.pool.query<{ data: unknown; plan: string; patch: string | null }>('SELECT data, plan, patch FROM devx_tasks WHERE task_id = $1', [
        id,
      ]);
      if (!r.rows[0]) return null;
      const lines = await this.pool.query<{ line: string }>('SELECT line FROM devx_task_logs WHERE task_id = $1 ORDER BY id', [id]);
      return {
        task: taskOf(r.rows[0].data),
        plan: r.rows[0].plan,
        log: lines.rows.map((l) => `${l.line}\n`).join(''),
        ...(r.rows[0].patch ? { patch: r.rows[0].patch } : {}),
      };
    }, 10_000);
  }

  async close(): Promise<void> {
    await this.flushLog();
    await this.pool.end().catch(() => {});
  }
}
