// The Postgres queue's schema, in numbered migrations recorded in devx_schema_version. `devx queue
// migrate` applies the missing ones (under an advisory lock, each in its own transaction); every other
// use checks the version first: an unmigrated database is told to run `devx queue migrate`, and a
// schema newer than this devx is refused (a newer devx migrated it; this one may not understand it).
import type { Pool } from 'pg';
import { inTransaction, QueueDbError } from './pgConnect.js';

export const MIGRATIONS: { version: number; summary: string; sql: string }[] = [
  {
    version: 1,
    summary: 'tasks, their transcripts, runners and the queue-wide runner-death count',
    sql: `
CREATE TABLE devx_tasks (
  task_id      text PRIMARY KEY,
  status       text NOT NULL,
  created_at   timestamptz NOT NULL,
  after_id     text,
  lease_until  timestamptz,
  owner_host   text,          -- the runner's PID space (host name, boot id, PID namespace)
  owner_pid    integer,
  owner_runner text,
  data         jsonb NOT NULL,
  plan         text NOT NULL DEFAULT '',
  patch        text
);
CREATE INDEX devx_tasks_pending ON devx_tasks (created_at, task_id) WHERE status = 'pending';
CREATE INDEX devx_tasks_running ON devx_tasks (lease_until) WHERE status = 'running';
CREATE TABLE devx_task_logs (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  task_id text NOT NULL,
  at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  line    text NOT NULL
);
CREATE INDEX devx_task_logs_task ON devx_task_logs (task_id, id);
CREATE TABLE devx_runners (
  host     text NOT NULL,     -- the runner's PID space
  pid      integer NOT NULL,
  children integer[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (host, pid)
);
CREATE TABLE devx_queue_stats (
  id            integer PRIMARY KEY CHECK (id = 1),
  runner_deaths integer NOT NULL DEFAULT 0
);
INSERT INTO devx_queue_stats (id, runner_deaths) VALUES (1, 0);
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export class SchemaError extends QueueDbError {
  constructor(
    message: string,
    readonly found: number | null,
  ) {
    super(message);
    this.name = 'SchemaError';
  }
}

/** The version the database is at; null when devx never migrated it. */
export async function schemaVersion(pool: Pool): Promise<number | null> {
  try {
    const r = await pool.query<{ v: number | null }>('SELECT max(version) AS v FROM devx_schema_version');
    return r.rows[0]?.v ?? 0;
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return null; // undefined_table
    throw err;
  }
}

/** Refuses a database that is not at this devx's schema, saying what to do. */
export async function checkSchema(pool: Pool, where: string): Promise<void> {
  const v = await schemaVersion(pool);
  if (v === null || v === 0)
    throw new SchemaError(`the queue database ${where} has no devx tables yet: run \`devx queue migrate\` (once, with a role that may create tables)`, v);
  if (v < SCHEMA_VERSION)
    throw new SchemaError(`the queue database ${where} is at schema version ${v}; this devx needs ${SCHEMA_VERSION}: run \`devx queue migrate\``, v);
  if (v > SCHEMA_VERSION)
    throw new SchemaError(
      `the queue database ${where} is at schema version ${v}, newer than this devx knows (${SCHEMA_VERSION}): a newer devx migrated it; upgrade devx on this machine`,
      v,
    );
}

/** Applies the missing migrations; returns the versions applied. */
export async function migrate(pool: Pool, devxVersion: string): Promise<{ from: number; applied: number[] }> {
  return inTransaction(pool, async (c) => {
    // One migrator at a time (a transaction-scoped advisory lock, released at commit).
    await c.query('SELECT pg_advisory_xact_lock(4733001)');
    await c.query(
      'CREATE TABLE IF NOT EXISTS devx_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), devx_version text NOT NULL)',
    );
    const from = (await c.query<{ v: number | null }>('SELECT max(version) AS v FROM devx_schema_version')).rows[0]?.v ?? 0;
    if (from > SCHEMA_VERSION)
      throw new SchemaError(`the queue database is at schema version ${from}, newer than this devx knows (${SCHEMA_VERSION}); upgrade devx`, from);
    const applied: number[] = [];
    for (const m of MIGRATIONS.filter((m) => m.version > from)) {
      await c.query(m.sql);
      await c.query('INSERT INTO devx_schema_version (version, devx_version) VALUES ($1, $2)', [m.version, devxVersion]);
      applied.push(m.version);
    }
    return { from, applied };
  });
}
