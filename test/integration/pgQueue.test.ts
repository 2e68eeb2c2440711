// The Postgres task queue against a real PostgreSQL server started for the test (helpers/postgres.ts):
// its schema checks, the counts it shares with the file queue, claims under contention (FOR UPDATE SKIP
// LOCKED), leases, the least privileges docs/agents.md lists, TLS from the URL, and no password in messages.
// Skips, saying why, on a machine without PostgreSQL's server binaries.
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_PASSWORD, PgCluster, whyNoPostgres } from '../helpers/postgres.js';
import { makeProject } from '../helpers/env.js';
import { PgQueue } from '../../src/queue/postgres/pgQueue.js';
import { migrate, SCHEMA_VERSION } from '../../src/queue/postgres/pgMigrations.js';
import { openPool, redactUrl } from '../../src/queue/postgres/pgConnect.js';
import { migrateDatabase } from '../../src/queue/postgres/pgAdmin.js';
import { MAX_ATTEMPTS } from '../../src/queue/queueRecovery.js';
import { runOneTask } from '../../src/queue/runTasks.js';
import { unsafeTaskFields } from '../../src/queue/checkRemoteTask.js';
import type { Task } from '../../src/queue/taskSchema.js';

const skip = whyNoPostgres();
if (skip) console.warn(`pgQueue.test.ts skipped: ${skip}`);

let pg: PgCluster;
let n = 0;
beforeAll(async () => {
  if (!skip) pg = await PgCluster.start();
}, 120_000);
afterAll(() => pg?.stop());

/** A fresh database, migrated unless told not to. */
async function database(migrated = true): Promise<string> {
  const url = await pg.createDatabase(`q${process.pid}_${n++}`);
  if (migrated) {
    const pool = await openPool(url, 1);
    await migrate(pool, 'test');
    await pool.end();
  }
  return url;
}

async function open(url: string): Promise<PgQueue> {
  return PgQueue.open(makeProject({}, { git: false }), url);
}

describe.skipIf(skip)('the Postgres queue', () => {
  it('refuses an unmigrated database and one newer than devx, saying what to do', async () => {
    const url = await database(false);
    await expect(open(url)).rejects.toThrow(/has no devx tables yet: run `devx queue migrate`/);
    const pool = await openPool(url, 1);
    expect((await migrate(pool, 'test')).applied).toEqual([SCHEMA_VERSION]);
    expect((await migrate(pool, 'test')).applied).toEqual([]);
    await pool.query(`INSERT INTO devx_schema_version (version, devx_version) VALUES (${SCHEMA_VERSION + 1}, 'future')`);
    await pool.end();
    const err = await open(url).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'SchemaError' });
    expect((err as Error).message).toMatch(
      new RegExp(`at schema version ${SCHEMA_VERSION + 1}, newer than this devx knows \\(${SCHEMA_VERSION}\\).*upgrade devx`),
    );
    expect((err as Error).message).not.toContain(PG_PASSWORD);
  });

  it('keeps the file queue counts: finishing counts own failures, retry starts afresh, the plan and transcript are stored', async () => {
    const q = await open(await database());
    const t = await q.start({ agent: 'worker', prompt: 'job', revision: 'abc' });
    expect(t).toMatchObject({ status: 'pending', attempts: 0, runnerDeaths: 0, runs: 0, revision: 'abc', planFile: `.devx/agents/plans/${t.taskId}_plan.md` });
    const c = await q.claim('r', 60_000);
    expect(c).toMatchObject({ taskId: t.taskId, status: 'running', runs: 1, owner: { pid: process.pid, host: os.hostname(), runner: 'r' } });
    expect(await q.claim('r2', 60_000)).toBeNull();
    const beat = await q.heartbeat(t.taskId, 'r', 90_000);
    expect(Date.parse(beat!.leaseExpiresAt!)).toBeGreaterThan(Date.parse(c!.leaseExpiresAt!));
    q.appendLog(c!, 'line one');
    const done = await q.finish(
      t.taskId,
      'r',
      { status: 'incomplete', error: '1 write did not happen', failedCalls: ['write a'] },
      { plan: '# Plan\n1. x', patch: 'diff --git a/x b/x\n', logLine: 'task incomplete' },
    );
    expect(done).toMatchObject({ status: 'incomplete', attempts: 1, hasPatch: true, failedCalls: ['write a'] });
    expect(await q.finish(t.taskId, 'other', { status: 'complete' })).toBeNull();
    const log = await q.readLog(t.taskId);
    expect(log).toMatchObject({ plan: '# Plan\n1. x', log: 'line one\ntask incomplete\n', patch: 'diff --git a/x b/x\n' });
    expect(await q.retry(t.taskId)).toMatchObject({ status: 'pending', attempts: 0, runnerDeaths: 0 });
    expect((await q.claim('r', 60_000))!.runs).toBe(2);
    expect(await q.cancel(t.taskId)).toMatchObject({ status: 'running', cancelRequested: true });
    expect((await q.heartbeat(t.taskId, 'r', 60_000))!.cancelRequested).toBe(true);
    await q.close();
  });

  it('eight runners claiming at once never take the same task; a task waits for the one it comes after', async () => {
    const url = await database();
    const q = await open(url);
    const first = await q.start({ agent: 'w', prompt: 'first' });
    await q.start({ agent: 'w', prompt: 'second', after: first.taskId });
    for (let i = 0; i < 30; i++) await q.start({ agent: 'w', prompt: `job ${i}` });
    const runners = await Promise.all(Array.from({ length: 8 }, () => open(url)));
    const got: string[] = [];
    await Promise.all(
      runners.map(async (r, i) => {
        for (let t = await r.claim(`r${i}`, 60_000); t; t = await r.claim(`r${i}`, 60_000)) got.push(t.prompt);
      }),
    );
    expect(got).toHaveLength(31);
    expect(new Set(got).size).toBe(31);
    expect(got).not.toContain('second');
    await q.finish(first.taskId, (await q.read(first.taskId))!.owner!.runner, { status: 'complete', summary: 'ok' });
    expect((await q.claim('late', 60_000))!.prompt).toBe('second');
    await Promise.all([...runners, q].map((r) => r.close()));
  });

  it('a dead runner on this host is a runner death; a lease expired under a live runner here is an attempt; one elsewhere a death', async () => {
    const url = await database();
    const q = await open(url);
    const t = await q.start({ agent: 'w', prompt: 'job' });
    await q.claim('r', 60_000);
    await pg.sql(
      `UPDATE devx_tasks SET owner_pid = ${spawnSync('true').pid}, data = jsonb_set(data, '{owner,pid}', '${spawnSync('true').pid}') WHERE task_id = '${t.taskId}'`,
      url.split('/').pop()!,
    );
    const [gone] = await q.recover();
    expect(gone).toMatchObject({
      status: 'pending',
      runnerDeaths: 1,
      attempts: 0,
      error: expect.stringMatching(/^its runner \(pid \d+\) died; queued again$/),
    });
    for (let i = 1; i <= MAX_ATTEMPTS; i++) {
      await q.claim('r', 150);
      await new Promise((r) => setTimeout(r, 300));
      const [t2] = await q.recover();
      expect(t2).toMatchObject({ attempts: i, runnerDeaths: 1, status: i < MAX_ATTEMPTS ? 'pending' : 'failed' });
    }
    // Same host name, another PID space (another container or machine): its PIDs say nothing here.
    const twin = await q.start({ agent: 'w', prompt: 'twin' });
    await q.claim('r', 60_000);
    const dead = spawnSync('true').pid;
    await pg.sql(
      `UPDATE devx_tasks SET owner_host = 'twin', owner_pid = ${dead}, data = jsonb_set(jsonb_set(data, '{owner,space}', '"twin"'), '{owner,pid}', '${dead}') WHERE task_id = '${twin.taskId}'`,
      url.split('/').pop()!,
    );
    expect(await q.recover()).toEqual([]);
    expect((await q.read(twin.taskId))!.status).toBe('running');
    await pg.sql(`UPDATE devx_tasks SET status = 'cancelled' WHERE task_id = '${twin.taskId}'`, url.split('/').pop()!);
    const far = await q.start({ agent: 'w', prompt: 'elsewhere' });
    await q.claim('r', 150);
    await pg.sql(
      `UPDATE devx_tasks SET owner_host = 'elsewhere', data = jsonb_set(data, '{owner,space}', '"elsewhere"') WHERE task_id = '${far.taskId}'`,
      url.split('/').pop()!,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await q.recover())[0]).toMatchObject({
      taskId: far.taskId,
      status: 'pending',
      runnerDeaths: 1,
      attempts: 0,
      error: expect.stringMatching(/lease expired at .*; queued again$/),
    });
    await q.close();
  });

  it('runs with the least privileges docs/agents.md lists: CONNECT, USAGE on the schema, SELECT/INSERT/UPDATE on the tables', async () => {
    const url = await database();
    const db = url.split('/').pop()!;
    await pg.sql(`CREATE ROLE runner${n} LOGIN PASSWORD 'runner-pw'`);
    await pg.sql(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC; GRANT CONNECT ON DATABASE ${db} TO runner${n}`);
    await pg.sql(
      `REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO runner${n}; GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO runner${n}`,
      db,
    );
    const q = await open(pg.url(db, '', `runner${n}`, 'runner-pw'));
    const t = await q.start({ agent: 'w', prompt: 'job' });
    const c = await q.claim('r', 60_000);
    q.trackChildren(process.pid, [123]);
    q.appendLog(c!, 'a line');
    await q.heartbeat(t.taskId, 'r', 60_000);
    expect(await q.finish(t.taskId, 'r', { status: 'complete' }, { plan: 'p', logLine: 'done' })).toMatchObject({ status: 'complete' });
    expect((await q.readLog(t.taskId))!.log).toBe('a line\ndone\n');
    await q.close();
    const pool = await openPool(pg.url(db, '', `runner${n}`, 'runner-pw'), 1);
    await expect(pool.query('CREATE TABLE x (a int)')).rejects.toThrow(/permission denied/);
    await pool.end();
    // The runner role may not migrate: it is told which role can.
    const role = `runner${n}`;
    const fresh = await database(false);
    const freshDb = fresh.split('/').pop()!;
    await pg.sql(`GRANT CONNECT ON DATABASE ${freshDb} TO ${role}`);
    await pg.sql(`REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO ${role}`, freshDb);
    const refused = (await migrateDatabase(pg.url(freshDb, '', `${role}`, 'runner-pw'), 'test').catch((e: Error) => e)) as Error;
    expect(refused.message).toMatch(
      new RegExp(
        `^the role ${role} may not change the queue's schema \\(permission denied for schema public\\): \`devx queue migrate\` needs the role that owns the schema`,
      ),
    );
  });

  it('says what a connection failure means within 5 s: no password names PGPASSWORD and the settings key', async () => {
    const saved = process.env.PGPASSWORD;
    delete process.env.PGPASSWORD;
    try {
      const t0 = Date.now();
      const err = (await open(`postgres://devx@127.0.0.1:${pg.port}/postgres`).catch((e: Error) => e)) as Error;
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(err.message).toMatch(
        /^the queue database at 127\.0\.0\.1:\d+ asks devx for a password and none was given: set PGPASSWORD .*settings' "queue" key/,
      );
    } finally {
      if (saved !== undefined) process.env.PGPASSWORD = saved;
    }
  });

  it("sslmode=prefer (and no sslmode, libpq's default) falls back to plain against a server without TLS; require is refused there", async () => {
    const url = await database();
    const db = url.split('/').pop()!;
    for (const params of ['sslmode=prefer', '']) {
      const q = await open(pg.url(db, params));
      expect((await q.start({ agent: 'w', prompt: 'plain' })).status).toBe('pending');
      await q.close();
    }
    const err = (await open(pg.url(db, 'sslmode=require')).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/does not offer TLS, and the URL's sslmode requires it/);
  });

  it('never shows the password: a wrong one, an unreachable server, and the URL in messages', async () => {
    const wrong = pg.url('postgres', '', 'devx', 'Wr0ng-Pa55');
    const err = (await open(wrong).catch((e: Error) => e)) as Error;
    expect(err.message).toMatch(/password authentication failed/);
    expect(err.message).not.toContain('Wr0ng-Pa55');
    const away = (await open('postgres://devx:Hunter2-x@127.0.0.1:1/db').catch((e: Error) => e)) as Error;
    expect(away.message).toMatch(/ECONNREFUSED/);
    expect(away.message).not.toContain('Hunter2');
    expect(redactUrl('postgres://u:p%40ss@h:5/d?sslmode=require&password=zz')).toBe('postgres://u:***@h:5/d?sslmode=require&password=***');
  });
});

describe.skipIf(skip)('the Postgres queue over TLS', () => {
  let tls: PgCluster;
  beforeAll(async () => {
    tls = await PgCluster.start({ ssl: true });
  }, 120_000);
  afterAll(() => tls?.stop());

  it('each sslmode as libpq documents it, with no node-postgres warning: require encrypts unverified, verify-ca/verify-full check the CA, disable is refused by this server', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const db = `t${process.pid}`;
    await tls.sql(`CREATE DATABASE ${db}`);
    const good = tls.url(db, `sslmode=verify-full&sslrootcert=${tls.caFile}`);
    const pool = await openPool(good, 1);
    await migrate(pool, 'test');
    expect((await pool.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0].ssl).toBe(true);
    await pool.end();
    const q = await open(good);
    expect((await q.start({ agent: 'w', prompt: 'over tls' })).status).toBe('pending');
    await q.close();
    // require and prefer encrypt without checking the certificate (as libpq does); verify-ca checks the CA, not the name.
    for (const params of ['sslmode=require', 'sslmode=prefer', '', `sslmode=verify-ca&sslrootcert=${tls.caFile}`, 'sslmode=allow']) {
      const p = await openPool(tls.url(db, params), 1);
      expect((await p.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0].ssl, params).toBe(true);
      await p.end();
    }
    // verify-full without the CA: a self-signed CA Node does not know is refused, in devx's words.
    const unknownCa = (await open(tls.url(db, 'sslmode=verify-full')).catch((e: Error) => e)) as Error;
    expect(unknownCa.message).toMatch(/certificate at 127\.0\.0\.1:\d+ is not signed by a CA devx knows .*sslrootcert=<file>/);
    const plain = (await open(tls.url(db, 'sslmode=disable')).catch((e: Error) => e)) as Error;
    expect(plain.message).toMatch(/accepts only encrypted connections .*use sslmode=require or stricter/);
    expect(`${unknownCa.message}${plain.message}`).not.toContain(PG_PASSWORD);
    process.off('warning', onWarning);
    expect(warnings.filter((w) => /SECURITY WARNING|sslmode/i.test(w))).toEqual([]);
  });
});

describe.skipIf(skip)('tasks from a shared database are checked before a runner acts on them', () => {
  it('a row that is not a task is set aside; a plan file, --write path or revision devx would not write is refused without running', async () => {
    const url = await database();
    const db = url.split('/').pop()!;
    const q = await open(url);
    await pg.sql(`INSERT INTO devx_tasks (task_id, status, created_at, data) VALUES ('junk', 'pending', now() - interval '1 hour', '{"not": "a task"}')`, db);
    const evil = await q.start({ agent: 'worker', prompt: 'job' });
    await pg.sql(`UPDATE devx_tasks SET data = jsonb_set(data, '{planFile}', '"../../../.bashrc"') WHERE task_id = '${evil.taskId}'`, db);
    const claimed = await q.claim('r', 60_000);
    expect(claimed).toMatchObject({ taskId: evil.taskId, planFile: '../../../.bashrc' });
    expect((await pg.sql(`SELECT status FROM devx_tasks WHERE task_id = 'junk'`, db))[0]).toEqual({ status: 'failed' });
    expect((await q.list()).map((t) => t.taskId)).toEqual([evil.taskId]);
    const done = await runOneTask(q, claimed!, 'r', { all: false, parallel: 1, leaseMs: 60_000, run: { cwd: q.root } }, { started() {}, ended() {} });
    expect(done).toMatchObject({ status: 'failed', error: 'the runner refused the task: its plan file "../../../.bashrc" is not the one devx gives it' });
    await q.close();
  });
});

describe('the fields of a task from a shared database (no server needed)', () => {
  it('unsafeTaskFields: what devx writes passes; escapes, .git and option-like revisions do not', () => {
    const t = { taskId: 'task_1a2b', planFile: '.devx/agents/plans/task_1a2b_plan.md', logFile: '.devx/agents/logs/task_1a2b.log' } as Task;
    expect(unsafeTaskFields({ ...t, writes: ['src/', 'docs/a.md'], revision: 'a'.repeat(40) })).toBeNull();
    expect(unsafeTaskFields({ ...t, writes: ['../x'] })).toMatch(/outside the checkout/);
    expect(unsafeTaskFields({ ...t, writes: ['/etc/passwd'] })).toMatch(/outside the checkout/);
    expect(unsafeTaskFields({ ...t, writes: ['a/../../b'] })).toMatch(/outside the checkout/);
    expect(unsafeTaskFields({ ...t, writes: ['.git/hooks'] })).toMatch(/inside \.git/);
    expect(unsafeTaskFields({ ...t, revision: '--upload-pack=x' })).toMatch(/not a commit id/);
    expect(unsafeTaskFields({ ...t, taskId: 'x/../y' })).toMatch(/not a devx task id/);
  });
});
