// The queue's claim alone, without a model or a runner: N concurrent claimers (1, 4, 16, 64) in one
// process drain T empty tasks, on the file queue and on PostgreSQL, in the same run. Each claimer has a
// queue of its own (on PostgreSQL its own pool, one connection in use at a time) and claims until nothing
// is left, recording each task's result at once (an empty task); claims per second are the tasks over the
// time from the first claim to the last result, latency is one claim() call's. PostgreSQL runs on a cluster started for the bench (test/helpers/postgres.ts); without
// its binaries that half is skipped, saying why.
// A file-queue claim (or result) that gives up waiting for the queue's lock (ELOCKED, after its retries) is counted and
// asked again, so the drain still ends.
//   npm run build && node dist/bench/run.js claims        (BENCH_CLAIM_TASKS, default 2000; BENCH_CLAIMERS, default 1,4,16,64)
import { performance } from 'node:perf_hooks';
import { makeHome, makeProject } from '../test/helpers/env.js';
import { PgCluster, whyNoPostgres } from '../test/helpers/postgres.js';
import type { QueueBackend } from '../src/queue/queueBackend.js';
import { migratedDatabase } from './queuePg.js';

const CLAIMERS = (process.env.BENCH_CLAIMERS ?? '1,4,16,64').split(',').map(Number);

interface ClaimFigures {
  perSec: number;
  p50: number;
  p99: number;
  /** Claims that gave up waiting for the file queue's lock and were asked again. */
  gaveUp: number;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] ?? NaN;

async function openBackend(root: string, url: string): Promise<QueueBackend> {
  const { openQueue } = await import('../src/queue/openQueue.js');
  return openQueue(root, url);
}

/** A fresh queue holding `tasks` pending tasks; its URL ('file' for the file queue). */
async function fillQueue(root: string, pg: PgCluster | null, tasks: number, n: number): Promise<string> {
  let url = 'file';
  if (pg) {
    url = await migratedDatabase(pg, `claims${process.pid}_${n}`);
  }
  const q = await openBackend(root, url);
  for (let i = 0; i < tasks; i++) await q.start({ agent: 'worker', prompt: `job ${i}` });
  await q.close();
  return url;
}

/** One claimer: claims until the queue is empty, recording each result at once (as a runner does, so running tasks stay few); each claim's latency (ms). */
async function drain(q: QueueBackend, runner: string, gaveUp: { n: number }): Promise<number[]> {
  const lat: number[] = [];
  for (;;) {
    const t0 = performance.now();
    const task = await untilLocked(() => q.claim(runner, 600_000), gaveUp);
    if (!task) return lat;
    lat.push(performance.now() - t0);
    await untilLocked(() => q.finish(task.taskId, runner, { status: 'complete' }), gaveUp);
  }
}

/** Runs `fn` until it does not give up waiting for the file queue's lock, counting each time it did. */
async function untilLocked<T>(fn: () => Promise<T>, gaveUp: { n: number }): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      gaveUp.n++;
    }
  }
}

async function measureClaims(pg: PgCluster | null, claimers: number, tasks: number, n: number): Promise<ClaimFigures> {
  const root = makeProject({}, { git: false });
  const url = await fillQueue(root, pg, tasks, n);
  const queues = await Promise.all(Array.from({ length: claimers }, () => openBackend(root, url)));
  const gaveUp = { n: 0 };
  const t0 = performance.now();
  const lats = await Promise.all(queues.map((q, i) => drain(q, `bench-${i}`, gaveUp)));
  const ms = performance.now() - t0;
  await Promise.all(queues.map((q) => q.close()));
  const all = lats.flat();
  if (all.length !== tasks) throw new Error(`${pg ? 'postgres' : 'file'}, ${claimers} claimers: ${all.length} of ${tasks} tasks claimed`);
  return { perSec: tasks / (ms / 1000), p50: pct(all, 0.5), p99: pct(all, 0.99), gaveUp: gaveUp.n };
}

const row = (f: ClaimFigures) =>
  `${f.perSec.toFixed(0).padStart(6)} claims/s, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms${f.gaveUp ? ` (${f.gaveUp} calls gave up waiting for the lock and were made again)` : ''}`;

export async function benchQueueClaims(): Promise<void> {
  const tasks = Number(process.env.BENCH_CLAIM_TASKS ?? 2000);
  process.env.HOME = makeHome();
  delete process.env.DEVX_HOME;
  const why = whyNoPostgres();
  const pg = why ? null : await PgCluster.start();
  console.log(`queue claims: N concurrent claimers drain ${tasks} empty tasks, no model (claims/s over the drain, each with its result; p50/p99 of one claim)`);
  if (why) console.log(`  postgres: skipped (${why})`);
  try {
    let n = 0;
    for (const claimers of CLAIMERS) {
      const f = await measureClaims(null, claimers, tasks, n++);
      console.log(`  ${String(claimers).padStart(2)} claimers: file     ${row(f)}`);
      if (!pg) continue;
      const p = await measureClaims(pg, claimers, tasks, n++);
      console.log(`              postgres ${row(p)} -> postgres/file throughput ratio ${(p.perSec / f.perSec).toFixed(2)}`);
    }
  } finally {
    pg?.stop();
  }
}
