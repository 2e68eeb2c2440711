// The task queue, file vs PostgreSQL, on this machine in the same run: R runner processes
// (1, 4, 16) drain T tasks through the real runner (queue/runTasks.ts: claim, the revision check and
// snapshot on Postgres, the plan, the transcript, the lease, the result), with a model that answers at
// once (a scripted backend in the runner, so the figures are the queue's and the runner's own, not
// gemini's start-up). Claim-to-start latency, two ways: from a runner asking for a task to its run
// beginning (the queue's own part: claim, revision check, plan, snapshot), and to the model being asked
// (adding the agent's start-up, the same code for both queues: with more runners than cores it measures
// how many runners share the CPU at once, which a faster claim raises). Tasks/second: tasks over the time
// from the first claim to the last result; enough tasks that each runner's own start-up (16 processes
// loading on 2 cores) does not dominate. Postgres runs on a cluster started for the bench
// (test/helpers/postgres.ts); skipped, saying why, without the binaries.
//   npm run build && node dist/bench/run.js queuepg        (BENCH_QUEUE_TASKS, default 256)
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { makeHome, makeProject } from '../test/helpers/env.js';
import { PgCluster, whyNoPostgres } from '../test/helpers/postgres.js';
import type { QueueBackend } from '../src/queue/queueBackend.js';

const WORKER = '---\nname: worker\ndescription: does queued jobs\ntools: []\n---\nYou do one small job and report it.\n';

interface WorkerJob {
  root: string;
  url: string;
  home: string;
}
interface WorkerReport {
  latencies: number[];
  /** Time inside claim() alone. */
  claimMs: number[];
  /** From asking for a task to the agent's run beginning: the queue's own part. */
  toRun: number[];
  claims: number[];
  ends: number[];
}

async function openBackend(root: string, url: string): Promise<QueueBackend> {
  const { openQueue } = await import('../src/queue/openQueue.js');
  return openQueue(root, url);
}

/** A new database in `pg` with the queue's schema, migrated as its owner; its URL. */
export async function migratedDatabase(pg: PgCluster, name: string): Promise<string> {
  const url = await pg.createDatabase(name);
  const { openPool } = await import('../src/queue/postgres/pgConnect.js');
  const { migrate } = await import('../src/queue/postgres/pgMigrations.js');
  const pool = await openPool(url, 1);
  await migrate(pool, 'bench');
  await pool.end();
  return url;
}
/** One runner process: drains the queue, timing each claim to the model call it leads to. */
async function worker(job: WorkerJob): Promise<void> {
  const { runTasks } = await import('../src/queue/runTasks.js');
  const { ScriptedBackend } = await import('../src/providers/scripted.js');
  const queue = await openBackend(job.root, job.url);
  const report: WorkerReport = { latencies: [], claimMs: [], toRun: [], claims: [], ends: [] };
  let claimAt: number | undefined;
  const timed = new Proxy(queue, {
    get(t, p) {
      if (p === 'claim')
        return (...a: Parameters<QueueBackend['claim']>) => {
          claimAt = performance.timeOrigin + performance.now();
          report.claims.push(claimAt);
          const at = claimAt;
          return t.claim(...a).then((task) => {
            if (task) report.claimMs.push(performance.timeOrigin + performance.now() - at);
            return task;
          });
        };
      const v = (t as unknown as Record<string | symbol, unknown>)[p];
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  const answer = () => {
    if (claimAt !== undefined) report.latencies.push(performance.timeOrigin + performance.now() - claimAt);
    claimAt = undefined;
    return 'Done.';
  };
  const backend = new ScriptedBackend(Array.from({ length: 10_000 }, () => answer));
  await runTasks(timed, {
    all: true,
    parallel: 1,
    leaseMs: 60_000,
    run: { cwd: job.root, env: { ...process.env, HOME: job.home }, approval: 'yolo', backend },
    onRunStart: () => {
      if (claimAt !== undefined) report.toRun.push(performance.timeOrigin + performance.now() - claimAt);
    },
    onTaskEnd: () => report.ends.push(performance.timeOrigin + performance.now()),
  });
  await queue.close();
  process.stdout.write(JSON.stringify(report));
}

function runWorker(job: WorkerJob): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [fileURLToPath(import.meta.url), 'queuepg-worker', JSON.stringify(job)], {
      env: { ...process.env, HOME: job.home, DEVX_HANDOFF: 'off', DEVX_QUEUE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as WorkerReport) : reject(new Error(`runner exited ${code}: ${err.slice(-800)}`))));
  });
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] ?? NaN;

async function measure(kind: 'file' | 'postgres', runners: number, tasks: number, pg: PgCluster | null, n: number) {
  const root = makeProject({ '.devx/agents/worker.md': WORKER });
  // The runners' HOME is this process's too: the file queue runs only tasks its user queued (session/ownerId.ts).
  const home = process.env.HOME!;
  let url = 'file';
  if (kind === 'postgres') {
    url = await migratedDatabase(pg!, `bench${process.pid}_${n}`);
  }
  const q = await openBackend(root, url);
  const { headRevision } = await import('../src/queue/runnerGit.js');
  const revision = await headRevision(root);
  for (let i = 0; i < tasks; i++) await q.start({ agent: 'worker', prompt: `job ${i}`, revision });
  const reports = await Promise.all(Array.from({ length: runners }, () => runWorker({ root, url, home })));
  const list = await q.list();
  await q.close();
  const done = list.filter((t) => t.status === 'complete').length;
  if (done !== tasks) throw new Error(`${kind}, ${runners} runners: ${done} of ${tasks} complete`);
  const lat = reports.flatMap((r) => r.latencies);
  const first = Math.min(...reports.flatMap((r) => r.claims));
  const last = Math.max(...reports.flatMap((r) => r.ends));
  const inClaim = reports.flatMap((r) => r.claimMs);
  const toRun = reports.flatMap((r) => r.toRun);
  return {
    p50: pct(lat, 0.5),
    p95: pct(lat, 0.95),
    claim: pct(inClaim, 0.5),
    run50: pct(toRun, 0.5),
    run95: pct(toRun, 0.95),
    perSec: tasks / ((last - first) / 1000),
  };
}

export async function benchQueuePg(): Promise<void> {
  const tasks = Number(process.env.BENCH_QUEUE_TASKS ?? 256);
  const why = whyNoPostgres();
  if (why) {
    console.log(`queue file vs postgres: skipped (${why})`);
    return;
  }
  process.env.HOME = makeHome();
  delete process.env.DEVX_HOME;
  const pg = await PgCluster.start();
  try {
    console.log(
      `queue file vs postgres: runner processes drain ${tasks} tasks, the model answering at once\n  (p50/p95 ms from asking for a task to its run beginning, and to the model call; median time in claim; tasks/s)`,
    );
    let n = 0;
    for (const runners of [1, 4, 16]) {
      const f = await measure('file', runners, tasks, null, n++);
      const p = await measure('postgres', runners, tasks, pg, n++);
      const row = (r: typeof f) =>
        `run ${r.run50.toFixed(1)}/${r.run95.toFixed(1)}, model ${r.p50.toFixed(1)}/${r.p95.toFixed(1)}, claim ${r.claim.toFixed(1)}, ${r.perSec.toFixed(1)}/s`;
      console.log(`  ${String(runners).padStart(2)} runners: file ${row(f)}`);
      console.log(
        `              postgres ${row(p)} -> postgres/file: to run ${(p.run50 / f.run50).toFixed(2)}, to model ${(p.p50 / f.p50).toFixed(2)}, throughput ${(p.perSec / f.perSec).toFixed(2)}`,
      );
    }
    // What of the Postgres runner's extra time is git's: its two snapshots of a task's paths (runners anywhere).
    const { snapshotPaths } = await import('../src/queue/runnerGit.js');
    const root = makeProject({ '.devx/agents/workspace/a.md': 'a\n' });
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      await snapshotPaths(root, ['.devx/agents/workspace', '.devx/agents/plans/task_x_plan.md']);
      times.push(performance.now() - t0);
    }
    console.log(
      `  of which git (Postgres runners only): one snapshot of a task's paths ${pct(times, 0.5).toFixed(1)} ms (median of 21; two per task whose scope holds files, none in the runs above)`,
    );
  } finally {
    pg.stop();
  }
}

if (process.argv[2] === 'queuepg-worker' && import.meta.url === pathToFileURL(path.resolve(process.argv[1] ?? '')).href)
  await worker(JSON.parse(process.argv[3]) as WorkerJob);
