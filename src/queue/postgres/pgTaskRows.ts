// Reading and writing task rows, and recovering tasks whose runner is gone, inside a transaction of
// the Postgres queue (pgQueue.ts). A row keeps the whole Task as JSON (`data`, the same record the file
// queue keeps in a file) and mirrors the fields queries use in columns. Times come from the database's
// clock, so runners on machines whose clocks differ agree on leases.
import type { PoolClient } from 'pg';
import { TaskSchema, type Task } from '../taskSchema.js';
import { afterRunnerGone } from '../queueRecovery.js';
import { isAlive } from '../../session/sessionLock.js';
import { reapGroups } from '../../util/reapGroups.js';
import { pidSpace } from './pidSpace.js';

type Q = Pick<PoolClient, 'query'>;

export async function dbNow(c: Q): Promise<Date> {
  return (await c.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now;
}

export function taskOf(data: unknown): Task {
  return TaskSchema.parse(data);
}

/** The task a row holds; null for a row that is not a task (written by something other than devx). */
export function parseTask(data: unknown): Task | null {
  const r = TaskSchema.safeParse(data);
  return r.success ? r.data : null;
}

export async function readTask(c: Q, id: string, lock = false): Promise<Task | null> {
  const r = await c.query<{ data: unknown }>(`SELECT data FROM devx_tasks WHERE task_id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ? taskOf(r.rows[0].data) : null;
}

/** JSON without undefined fields (jsonb keeps what JSON.stringify writes). */
const json = (t: Task) => JSON.stringify(t);

export async function insertTask(c: Q, t: Task, plan: string): Promise<void> {
  await c.query('INSERT INTO devx_tasks (task_id, status, created_at, after_id, data, plan) VALUES ($1, $2, $3, $4, $5, $6)', [
    t.taskId,
    t.status,
    t.createdAt,
    t.after ?? null,
    json(t),
    plan,
  ]);
}

export async function writeTask(c: Q, t: Task): Promise<void> {
  await c.query('UPDATE devx_tasks SET status = $2, lease_until = $3, owner_host = $4, owner_pid = $5, owner_runner = $6, data = $7 WHERE task_id = $1', [
    t.taskId,
    t.status,
    t.leaseExpiresAt ?? null,
    t.owner ? (t.owner.space ?? t.owner.host) : null,
    t.owner?.pid ?? null,
    t.owner?.runner ?? null,
    json(t),
  ]);
}

export async function queueDeaths(c: Q, add: boolean): Promise<number> {
  const r = add
    ? await c.query<{ n: number }>('UPDATE devx_queue_stats SET runner_deaths = runner_deaths + 1 WHERE id = 1 RETURNING runner_deaths AS n')
    : await c.query<{ n: number }>('SELECT runner_deaths AS n FROM devx_queue_stats WHERE id = 1');
  return r.rows[0]?.n ?? 0;
}

/** Stops the process groups a dead runner on this host left (its gemini processes). */
async function reapRunner(c: Q, pid: number): Promise<void> {
  const r = await c.query<{ children: number[] }>('SELECT children FROM devx_runners WHERE host = $1 AND pid = $2', [pidSpace(), pid]);
  if (r.rows[0]?.children.length) reapGroups(r.rows[0].children, pid);
  await c.query(`UPDATE devx_runners SET children = '{}' WHERE host = $1 AND pid = $2`, [pidSpace(), pid]);
}

/**
 * Puts running tasks whose runner is gone (a dead PID on this host, or a lease that expired) back to
 * pending, or fails them, as the file queue does (queueRecovery.ts). Rows another transaction holds
 * are skipped (SKIP LOCKED): their runner is renewing them, or another runner is recovering them.
 */
export async function recoverGone(c: Q, now: Date): Promise<Task[]> {
  // owner_host holds the runner's PID space: only a runner in this one is judged by its PID.
  const host = pidSpace();
  const cands = await c.query<{ task_id: string; owner_host: string | null; owner_pid: number | null; expired: boolean }>(
    `SELECT task_id, owner_host, owner_pid, lease_until < $1 AS expired FROM devx_tasks WHERE status = 'running' AND (lease_until < $1 OR owner_host = $2)`,
    [now, host],
  );
  const gone = cands.rows.filter((r) => r.expired || (r.owner_host === host && r.owner_pid !== null && !isAlive(r.owner_pid))).map((r) => r.task_id);
  if (!gone.length) return [];
  const locked = await c.query<{ data: unknown }>(`SELECT data FROM devx_tasks WHERE task_id = ANY($1) AND status = 'running' FOR UPDATE SKIP LOCKED`, [gone]);
  const recovered: Task[] = [];
  for (const row of locked.rows) {
    const t = parseTask(row.data);
    if (!t) continue; // not a task devx wrote: left alone
    const expired = t.leaseExpiresAt !== undefined && Date.parse(t.leaseExpiresAt) < now.getTime();
    const local = t.owner !== undefined && (t.owner.space ?? t.owner.host) === host;
    const dead = local && !isAlive(t.owner!.pid);
    if (!expired && !dead) continue; // renewed meanwhile
    const reason = dead ? `its runner (pid ${t.owner!.pid}) died` : `its runner's lease expired at ${t.leaseExpiresAt}`;
    if (dead) await reapRunner(c, t.owner!.pid);
    // A runner elsewhere whose lease expired is counted as gone; one stuck under a live process here is the task's own failure.
    const deaths = await queueDeaths(c, dead || !local);
    const next = afterRunnerGone(t, { dead, local, reason, now: now.toISOString(), queueDeaths: deaths });
    await writeTask(c, next);
    recovered.push(next);
  }
  return recovered;
}
