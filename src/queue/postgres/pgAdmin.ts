// `devx queue migrate` and `devx queue status` on a Postgres queue: apply the schema, and say where the
// queue is, at which schema version, and how many tasks it holds in each status.
import { openPool, redactError, redactUrl } from './pgConnect.js';
import { migrate, schemaVersion, SCHEMA_VERSION, SchemaError } from './pgMigrations.js';

export { SCHEMA_VERSION };

async function withPool<T>(url: string, fn: (pool: Awaited<ReturnType<typeof openPool>>) => Promise<T>): Promise<T> {
  const pool = await openPool(url, 1);
  try {
    return await fn(pool);
  } catch (err) {
    throw err instanceof SchemaError ? err : redactError(err, url);
  } finally {
    await pool.end().catch(() => {});
  }
}

export function migrateDatabase(url: string, devxVersion: string): Promise<{ from: number; applied: number[]; where: string }> {
  return withPool(url, async (pool) => ({ ...(await migrate(pool, devxVersion)), where: redactUrl(url) }));
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
