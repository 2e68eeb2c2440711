// `devx queue migrate` and `devx queue status` on a Postgres queue: apply the schema, and say where the
// queue is, at which schema version, and how many tasks it holds in each status.
import { openPool, QueueDbError, redactError, redactUrl } from './pgConnect.js';
import { migrate, schemaVersion, SCHEMA_VERSION, SchemaError } from './pgMigrations.js';

export { SCHEMA_VERSION };

async function withPool<T>(url: string, fn: (pool: Awaited<ReturnType<typeof openPool>>) => Promise<T>): Promise<T> {
  const pool = await openPool(url, 1);
  try {
    return await fn(pool);
  } catch (err) {
    throw err instanceof SchemaError || err instanceof QueueDbError ? err : redactError(err, url);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** A migration the role may not make (no CREATE on the schema, not the tables' owner), said with who can. */
function migrationRefused(err: unknown, role: string): QueueDbError | null {
  const e = err as { code?: string; message?: string };
  if (e?.code !== '42501') return null;
  return new QueueDbError(
    `${role} may not change the queue's schema (${e.message}): \`devx queue migrate\` needs the role that owns the schema (or one granted CREATE on it) and, after the first time, the devx tables; runners need only the grants in docs/agents.md (Least privileges)`,
    e.code,
  );
}

export function migrateDatabase(url: string, devxVersion: string): Promise<{ from: number; applied: number[]; where: string }> {
  return withPool(url, async (pool) => {
    try {
      return { ...(await migrate(pool, devxVersion)), where: redactUrl(url) };
    } catch (err) {
      const role = (await pool.query<{ r: string }>('SELECT current_user AS r').catch(() => null))?.rows[0]?.r;
      throw migrationRefused(err, role ? `the role ${role}` : 'this role') ?? err;
    }
  });
}

export function inspectDatabase(url: string): Promise<{ where: string; version: number | null; counts: Record<string, number>; ssl: boolean }> {
  return withPool(url, async (pool) => {
    const version = await schemaVersion(pool);
    const counts: Record<string, number> = {};
    if (version)
      for (const r of (await pool.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM devx_tasks GROUP BY status ORDER BY status'))
        .rows)
        counts[r.status] = r.n;
    const ssl = (await pool.query<{ ssl: boolean | null }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0]?.ssl === true;
    return { where: redactUrl(url), version, counts, ssl };
  });
}
