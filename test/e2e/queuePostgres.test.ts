// The task queue in PostgreSQL end to end: the built devx against a PostgreSQL server started for
// the test (helpers/postgres.ts) and the scripted fake Gemini API, with clones of one repository standing
// for machines. The CLI: migrate, the schema checks (exit 5), a task queued in one checkout and run in
// another (its changes come back as a patch and a branch on origin, its transcript from any checkout), a
// runner lacking the task's revision gives it back. Then 3 runners in 3 clones drain 20 tasks while runners are
// killed with kill -9 7 times (and restarted) and the server restarts once: every task completes exactly once.
// Skips, saying why, on a machine without PostgreSQL's server binaries.
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { DEVX_BIN, fakeEnv, makeHome, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { killUnder } from '../helpers/processes.js';
import { PG_PASSWORD, PgCluster, whyNoPostgres } from '../helpers/postgres.js';
import { PgQueue } from '../../src/queue/postgres/pgQueue.js';

const skip = whyNoPostgres();
if (skip) console.warn(`queuePostgres.test.ts skipped: ${skip}`);

const WORKER = '---\nname: worker\ndescription: does queued jobs\ntools: [read_file, write_file]\n---\nYou do one small job and report it.\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pg: PgCluster;
let fake: FakeGeminiApi;
const homes: string[] = [];
beforeAll(async () => {
  if (skip) return;
  pg = await PgCluster.start();
  fake = await new FakeGeminiApi().start();
}, 120_000);
afterAll(async () => {
  for (const h of homes) killUnder(path.join(h, '.devx'));
  await fake?.close();
  pg?.stop();
});

/** A repository and `n` clones of it (its machines), each with its own HOME; origin of each clone is the repository. */
function machines(n: number): { origin: string; clones: string[]; envs: NodeJS.ProcessEnv[] } {
  const origin = makeProject({ '.devx/agents/worker.md': WORKER, 'README.md': '# project\n' });
  const clones = Array.from({ length: n }, () => {
    const dir = path.join(tempDir('devx-clone-'), 'repo');
    execFileSync('git', ['clone', '-q', origin, dir]);
    return dir;
  });
  const envs = clones.map(() => {
    const h = makeHome();
    homes.push(h);
    return fakeEnv(fake, h);
  });
  return { origin, clones, envs };
}

describe.skipIf(skip)('the task queue in PostgreSQL, end to end', () => {
  it('migrate and the schema checks; a task queued in one checkout runs in another; its changes come back; a runner without the revision gives it back', async () => {
    const url = await pg.createDatabase(`cli${process.pid}`);
    const { origin, clones, envs } = machines(1);
    const envA = { ...fakeEnv(fake, makeHome()), DEVX_QUEUE_URL: url };
    const envB = { ...envs[0], DEVX_QUEUE_URL: url };

    const unmigrated = await runDevx(['agent', 'status'], { cwd: origin, env: envA });
    expect(unmigrated.code).toBe(5);
    expect(unmigrated.stderr).toMatch(/has no devx tables yet: run `devx queue migrate`/);
    expect(unmigrated.stderr).toContain('postgres://devx:***@127.0.0.1');
    const migrated = await runDevx(['queue', 'migrate'], { cwd: origin, env: envA });
    expect(migrated.stdout).toMatch(/^Migrated the queue database postgres:\/\/devx:\*\*\*@127\.0\.0\.1:\d+\/cli\d+ from schema version 0 to 1\.\n$/);
    expect((await runDevx(['queue', 'migrate'], { cwd: origin, env: envA })).stdout).toMatch(/already at schema version 1/);
    expect((await runDevx(['queue', 'status'], { cwd: origin, env: envA })).stdout).toMatch(/Schema version: 1; this devx needs 1\nTasks: none/);

    const started = await runDevx(['agent', 'start', 'worker', 'write the notes'], { cwd: origin, env: envA });
    expect(started.stdout).toMatch(/^Task task_\w+ created for agent 'worker' and is now pending\.\n$/);
    const id = /Task (task_\w+)/.exec(started.stdout)![1];
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: origin, encoding: 'utf8' }).trim();
    fake.push(
      {
        text: `TOOL_CALL: write_file | path=.devx/agents/workspace/notes.md | content=the notes\nTOOL_CALL: write_file | path=.devx/agents/plans/${id}_plan.md | content=# Plan\n1. notes`,
      },
      { text: 'Wrote the notes.' },
    );
    const run = await runDevx(['agent', 'run'], { cwd: clones[0], env: envB });
    expect(run.stdout, run.stderr).toBe(`Orchestrator finished task ${id}: complete.\n`);
    const [t] = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: origin, env: envA })).stdout);
    expect(t).toMatchObject({ taskId: id, status: 'complete', revision: head, resultBranch: `devx/${id}`, hasPatch: true, summary: 'Wrote the notes.' });
    // The transcript, plan and patch from the checkout that queued it (not the one that ran it).
    const log = await runDevx(['agent', 'log', id], { cwd: origin, env: envA });
    expect(log.stdout).toContain(`Task ${id} (worker): complete\nQueued at revision ${head}\nChanges pushed to origin as devx/${id}\n`);
    expect(log.stdout).toContain(`── plan (.devx/agents/plans/${id}_plan.md)\n# Plan\n`);
    expect(log.stdout).toMatch(/── transcript[\s\S]*starts run 1[\s\S]*final answer:\nWrote the notes\.[\s\S]*\] task complete\n/);
    // The changes are the project's (the plan comes back on its own, above).
    expect(log.stdout).toMatch(/── changes \(git apply\)\ndiff --git a\/\.devx\/agents\/workspace\/notes\.md[\s\S]*new file[\s\S]*\+the notes/);
    expect(log.stdout.slice(log.stdout.indexOf('── changes'))).not.toContain('_plan.md');
    expect(execFileSync('git', ['show', `devx/${id}:.devx/agents/workspace/notes.md`], { cwd: origin, encoding: 'utf8' })).toBe('the notes');
    expect(execFileSync('git', ['diff', '--name-only', head, `devx/${id}`], { cwd: origin, encoding: 'utf8' })).toBe('.devx/agents/workspace/notes.md\n');
    expect(execFileSync('git', ['rev-parse', `devx/${id}^`], { cwd: origin, encoding: 'utf8' }).trim()).toBe(head);

    // A commit the runner's checkout does not have: it gives the task back, and takes it once fetched.
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'two'], { cwd: origin });
    const id2 = /Task (task_\w+)/.exec((await runDevx(['agent', 'start', 'worker', 'job two'], { cwd: origin, env: envA })).stdout)![1];
    const behind = await runDevx(['agent', 'run'], { cwd: clones[0], env: envB });
    expect(behind.stdout).toBe('No pending agent tasks found.\n');
    expect(behind.stderr).toMatch(
      new RegExp(
        `gave ${id2} back: runner on .* does not have commit [0-9a-f]{12} the task was queued at \\(git fetch there\\); queued again for another runner`,
      ),
    );
    const waiting = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: origin, env: envA })).stdout)[1];
    expect(waiting).toMatchObject({ taskId: id2, status: 'pending', runs: 0, attempts: 0, runnerDeaths: 0 });
    execFileSync('git', ['fetch', '-q', 'origin'], { cwd: clones[0] });
    fake.push({ text: 'Did job two.' });
    // It answered without a call that changed anything: complete, with no changes, its answer shown as its claim.
    expect((await runDevx(['agent', 'run'], { cwd: clones[0], env: envB })).stdout).toBe(
      `Orchestrator finished task ${id2}: complete, no changes (the model said: "Did job two.").\n`,
    );

    // A schema newer than this devx is refused.
    await pg.sql(`INSERT INTO devx_schema_version (version, devx_version) VALUES (2, 'future')`, `cli${process.pid}`);
    const newer = await runDevx(['agent', 'status'], { cwd: origin, env: envA });
    expect(newer.code).toBe(5);
    expect(newer.stderr).toMatch(/is at schema version 2, newer than this devx knows \(1\): a newer devx migrated it; upgrade devx on this machine/);
    for (const r of [unmigrated, migrated, run, log, behind, newer]) expect(r.stdout + r.stderr).not.toContain(PG_PASSWORD);
  }, 120_000);

  const TASKS = 20;
  const KILLS = 7;
  it(`3 runners in 3 clones drain ${TASKS} tasks through ${KILLS} kill -9s and a server restart: every task completes exactly once`, async () => {
    const db = `kills${process.pid}`;
    const url = await pg.createDatabase(db);
    const { origin, clones, envs } = machines(3);
    const env = (i: number) => ({ ...envs[i], DEVX_QUEUE_URL: url });
    expect((await runDevx(['queue', 'migrate'], { cwd: origin, env: env(0) })).code).toBe(0);
    // Each answer carries a serial number: the one a task records names the API answer that completed it.
    let serial = 0;
    const served = new Map<string, number[]>();
    fake.fallback = (req) => {
      const job = /Task: (job \d+)\./.exec(req.promptText)?.[1] ?? 'none';
      const k = ++serial;
      served.set(job, [...(served.get(job) ?? []), k]);
      return { text: `Finished ${job} (answer ${k}).`, delayMs: 100 + Math.floor(Math.random() * 700) };
    };
    const t0 = Date.now();
    // The first 6 through `devx agent start` in each clone, the rest through the queue's own API (quicker).
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const r = await runDevx(['agent', 'start', 'worker', `job ${i}`], { cwd: clones[i % 3], env: env(i % 3) });
        expect(r.code, r.stderr).toBe(0);
      }),
    );
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: origin, encoding: 'utf8' }).trim();
    const q = await PgQueue.open(clones[0], url);
    for (let i = 6; i < TASKS; i++) await q.start({ agent: 'worker', prompt: `job ${i}`, revision: head });
    await q.close();
    const queuedMs = Date.now() - t0;

    const live: (ChildProcess | null)[] = [null, null, null];
    let started = 0;
    // The first runner runs two at once: its own claims race each other's and the other runners'. (The
    // others run one at a time: every slot a runner restarts starts a gemini, the dearest start there is.)
    const startRunner = (i: number) => {
      const c = spawn(process.execPath, [DEVX_BIN, 'agent', 'run', '--all', '--parallel', i === 0 ? '2' : '1', '--lease', '10'], {
        cwd: clones[i],
        env: env(i),
        stdio: 'ignore',
      });
      started++;
      live[i] = c;
      c.on('exit', () => {
        if (live[i] === c) live[i] = null;
      });
    };
    const counts = async () => {
      try {
        const rows = (await pg.sql(`SELECT status, count(*)::int AS n FROM devx_tasks GROUP BY status`, db)) as { status: string; n: number }[];
        return Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
      } catch {
        return null; // the server is restarting
      }
    };
    const points = Array.from({ length: KILLS }, () => Math.random() * TASKS * 0.9).sort((a, b) => a - b);
    const restartAt = TASKS * 0.4;
    let kills = 0;
    let restarted = false;
    const t1 = Date.now();
    let last: Record<string, number> | null = null;
    for (;;) {
      // A runner that found nothing pending has exited; it comes back while there is something to claim (or
      // when none is left to take over a killed runner's task). Restarting it at every turn of this loop
      // only spent CPU: each start is a devx process, and under load the loop turns many more times.
      const none = live.every((x) => x === null);
      for (let i = 0; i < 3; i++) if (!live[i] && (!last || (last.pending ?? 0) > 0 || none)) startRunner(i);
      await sleep(150 + Math.random() * 300);
      const c = await counts();
      if (!c) continue;
      last = c;
      const ended = TASKS - (c.pending ?? 0) - (c.running ?? 0);
      if (!restarted && ended >= restartAt) {
        restarted = true;
        await pg.restart();
      }
      while (kills < KILLS && ended >= points[kills]) {
        const victims = live.filter((x): x is ChildProcess => x !== null && x.exitCode === null);
        const v = victims[Math.floor(Math.random() * victims.length)];
        if (!v) break;
        process.kill(v.pid!, 'SIGKILL');
        kills++;
        await sleep(Math.random() * 400);
      }
      if (ended === TASKS && kills >= KILLS) break;
      if (Date.now() - t1 > 240_000) throw new Error(`the queue did not drain: ${JSON.stringify(c)}, ${kills} kills`);
    }
    const drainMs = Date.now() - t1;
    for (const c of live) c?.kill('SIGKILL');

    const tasks = ((await pg.sql('SELECT data FROM devx_tasks ORDER BY created_at', db)) as { data: any }[]).map((r) => r.data);
    const completions = (await pg.sql(`SELECT task_id, count(*)::int AS n FROM devx_task_logs WHERE line LIKE '%] task complete%' GROUP BY task_id`, db)) as {
      task_id: string;
      n: number;
    }[];
    const stats = `${TASKS} tasks, ${kills} kills, ${started} runner processes, server restarted: ${restarted}; queued in ${(queuedMs / 1000).toFixed(1)} s, drained in ${(drainMs / 1000).toFixed(1)} s; runner deaths on tasks: ${tasks.reduce((n, t) => n + t.runnerDeaths, 0)}; runs: ${tasks.reduce((n, t) => n + t.runs, 0)}; model calls: ${fake.modelCalls.length}`;
    console.log(`queuePostgres: ${stats}`);
    expect(restarted).toBe(true);
    expect(kills).toBe(KILLS);
    expect(tasks).toHaveLength(TASKS);
    expect(new Set(tasks.map((t) => t.prompt)).size).toBe(TASKS);
    expect(tasks.filter((t) => t.status !== 'complete').map((t) => `${t.prompt}: ${t.status} ${t.error}`)).toEqual([]);
    expect(completions).toHaveLength(TASKS);
    expect(completions.every((c) => c.n === 1)).toBe(true);
    for (const t of tasks) {
      // The answer the task recorded is one the API gave for that task's prompt, and no more runs were answered than were made.
      const m = /^Finished (job \d+) \(answer (\d+)\)\.$/.exec(t.summary);
      expect(m?.[1], t.summary).toBe(t.prompt);
      expect(served.get(t.prompt)).toContain(Number(m![2]));
      expect(served.get(t.prompt)!.length).toBeLessThanOrEqual(t.runs);
      expect(t.attempts).toBe(0);
    }
  }, 300_000);
});
