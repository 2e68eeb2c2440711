// A task's files are its own: tasks run at the same time in one checkout (--parallel 4) each run in a git
// worktree of their own, so a task's patch and its devx/<id> branch hold exactly its own changes, on the
// file queue and on PostgreSQL; its changes are applied to the checkout where they apply; worktrees go
// when their task ends (from a folder devx owns outside the checkout), and those of a runner killed with -9
// go with the next runner. The file queue's drain runs the binary with the real gemini against the scripted fake
// API; the rest (queueing, the PostgreSQL drain, the run after a kill) run devx's command in this process with a
// scripted model (runCliHere). Real git, a PostgreSQL server started for the test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gate, type FakeGeminiApi, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { startDevx, until } from '../helpers/processes.js';
import { runCliHere } from '../helpers/runCliHere.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { PgCluster, whyNoPostgres } from '../helpers/postgres.js';
import { PgQueue } from '../../src/queue/postgres/pgQueue.js';
import { worktreesDir } from '../../src/queue/taskWorktree.js';
import { SECOND_PASS } from '../helpers/scope.js';

const TASKS = 12;
/** Every fourth task also writes the one file they share: three tasks race for it. */
const sharesFile = (i: number) => i % 4 === 0;
const WORKER = '---\nname: worker\ndescription: does queued jobs\ntools: [read_file, write_file]\n---\nYou do one small job and report it.\n';
const skipPg = whyNoPostgres();
// CI's second pass (DEVX_TEST_SCOPE=tools, PostgreSQL installed) runs only the PostgreSQL case: the first ran the rest.
const pgOnly = SECOND_PASS;

let fake: FakeGeminiApi;
let home: string;
const children: ChildProcess[] = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});
let pg: PgCluster | undefined;
beforeAll(async () => {
  if (!skipPg) pg = await PgCluster.start();
}, 120_000);
afterAll(() => pg?.stop());

/** The model: task i writes its own file (and, every fourth, the shared one), then says it is done. */
function answerTask(prompt: string): string {
  if (/TOOL_RESULT: write_file/.test(prompt)) return 'Done.';
  const m = /Task: job (\d+)\./.exec(prompt);
  if (!m) return 'No job here.';
  const i = Number(m[1]);
  const own = `TOOL_CALL: write_file | path=.devx/agents/workspace/f${i}.txt | content=task ${i}`;
  return sharesFile(i) ? `${own}\nTOOL_CALL: write_file | path=.devx/agents/workspace/shared.txt | content=from ${i}` : own;
}
const answerTasks = (req: RecordedRequest) => ({ text: answerTask(req.promptText) });
/** The same model, in this process: every request answered by answerTask. */
const taskModel = () => new ScriptedBackend(Array.from({ length: 100 }, () => (req: { prompt: string }) => answerTask(req.prompt)));
/** `devx agent …` in this process (queueing and reading the queue take no model; a run takes `taskModel`). */
const agentHere = (args: string[], project: string, env: NodeJS.ProcessEnv) => runCliHere(['agent', ...args], { cwd: project, env, backend: taskModel() });

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });
/** The paths a patch touches. */
const patchPaths = (patch: string) => [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]);
const expected = (i: number) => [`.devx/agents/workspace/f${i}.txt`, ...(sharesFile(i) ? ['.devx/agents/workspace/shared.txt'] : [])].sort();

/** Queues the jobs; their ids in order (job i is ids[i]). */
async function queueJobs(project: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const r = await agentHere(['start', 'worker', `job ${i}`], project, env);
    expect(r.code, r.stderr).toBe(0);
    ids.push(/Task (task_\w+)/.exec(r.stdout)![1]);
  }
  return ids;
}

/**
 * Counts the tasks whose patch or branch holds a change that is not their own (the measure: 0), and checks
 * each branch's content is its task's.
 */
function foreignChanges(project: string, ids: string[], patchOf: (id: string) => string): { patches: number; branches: number } {
  let patches = 0;
  let branches = 0;
  ids.forEach((id, i) => {
    if (JSON.stringify(patchPaths(patchOf(id)).sort()) !== JSON.stringify(expected(i))) patches++;
    const onBranch = git(project, 'diff', '--name-only', `devx/${id}^`, `devx/${id}`).split('\n').filter(Boolean).sort();
    if (JSON.stringify(onBranch) !== JSON.stringify(expected(i))) branches++;
    expect(git(project, 'show', `devx/${id}:.devx/agents/workspace/f${i}.txt`)).toBe(`task ${i}`);
    if (sharesFile(i)) expect(git(project, 'show', `devx/${id}:.devx/agents/workspace/shared.txt`)).toBe(`from ${i}`);
  });
  return { patches, branches };
}

/**
 * Runs the queue with four at a time (the binary with the real gemini, or here with the scripted model) and checks
 * what every task reports and what the checkout holds.
 */
async function drainAndCheck(project: string, env: NodeJS.ProcessEnv, ids: string[], where: 'binary' | 'here'): Promise<void> {
  fake.fallback = answerTasks;
  const drain = ['run', '--all', '--parallel', '4'];
  const run = where === 'binary' ? await runDevx(['agent', ...drain], { cwd: project, env, timeoutMs: 280_000 }) : await agentHere(drain, project, env);
  expect(run.code, run.stderr).toBe(0);
  const tasks = JSON.parse((await agentHere(['status', '--json'], project, env)).stdout) as {
    taskId: string;
    status: string;
    changed: string[];
    resultBranch: string;
  }[];
  ids.forEach((id, i) => {
    const t = tasks.find((x) => x.taskId === id)!;
    expect(t).toMatchObject({ status: 'complete', resultBranch: `devx/${id}` });
    expect([...t.changed].sort()).toEqual(expected(i));
  });
  // Every task's own file landed in the checkout; the shared one holds one task's version.
  for (let i = 0; i < TASKS; i++) expect(fs.readFileSync(path.join(project, `.devx/agents/workspace/f${i}.txt`), 'utf8')).toBe(`task ${i}`);
  expect(fs.readFileSync(path.join(project, '.devx/agents/workspace/shared.txt'), 'utf8')).toMatch(/^from \d+$/);
  // No worktree is left, on disk or in git's records; the checkout's status stays clean.
  expect(fs.readdirSync(worktreesDir(fs.realpathSync(project)))).toEqual([]);
  expect(git(project, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  // (devx's own .gitignore for .devx/ is new to this repository; nothing else shows.)
  expect(git(project, 'status', '--porcelain')).toBe('?? .devx/.gitignore\n');
}

describe('tasks that run at the same time never see each other’s files', () => {
  it.skipIf(pgOnly)(
    `file queue: ${TASKS} tasks, --parallel 4, one checkout: patches and branches hold only their own task's changes`,
    async () => {
      const project = makeProject({ '.devx/agents/worker.md': WORKER });
      const env = { ...fakeEnv(fake, home), TMPDIR: os.tmpdir() };
      const ids = await queueJobs(project, env);
      await drainAndCheck(project, env, ids, 'binary');
      const foreign = foreignChanges(project, ids, (id) => fs.readFileSync(path.join(project, `.devx/agents/patches/${id}.patch`), 'utf8'));
      console.log(`isolation, file queue: ${TASKS} tasks --parallel 4: patches holding another task's change ${foreign.patches}, branches ${foreign.branches}`);
      expect(foreign).toEqual({ patches: 0, branches: 0 });
    },
    300_000,
  );

  it.skipIf(skipPg)(
    `PostgreSQL queue: ${TASKS} tasks, --parallel 4, one checkout: the same`,
    async () => {
      const url = await pg!.createDatabase(`iso${process.pid}`);
      const project = makeProject({ '.devx/agents/worker.md': WORKER });
      const env = { ...fakeEnv(fake, home), TMPDIR: os.tmpdir(), DEVX_QUEUE_URL: url };
      expect((await runDevx(['queue', 'migrate'], { cwd: project, env })).code).toBe(0);
      const ids = await queueJobs(project, env);
      await drainAndCheck(project, env, ids, 'here');
      const q = await PgQueue.open(project, url);
      const patches = new Map<string, string>();
      for (const id of ids) patches.set(id, (await q.readLog(id))?.patch ?? '');
      await q.close();
      const foreign = foreignChanges(project, ids, (id) => patches.get(id)!);
      console.log(
        `isolation, PostgreSQL queue: ${TASKS} tasks --parallel 4: patches holding another task's change ${foreign.patches}, branches ${foreign.branches}`,
      );
      expect(foreign).toEqual({ patches: 0, branches: 0 });
    },
    300_000,
  );

  it.skipIf(pgOnly)(
    'a runner killed with -9 leaves its worktree; the next runner removes it and runs the task again',
    async () => {
      const project = makeProject({ '.devx/agents/worker.md': WORKER });
      const env = { ...fakeEnv(fake, home), TMPDIR: os.tmpdir() };
      const id = /Task (task_\w+)/.exec((await agentHere(['start', 'worker', 'job 7'], project, env)).stdout)![1];
      const held = gate();
      let asked = false;
      fake.fallback = () => ((asked = true), { text: 'never seen', after: held.opened });
      const { child } = startDevx(['agent', 'run'], project, env, children);
      const dirs = () => (fs.existsSync(worktreesDir(fs.realpathSync(project))) ? fs.readdirSync(worktreesDir(fs.realpathSync(project))) : []);
      await until(() => asked);
      const left = dirs();
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(new RegExp(`^\\d+-${id}$`));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      held.open();
      expect(git(project, 'worktree', 'list')).toContain(left[0]);
      const again = await agentHere(['run'], project, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('removed 1 worktree left by runners that are gone');
      expect(dirs()).toEqual([]);
      expect(git(project, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
      expect(fs.readFileSync(path.join(project, '.devx/agents/workspace/f7.txt'), 'utf8')).toBe('task 7');
    },
    120_000,
  );
});
