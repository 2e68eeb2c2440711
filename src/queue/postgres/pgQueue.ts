// The task queue in PostgreSQL, chosen by `"queue": "postgres://…"` in settings or DEVX_QUEUE_URL.
// Same tasks, statuses and counts as the file queue (taskQueue.ts), shared by runners on any machine:
// a claim takes the oldest runnable pending row with SELECT … FOR UPDATE SKIP LOCKED and records a lease
// (`lease_until`, from the database's clock) that the runner renews every third of it, in one statement
// (pgStatements.ts), as is a result; a task whose lease expired, or whose runner on this host died, goes
// back to pending and counts a runner death (or an attempt) as queueRecovery.ts decides. Plans, transcripts and patches are stored with the
// task, so `devx agent log <id>` reads them from any machine. Transient failures (the server restarting)
// are retried for a while; the URL's password never appears in a message.
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import type { Task } from '../taskSchema.js';
import { retriedTask } from '../queueRecovery.js';
import type { NewTask, QueueBackend, RunArtifacts, TaskResult } from '../queueBackend.js';
import { inTransaction, openPool, redactError, redactUrl, withRetry } from './pgConnect.js';
import { checkSchema, SchemaError } from './pgMigrations.js';
import { dbNow, insertTask, parseTask, readTask, recoverGone, taskOf, writeTask } from './pgTaskRows.js';
import { isAlive } from '../../session/sessionLock.js';
import { pidSpace } from './pidSpace.js';
import { CLAIM_SQL, FINISH_SQL } from './pgStatements.js';
import { writeStateSync } from '../../util/atomicWrite.js';
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
  /** Plans that came with a claim, so preparing the plan costs no second query. */
  private readonly plans = new Map<string, string>();

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

  /**
   * One statement: takes the oldest runnable pending row (FOR UPDATE SKIP LOCKED), marks it running with a
   * lease from the database's clock, and returns it with its plan and the running tasks that may need
   * recovery (a lease expired, or a runner in this PID space). Only when one of those is really gone
   * (queueRecovery.ts) does recovery's own transaction run, and the claim is tried again.
   */
  async claim(runner: string, leaseMs: number, skip: ReadonlySet<string> = new Set()): Promise<Task | null> {
    const space = pidSpace();
    const owner = JSON.stringify({ pid: process.pid, host: os.hostname(), runner, space });
    for (let recoveries = 0; ;) {
      const r = await this.run(() =>
        this.pool.query<{
          task_id: string | null;
          data: unknown;
          plan: string | null;
          suspects: { host: string | null; pid: number | null; expired: boolean }[] | null;
        }>(CLAIM_SQL, [[...skip], leaseMs, space, process.pid, runner, owner]),
      );
      const row = r.rows[0];
      const gone = (row.suspects ?? []).some((s) => s.expired || (s.host === space && s.pid !== null && !isAlive(s.pid)));
      if (gone) {
        recoveries++;
        await this.recover();
      }
      if (row.task_id) {
        const task = parseTask(row.data);
        if (task) {
          this.plans.set(task.taskId, row.plan ?? '');
          return task;
        }
        // A row that is not a task (written by hand, or by something else) is set aside, not run, and does not stop the queue.
        await this.run(() =>
          this.pool.query(`UPDATE devx_tasks SET status = 'failed', owner_runner = NULL, lease_until = NULL WHERE task_id = $1`, [row.task_id]),
        );
        continue;
      }
      // Nothing pending: try again only after a recovery put something back (a few times: others may be recovering too).
      if (!gone || recoveries > 3) return null;
    }
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

  /**
   * One statement: the result merged into the row only while this runner holds it, with the transcript's
   * pending lines (always) and its last line (only with the result) in the order they were written.
   */
  async finish(id: string, runner: string, result: TaskResult, artifacts: RunArtifacts = {}): Promise<Task | null> {
    this.plans.delete(id);
    const lines = this.takeLines();
    await this.chain; // earlier batches land first
    const fields: Record<string, unknown> = { ...result, ...(artifacts.patch ? { hasPatch: true } : {}) };
    // A field the result names as undefined is removed, as spreading it over the task would.
    const drop = ['owner', 'leaseExpiresAt', ...Object.keys(fields).filter((k) => fields[k] === undefined)];
    const failed = OWN_FAILURES.has(result.status) ? 1 : 0;
    const r = await this.run(() =>
      this.pool.query<{ data: unknown }>(FINISH_SQL, [
        id,
        runner,
        result.status,
        JSON.stringify(fields),
        drop,
        failed,
        artifacts.plan ?? null,
        artifacts.patch ?? null,
        lines.map((l) => l[0]),
        lines.map((l) => l[1]),
        artifacts.logLine ?? null,
      ]),
    );
    return r.rows[0] ? taskOf(r.rows[0].data) : null;
  }

  release(id: string, runner: string, why: string): Promise<Task | null> {
    this.plans.delete(id);
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
  async preparePlan(t: Task, root: string): Promise<void> {
    let plan = this.plans.get(t.taskId);
    this.plans.delete(t.taskId);
    if (plan === undefined) {
      const r = await this.run(() => this.pool.query<{ plan: string }>('SELECT plan FROM devx_tasks WHERE task_id = $1', [t.taskId]), 10_000);
      plan = r.rows[0]?.plan ?? '';
    }
    const file = path.join(root, t.planFile);
    mkdirOwnedSync(path.dirname(file));
    // A working copy (the database holds the plan): replaced atomically, without waiting for the disk.
    writeStateSync(file, plan);
  }

  /** Transcript lines are written in batches (every half second, and before a result): one INSERT for many. */
  appendLog(t: Task, line: string): void {
    this.pendingLines.push([t.taskId, line]);
    this.flushTimer ??= setTimeout(() => this.flushLog(), 500).unref();
  }

  /** The transcript lines not yet written, taken (the batch timer stopped). */
  private takeLines(): [string, string][] {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    return this.pendingLines.splice(0);
  }

  private flushLog(): Promise<unknown> {
    const lines = this.takeLines();
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
