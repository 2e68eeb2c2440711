// Runs queued tasks: claim, run the agent headless (runtime's runHeadless) with its plan file and
// the workspace, write the transcript to the task's log file, keep the lease alive, and record the
// outcome, derived from what happened: a task whose every tool call was refused ends `blocked`; one
// with a refused or failed write ends `incomplete`; each lists those calls. The agent writes only in
// the queue's workspace, its plan file and the paths the task names (policy/writeScope.ts). On a queue
// whose runners may be elsewhere (Postgres), a runner whose checkout lacks the task's revision gives it
// back, and the task's changes come back as a patch (and a branch on origin, runnerGit.ts).
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentEvent } from '../core/loop.js';
import type { Task } from './taskSchema.js';
import type { QueueBackend, RunArtifacts } from './queueBackend.js';
import { SharedBackends } from '../runtime/sharedBackends.js';
import { diffTrees, hasCommit, pushBranch, rememberHead, snapshotPaths } from './runnerGit.js';
import { unsafeTaskFields } from './checkRemoteTask.js';
import { describeCall } from '../tools/types.js';
import { describeCalls, describeFailedCall, failedWrites, refusedCalls, runHeadless, type HeadlessOptions } from '../runtime/runHeadless.js';
import { describeWriteScope, makeWriteScope } from '../policy/writeScope.js';
import type { ChildObserver } from '../util/processRunner.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';

export interface RunOptions {
  all: boolean;
  parallel: number;
  leaseMs: number;
  model?: string;
  /** Where and how the tasks run (cwd, env, approval mode, ...). */
  run: Omit<HeadlessOptions, 'prompt' | 'persona' | 'signal' | 'onEvent' | 'childObserver' | 'model'>;
  onTaskStart?: (t: Task) => void;
  /** The queue's part is done (revision checked, plan in place, snapshot taken): the agent's run begins. */
  onRunStart?: (t: Task) => void;
  onTaskEnd?: (t: Task) => void;
  /** The runner gave the task back: this checkout cannot run it. */
  onTaskRefused?: (t: Task, why: string) => void;
}

function logLine(e: AgentEvent): string | null {
  const t = new Date().toISOString();
  switch (e.type) {
    case 'turn_start':
      return `[${t}] task prompt:\n${e.input}`;
    case 'model_response':
      return `[${t}] model ${e.model}${e.account ? ` (account ${e.account})` : ''}: ${e.chars} chars in ${e.durationMs} ms`;
    case 'assistant_text':
      return `[${t}] ${e.final ? 'final answer' : 'assistant'}:\n${e.text}`;
    case 'tool_start':
      return `[${t}] -> ${describeCall(undefined, e.tool, e.args)}`;
    case 'tool_end':
      return `[${t}] <- ${e.outcome.summary} ${e.outcome.status} (${e.outcome.durationMs} ms)\n${e.outcome.content.slice(0, 4000)}`;
    case 'turn_end':
      return `[${t}] turn ended: ${e.status}${e.error ? ` (${e.error.message})` : ''}`;
    default:
      return null;
  }
}

/** Why this checkout cannot run the task (it lacks the revision the task was queued at); null when it can. */
async function cannotRun(queue: QueueBackend, task: Task): Promise<string | null> {
  if (!queue.remote || !task.revision || (await hasCommit(queue.root, task.revision))) return null;
  return `runner on ${os.hostname()} (${queue.root}) does not have commit ${task.revision.slice(0, 12)} the task was queued at (git fetch there); queued again for another runner`;
}

/** Runs one claimed task; null when this runner gave it back (it cannot run it here). */
export async function runOneTask(queue: QueueBackend, task: Task, runner: string, opts: RunOptions, childObserver: ChildObserver): Promise<Task | null> {
  const log = (s: string) => queue.appendLog(task, s);
  const unsafe = queue.remote ? unsafeTaskFields(task) : null;
  if (unsafe) {
    const error = `the runner refused the task: ${unsafe}`;
    return (await queue.finish(task.taskId, runner, { status: 'failed', error }, { logLine: `[${new Date().toISOString()}] ${error}` })) ?? task;
  }
  const refused = await cannotRun(queue, task);
  if (refused) {
    log(`[${new Date().toISOString()}] ${refused}`);
    await queue.release(task.taskId, runner, refused);
    return null;
  }
  log(
    `[${new Date().toISOString()}] runner ${runner} (pid ${process.pid}) starts run ${task.runs} (${task.attempts} failed attempts, ${task.runnerDeaths} runner deaths before)`,
  );
  const workspace = path.relative(queue.root, queue.workspace).split(path.sep).join('/');
  const scopePaths = [workspace, task.planFile, ...(task.writes ?? [])];
  const writeScope = makeWriteScope(queue.root, scopePaths, `task ${task.taskId}`);
  await queue.preparePlan(task);
  // The task's changes to the project, without its plan (which goes back on its own, with the result).
  const changePaths = scopePaths.filter((p) => p !== task.planFile);
  const before = queue.remote ? await snapshotPaths(queue.root, changePaths) : undefined;
  let prompt = `Task: ${task.prompt}. Your plan file is at ${task.planFile}. All file I/O must be within the './${workspace}/' directory${task.writes?.length ? ` (you may also write ${task.writes.join(', ')})` : ''}.`;
  if (task.after) {
    const prev = await queue.read(task.after);
    if (prev?.summary) prompt += `\n\nInput from the previous step (${prev.agent}, ${prev.taskId}):\n${prev.summary}`;
  }
  const controller = new AbortController();
  const beat = setInterval(
    async () => {
      try {
        const t = await queue.heartbeat(task.taskId, runner, opts.leaseMs);
        if (t?.cancelRequested) controller.abort();
      } catch {
        /* a missed heartbeat only shortens the lease */
      }
    },
    Math.max(200, Math.floor(opts.leaseMs / 3)),
  );
  try {
    opts.onRunStart?.(task);
    const result = await runHeadless({
      ...opts.run,
      prompt,
      persona: task.agent,
      model: opts.model,
      writeScope,
      signal: controller.signal,
      childObserver,
      onEvent: (e) => {
        const line = logLine(e);
        if (line) log(line);
      },
    }).catch((err: Error) => ({
      status: 'error' as const,
      error: { kind: 'config', message: err.message },
      answer: undefined,
      toolCalls: [],
      usage: { input: 0, output: 0 },
    }));
    const refusedList = refusedCalls(result.toolCalls);
    const unwritten = failedWrites(result.toolCalls);
    const answered = result.status === 'answered';
    const blocked = answered && result.toolCalls.length > 0 && refusedList.length === result.toolCalls.length;
    const status = blocked
      ? 'blocked'
      : answered && unwritten.length
        ? 'incomplete'
        : answered
          ? 'complete'
          : result.status === 'cancelled'
            ? 'cancelled'
            : 'failed';
    const listed = blocked ? refusedList : unwritten;
    const error =
      status === 'blocked'
        ? `every tool call was refused: ${describeCalls(refusedList)}`
        : status === 'incomplete'
          ? `${unwritten.length} write${unwritten.length === 1 ? '' : 's'} did not happen (the task may write ${describeWriteScope(writeScope)}): ${describeCalls(unwritten)}`
          : answered
            ? undefined
            : (result.error?.message ?? result.status);
    const failedCalls = listed.length && (status === 'blocked' || status === 'incomplete') ? listed.map(describeFailedCall) : undefined;
    const artifacts = await collectArtifacts(queue, task, scopePaths, before, log);
    const resultBranch = artifacts.branch;
    // The last line lands with the result (in one transaction on Postgres), only if this runner still holds the task.
    const lastLine = `[${new Date().toISOString()}] task ${status}${error ? `: ${error}` : ''}`;
    const done = await queue.finish(
      task.taskId,
      runner,
      { status, summary: result.answer?.slice(0, 4000), error, usage: result.usage, failedCalls, ...(resultBranch ? { resultBranch } : {}) },
      { ...artifacts, logLine: lastLine },
    );
    // Another runner took the task over (this one's lease had expired): its result stands, not this one.
    if (!done) log(`[${new Date().toISOString()}] runner ${runner} no longer holds the task; its result (${status}) is discarded`);
    return done ?? task;
  } finally {
    clearInterval(beat);
  }
}

/** The plan file's text and, on a queue whose runners are elsewhere, the task's changes as a patch and a branch. */
async function collectArtifacts(
  queue: QueueBackend,
  task: Task,
  scope: string[],
  before: string | undefined,
  log: (s: string) => void,
): Promise<RunArtifacts & { branch?: string }> {
  if (!queue.remote) return {};
  let plan: string | undefined;
  plan = readTextOrNull(path.join(queue.root, task.planFile), READ_LIMITS.state) ?? undefined; // none when the run removed it
  const after = before
    ? await snapshotPaths(
        queue.root,
        scope.filter((p) => p !== task.planFile),
      )
    : undefined;
  const patch = before && after ? await diffTrees(queue.root, before, after) : '';
  if (!patch) return { plan };
  const pushed = task.revision && before && after ? await pushBranch(queue.root, task.taskId, task.revision, before, after) : { why: 'no revision recorded' };
  log(`[${new Date().toISOString()}] changes: ${pushed.branch ? `pushed to origin as ${pushed.branch}` : `stored as a patch (no branch: ${pushed.why})`}`);
  return { plan, patch, branch: pushed.branch };
}

export async function runTasks(queue: QueueBackend, opts: RunOptions): Promise<Task[]> {
  const ran: Task[] = [];
  const children = new Set<number>();
  const sync = () => queue.trackChildren(process.pid, [...children]);
  // The queue records this runner's live process groups, so a runner killed with -9 can be cleaned up.
  const observer: ChildObserver = { started: (g) => (children.add(g), sync()), ended: (g) => (children.delete(g), sync()) };
  // Tasks this checkout cannot run (it lacks their revision): left for other runners.
  const skip = new Set<string>();
  const worker = async () => {
    const runner = `${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    for (;;) {
      const task = await queue.claim(runner, opts.leaseMs, skip);
      if (!task) return;
      opts.onTaskStart?.(task);
      const done = await runOneTask(queue, task, runner, opts, observer);
      if (!done) {
        skip.add(task.taskId);
        opts.onTaskRefused?.(task, (await queue.read(task.taskId))?.error ?? 'it cannot run here');
        continue;
      }
      ran.push(done);
      opts.onTaskEnd?.(done);
      if (!opts.all) return;
    }
  };
  if (queue.remote) await rememberHead(queue.root);
  // The runner's tasks share one warm model process per slot, instead of one process per model call.
  const shared = opts.run.sharedBackends ? null : new SharedBackends();
  if (shared) opts = { ...opts, run: { ...opts.run, sharedBackends: shared } };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  } finally {
    await shared?.dispose();
    children.clear();
    sync();
  }
  return ran;
}
