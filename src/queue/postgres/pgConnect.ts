// Connecting to the queue's database. We use node-postgres (`pg`) directly rather than pg-boss: pg-boss
// brings its own job states (created, retry, active, completed, expired, cancelled, failed) and its own
// retry and expiry accounting, which do not map onto devx's statuses (complete, incomplete, blocked, ...),
// its `attempts` (the task's own failures) and its runner-death accounting (queueRecovery.ts), which the
// Postgres queue must keep exactly as the file queue does. `pg` is loaded on first use (a dynamic import),
// so a devx whose queue is the file queue never loads it. The URL's password never reaches a message:
// every error that leaves this folder goes through redactError.
import type { Pool, PoolClient } from 'pg';

/** The URL with its password (and any password= parameter) replaced by ***. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString().replace('%2A%2A%2A', '***');
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** The secrets a URL holds (its password, decoded and as written), to strip from any text. */
function secretsOf(url: string): string[] {
  try {
    const u = new URL(url);
    const out = [u.password, decodeURIComponent(u.password), ...[...u.searchParams.entries()].filter(([k]) => /pass/i.test(k)).map(([, v]) => v)];
    return [...new Set(out.filter((s) => s.length >= 1))];
  } catch {
    return [];
  }
}

/** Removes the URL and its password from a message. */
export function redactText(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  for (const s of secretsOf(url)) out = out.split(s).join('***');
  return out;
}

export class QueueDbError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'QueueDbError';
  }
}

/** An error with the URL's secrets removed (pg's own messages can quote a connection string). */
export function redactError(err: unknown, url: string): QueueDbError {
  const e = err as { message?: string; code?: string };
  return new QueueDbError(redactText(e?.message ?? String(err), url), e?.code);
}

const RETRYABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  '40001',
  '40P01',
]);

/** A failure that a reconnect may cure: the server restarting, a dropped connection, a serialization conflict. */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code && RETRYABLE_CODES.has(e.code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection/i.test(
    e?.message ?? '',
  );
}

/** Runs `fn` again on transient failures for up to `ms` (a server restart takes a few seconds). */
export async function withRetry<T>(fn: () => Promise<T>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isTransient(err) || Date.now() + wait > end) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** A pool for the URL; pg handles `sslmode`, `sslrootcert` and the other libpq parameters in it. */
export async function openPool(url: string, max = 4): Promise<Pool> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, application_name: 'devx' } as never);
  // A connection the server drops (a restart) emits 'error' on its client: without a listener that would end devx.
  pool.on('error', () => {});
  pool.on('connect', (c) => c.on('error', () => {}));
  return pool;
}

/** Runs `fn` in a transaction on one connection of the pool. */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    broken = err as Error;
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release(broken && isTransient(broken) ? broken : undefined);
  }
}
