// Connecting to the queue's database. We use node-postgres (`pg`) directly rather than pg-boss: pg-boss
// brings its own job states (created, retry, active, completed, expired, cancelled, failed) and its own
// retry and expiry accounting, which do not map onto devx's statuses (complete, incomplete, blocked, ...),
// its `attempts` (the task's own failures) and its runner-death accounting (queueRecovery.ts), which the
// Postgres queue must keep exactly as the file queue does. `pg` is loaded on first use (a dynamic import),
// so a devx whose queue is the file queue never loads it. The URL's password never reaches a message:
// every error that leaves this folder goes through redactError.
import type { Pool, PoolClient } from 'pg';
import { tlsPlan, type TlsOption } from './tls.js';

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

/** The user and host:port a URL names, for messages. */
function whoAndWhere(url: string): { user: string; where: string } {
  try {
    const u = new URL(url);
    return { user: decodeURIComponent(u.username) || process.env.PGUSER || 'the current user', where: `${u.hostname || 'localhost'}:${u.port || '5432'}` };
  } catch {
    return { user: 'the role', where: 'the server' };
  }
}

const PASSWORD_HELP = 'set PGPASSWORD (or a line in ~/.pgpass), or put the password in the URL (settings\' "queue" key, or DEVX_QUEUE_URL)';

/** What a connection or role failure means, in devx's words; null for one whose own message says it. */
export function explainDbError(err: unknown, url: string): string | null {
  const e = err as { message?: string; code?: string };
  const msg = e?.message ?? '';
  const { user, where } = whoAndWhere(url);
  if (/client password must be a string|SASL: .*password|no password (was )?supplied/i.test(msg))
    return `the queue database at ${where} asks ${user} for a password and none was given: ${PASSWORD_HELP}`;
  if (e?.code === '28P01') return `the queue database at ${where} refused the password of ${user} (${msg}): check PGPASSWORD, ~/.pgpass or the URL's password`;
  if (/timeout expired|connection timeout|Connection terminated due to connection timeout/i.test(msg))
    return `could not connect to the queue database at ${where} within ${CONNECT_TIMEOUT_MS / 1000} s: is the server running, and reachable from here?`;
  if (e?.code === 'ECONNREFUSED') return `nothing accepts connections at ${where} (ECONNREFUSED): is the queue's PostgreSQL server running there?`;
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return `the queue database's host in ${where} was not found (${e.code})`;
  if (/does not support SSL/i.test(msg))
    return `the server at ${where} does not offer TLS, and the URL's sslmode requires it (sslmode=prefer falls back to plain)`;
  if (/no encryption/i.test(msg)) return `the server at ${where} accepts only encrypted connections (${msg}): use sslmode=require or stricter`;
  if (/self[- ]signed|unable to verify|unable to get local issuer/i.test(msg))
    return `the server's certificate at ${where} is not signed by a CA devx knows (${msg}): give the CA as sslrootcert=<file>, or use sslmode=require to encrypt without checking it`;
  if (/Hostname\/IP does not match|altnames/i.test(msg))
    return `the server's certificate does not name ${where} (${msg}): use the host it names, or sslmode=verify-ca`;
  if (e?.code === '3D000') return `${msg} at ${where}: create it (CREATE DATABASE), or fix the URL`;
  return null;
}

/** An error in devx's words, with the URL's secrets removed (pg's own messages can quote a connection string). */
export function redactError(err: unknown, url: string): QueueDbError {
  const e = err as { message?: string; code?: string };
  if (err instanceof QueueDbError) return err;
  return new QueueDbError(redactText(explainDbError(err, url) ?? e?.message ?? String(err), url), e?.code);
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
  // No password, a refused one: trying again changes nothing.
  if (/password|SASL/i.test(e?.message ?? '')) return false;
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

/** How long connecting may take before devx says the server cannot be reached. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** A pool for the URL, TLS as its `sslmode` says (tls.ts: libpq's meanings); `prefer` and `allow` try once and keep what worked. */
export async function openPool(url: string, max = 4): Promise<Pool> {
  const pg = (await import('pg')).default;
  const plan = tlsPlan(url);
  const make = (ssl: TlsOption) => {
    const pool = new pg.Pool({
      connectionString: plan.connectionString,
      ssl,
      max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
      application_name: 'devx',
    } as never);
    // A connection the server drops (a restart) emits 'error' on its client: without a listener that would end devx.
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    return pool;
  };
  if (plan.fallback === undefined) return make(plan.first);
  const first = make(plan.first);
  try {
    (await first.connect()).release();
    return first;
  } catch (err) {
    await first.end().catch(() => {});
    if (!plan.retryWhen(err)) throw err;
    return make(plan.fallback);
  }
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
