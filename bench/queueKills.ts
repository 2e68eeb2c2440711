// The queue under runner deaths: R runner processes (`devx agent run --all`, the real
// gemini binary against the scripted fake API, no network) drain T tasks while K runners are killed
// with SIGKILL at random times; a killed runner is replaced, so R keep running. Counts the tasks that
// completed, the ones given up (wrongly: none of them failed by itself), and that each completed
// exactly once. Takes a minute or two: not part of `npm run bench`.
//   npm run build && node dist/bench/queueKills.js [runners=4] [tasks=100] [kills=50] [spread|burst]
// spread (the default): the kills fall at random points of the whole run. burst: one every 0.2-1.6 s
// from the start, faster than tasks end, so the same recovered tasks are hit again and again.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, fakeEnv, makeHome, makeProject } from '../test/helpers/env.js';
import { killUnder } from '../test/helpers/processes.js';

const [RUNNERS, TASKS, KILLS] = [0, 1, 2].map((i) => Number(process.argv[2 + i] ?? [4, 100, 50][i]));
const BURST = process.argv[5] === 'burst';
if (!process.env.DEVX_TEST_TMP) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-bench-')));
  process.env.DEVX_TEST_TMP = root;
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 }));
}

const WORKER = '---\nname: worker\ndescription: does queued jobs\ntools: [read_file]\n---\nYou do one small job and report it.\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function devx(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [DEVX_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

interface TaskJson {
  taskId: string;
  status: string;
  prompt: string;
  attempts: number;
  runnerDeaths: number;
  runs: number;
  logFile: string;
  summary?: string;
  error?: string;
}

async function main(): Promise<void> {
  const fake = await new FakeGeminiApi().start();
  // Each model call takes 0.2-1.5 s, so kills land mid-task as often as between tasks.
  fake.fallback = (req) => ({ text: `Finished ${/Task: (job \d+)\./.exec(req.promptText)?.[1]}.`, delayMs: 200 + Math.floor(Math.random() * 1300) });
  const home = makeHome();
  const project = makeProject({ '.devx/agents/worker.md': WORKER });
  const env = fakeEnv(fake, home);
  const t0 = Date.now();
  for (let i = 0; i < TASKS; i += 4) {
    await Promise.all(
      Array.from({ length: Math.min(4, TASKS - i) }, async (_, j) => {
        const r = await devx(['agent', 'start', 'worker', `job ${i + j}`], project, env);
        if (r.code !== 0) throw new Error(`agent start failed: ${r.stderr}`);
      }),
    );
  }
  const status = async (): Promise<TaskJson[]> => JSON.parse((await devx(['agent', 'status', '--json'], project, env)).stdout) as TaskJson[];
  const queuedMs = Date.now() - t0;

  const live = new Set<ChildProcess>();
  let started = 0;
  let kills = 0;
  const startRunner = () => {
    const c = spawn(process.execPath, [DEVX_BIN, 'agent', 'run', '--all', '--lease', '60'], { cwd: project, env, stdio: 'ignore' });
    started++;
    live.add(c);
    c.on('exit', () => live.delete(c));
  };
  const t1 = Date.now();
  let killing = true;
  let tasks: TaskJson[] = [];
  // The kills fall at random times over the whole run: K random points of its progress (tasks ended,
  // 0 to 95% of T), each followed by a random 0-1.5 s, kill a random live runner.
  const points = Array.from({ length: KILLS }, () => Math.random() * TASKS * 0.95).sort((a, b) => a - b);
  const ended = () => tasks.filter((t) => t.status !== 'pending' && t.status !== 'running').length;
  const killer = (async () => {
    for (const point of points) {
      if (BURST) await sleep(200 + Math.random() * 1400);
      else {
        while (killing && ended() < point) await sleep(100);
        if (!killing) return;
        await sleep(Math.random() * 1500);
      }
      const runners = [...live].filter((c) => c.exitCode === null && c.signalCode === null);
      const victim = runners[Math.floor(Math.random() * runners.length)];
      try {
        if (victim) process.kill(victim.pid!, 'SIGKILL');
        if (victim) kills++;
      } catch {
        /* it had just exited */
      }
    }
  })();
  for (;;) {
    while (live.size < RUNNERS) startRunner();
    await sleep(1000);
    tasks = await status();
    const open = tasks.filter((t) => t.status === 'pending' || t.status === 'running');
    if (!open.length && kills >= KILLS) break;
    if (!open.length && live.size === 0) break; // drained before all kills were made
    if (Date.now() - t1 > 20 * 60_000) throw new Error('the queue did not drain in 20 minutes');
  }
  killing = false;
  await killer;
  for (const c of live) c.kill('SIGKILL');
  const drainMs = Date.now() - t1;

  const complete = tasks.filter((t) => t.status === 'complete');
  const givenUp = tasks.filter((t) => t.status !== 'complete');
  let exactlyOnce = 0;
  for (const t of complete) {
    const log = fs.readFileSync(path.join(project, t.logFile), 'utf8');
    if ((log.match(/\] task complete$/gm) ?? []).length === 1 && t.summary === `Finished ${t.prompt}.`) exactlyOnce++;
  }
  const deaths = tasks.reduce((n, t) => n + t.runnerDeaths, 0);
  const rerun = tasks.filter((t) => t.runs > 1).length;
  const maxDeaths = Math.max(0, ...tasks.map((t) => t.runnerDeaths));
  console.log(
    `queue under runner kills: ${RUNNERS} runners × ${TASKS} tasks, ${kills} runner kills (kill -9, ${BURST ? 'a burst from the start' : 'at random points of the run'}), ${started} runner processes in all`,
  );
  // A task the queue no longer lists (unreadable, or taken for another user's) is lost: counted apart.
  const missing = TASKS - tasks.length;
  console.log(
    `  tasks complete: ${complete.length}/${TASKS}; given up wrongly: ${givenUp.length}; missing from the queue: ${missing}; completed exactly once: ${exactlyOnce}/${complete.length}`,
  );
  console.log(
    `  runner deaths recorded on tasks: ${deaths} (max ${maxDeaths} on one task); tasks run more than once: ${rerun}; own failures (attempts): ${tasks.reduce((n, t) => n + t.attempts, 0)}`,
  );
  console.log(`  queued in ${(queuedMs / 1000).toFixed(1)} s, drained in ${(drainMs / 1000).toFixed(1)} s; model calls: ${fake.modelCalls.length}`);
  for (const t of givenUp) console.log(`  given up: ${t.taskId} ${t.status}: ${t.error}`);
  killUnder(path.join(home, '.devx'));
  await fake.close();
  process.exitCode = complete.length === TASKS && givenUp.length === 0 && missing === 0 && exactlyOnce === TASKS ? 0 : 1;
}

await main();
