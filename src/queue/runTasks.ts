// Runs queued tasks: claim, run the agent headless (runtime's runHeadless) with its plan file and
// the workspace, write the transcript to the task's log file, keep the lease alive, and record the
// outcome, derived from what happened: a task whose every tool call was refused ends `blocked`; one
// with a refused or failed write ends `incomplete`; each lists those calls; a `complete` one lists the
// paths it changed, or says it changed nothing (`noChanges`). The agent writes only in the queue's
// workspace, its plan file and the paths the task names (policy/writeScope.ts). In a git checkout each
// task runs in a worktree of its own (taskWorktree.ts), so concurrent tasks never see each other's files:
// its changes come back as a patch and a branch devx/<task id> holding exactly them (runnerGit.ts), and
// are applied to the checkout when they apply. Elsewhere tasks run one at a time in the checkout. On a
// queue whose runners may be elsewhere (Postgres), a runner whose checkout lacks the task's revision
// gives it back, and the branch is pushed to origin.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentEvent } from '../core/loop.js';
import type { TokenUsage } from '../providers/types.js';
import type { Task } from './taskSchema.js';
import type { QueueBackend, RunArtifacts, TaskResult } from './queueBackend.js';
import { SharedBackends } from '../runtime/sharedBackends.js';
import {
  applyPatch,
  changedPaths,
  commitChanges,
  diffTrees,
  hasCommit,
  headRevision,
  pushBranch,
  rememberHead,
  setTaskBranch,
  snapshotPaths,
} from './runnerGit.js';
import { addWorktree, branchCommit, copyFilesInto, removeWorktree, sweepWorktrees } from './taskWorktree.js';
import { findAgent, loadAgents, type AgentDef } from '../personas/loadAgents.js';
import { devxHome } from '../config/paths.js';
import type { WriteScope } from '../policy/writeScope.js';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';
import { ensureDevxDir } from '../session/projectFiles.js';
import { unsafeTaskFields } from './checkRemoteTask.js';
import { describeCall } from '../tools/types.js';
import {
  describeCalls,
  describeFailedCall,
  failedWrites,
  refusedCalls,
  runHeadless,
  type HeadlessOptions,
  type HeadlessResult,
} from '../runtime/runHeadless.js';
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
  /** Something the person running the queue should know (how tasks are isolated, worktrees cleaned up). */
  onNotice?: (text: string) => void;
  /** The runner gave the task back: this checkout cannot run it. */
  onTaskRefused?: (t: Task, why: string) => void;
}

function logLine(e: AgentEvent): string | null {
  const t = new Date().toISOString();
  switch (e.type) {
    case 'turn_start':
      return `[${t}] task prompt:\n${e.input}`;
    case 'model_response':
      return `[${t}] model ${e.model}${e.account ? ` (account ${e.account})` : ''}: ${e.chars} chars in ${e.durationMs} ms${usageWords(e.usage)}`;
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

/** A model call's tokens as the CLI reported them, for the transcript line; empty when it reported none. */
function usageWords(u: TokenUsage | undefined): string {
  return u ? `, tokens: ${u.input ?? '?'} input (${u.cached ?? 0} cached), ${u.output ?? '?'} output` : '';
}

/** Why this checkout cannot run the task (it lacks the revision the task was queued at); null when it can. */
async function cannotRun(queue: QueueBackend, task: Task): Promise<string | null> {
  if (!queue.remote || !task.revision || (await hasCommit(queue.root, task.revision))) return null;
  return `runner on ${os.hostname()} (${queue.root}) does not have commit ${task.revision.slice(0, 12)} the task was queued at (git fetch there); queued again for another runner`;
}

/** Where a task runs: its own worktree (made from `base`), or the checkout itself when there is no git to isolate it. */
interface TaskPlace {
  root: string;
  /** The commit its worktree was made from; undefined when it runs in the checkout. */
  base?: string;
}

/** The commit a task's worktree starts from: the branch of the task it comes after, else the queued revision, else HEAD. */
async function baseOf(queue: QueueBackend, task: Task): Promise<string | undefined> {
  const after = task.after ? await branchCommit(queue.root, `devx/${task.after}`) : undefined;
  return after ?? task.revision ?? (await headRevision(queue.root));
}

/** Makes the task's place: a worktree of its own when `isolate`, else the checkout. */
async function openPlace(queue: QueueBackend, task: Task, isolate: boolean): Promise<TaskPlace | { why: string }> {
  if (!isolate) return { root: queue.root };
  const base = await baseOf(queue, task);
  if (!base) return { why: 'the checkout has no commit to make a worktree from' };
  const made = await addWorktree(queue.root, task.taskId, base);
  if ('why' in made) return made;
  try {
    copyWorkspace(queue, made.dir);
  } catch (err) {
    await removeWorktree(queue.root, made.dir);
    return { why: `cannot copy the queue's workspace into it: ${(err as Error).message}` };
  }
  return { root: made.dir, base };
}

/**
 * The queue's workspace as it is in the checkout (git does not track it), copied into a new worktree: the task
 * sees what earlier tasks left there, and its snapshot before the run holds it, so none of it counts as its change.
 */
function copyWorkspace(queue: QueueBackend, dir: string): void {
  if (!fs.existsSync(queue.workspace)) return;
  copyFilesInto(queue.workspace, path.join(dir, path.relative(queue.root, queue.workspace)));
}

/** The task's prompt: its request, its plan file, where it may write, and the answer of the step it comes after. */
async function taskPrompt(queue: QueueBackend, task: Task, workspace: string): Promise<string> {
  let prompt = `Task: ${task.prompt}. Your plan file is at ${task.planFile}. All file I/O must be within the './${workspace}/' directory${task.writes?.length ? ` (you may also write ${task.writes.join(', ')})` : ''}.`;
  if (task.after) {
    const prev = await queue.read(task.after);
    if (prev?.summary) prompt += `\n\nInput from the previous step (${prev.agent}, ${prev.taskId}):\n${prev.summary}`;
  }
  return prompt;
}

/** The agent a task names, as defined in the checkout that runs it (a worktree holds only what git tracks). */
function personaOf(queue: QueueBackend, task: Task, place: TaskPlace): string | AgentDef {
  if (place.root === queue.root) return task.agent;
  try {
    return findAgent(loadAgents(queue.root, process.env.HOME ?? '', devxHome(process.env)), task.agent);
  } catch {
    return task.agent; // the run says why it cannot find it
  }
}

/** The run's working folder: the same place inside the task's worktree as the runner's inside its checkout. */
function cwdIn(queue: QueueBackend, place: TaskPlace, cwd: string): string {
  const rel = path.relative(queue.root, cwd);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? path.join(place.root, rel) : place.root;
}

/** Fails a claimed task before it ran (a field the runner refuses, no place to run it). */
async function failBeforeRun(queue: QueueBackend, task: Task, runner: string, error: string): Promise<Task> {
  return (await queue.finish(task.taskId, runner, { status: 'failed', error }, { logLine: `[${new Date().toISOString()}] ${error}` })) ?? task;
}

/** Runs one claimed task; null when this runner gave it back (it cannot run it here). */
export async function runOneTask(
  queue: QueueBackend,
  task: Task,
  runner: string,
  opts: RunOptions,
  childObserver: ChildObserver,
  isolate = false,
): Promise<Task | null> {
  const log = (s: string) => queue.appendLog(task, s);
  const unsafe = queue.remote ? unsafeTaskFields(task) : null;
  if (unsafe) return failBeforeRun(queue, task, runner, `the runner refused the task: ${unsafe}`);
  const refused = await cannotRun(queue, task);
  if (refused) {
    log(`[${new Date().toISOString()}] ${refused}`);
    await queue.release(task.taskId, runner, refused);
    return null;
  }
  const place = await openPlace(queue, task, isolate);
  if ('why' in place) return failBeforeRun(queue, task, runner, `the runner could not give the task a worktree of its own: ${place.why}`);
  try {
    return await runInPlace(queue, task, runner, opts, childObserver, place, log);
  } finally {
    if (place.base) {
      keepAuditLog(queue, task, place);
      await removeWorktree(queue.root, place.root);
    }
  }
}

/** The audit log the run kept in its worktree, kept beside the task's transcript before the worktree goes. */
function keepAuditLog(queue: QueueBackend, task: Task, place: TaskPlace): void {
  const text = readTextOrNull(path.join(place.root, '.devx', 'audit.jsonl'), READ_LIMITS.state);
  if (!text) return;
  try {
    const file = path.join(queue.root, task.logFile.replace(/\.log$/, '.audit.jsonl'));
    mkdirOwnedSync(path.dirname(file));
    appendOwnedSync(file, text);
  } catch {
    /* the transcript still holds every call */
  }
}

/** What the run's tool calls say: the status, why, and the calls listed with it. */
function outcomeOf(result: HeadlessResult, writeScope: WriteScope): Pick<TaskResult, 'status' | 'error' | 'failedCalls'> {
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
  return { status, error, failedCalls };
}

/** The paths the run's successful file writes name (what is known of its changes without git). */
function writtenPaths(result: HeadlessResult): string[] {
  return [...new Set(result.toolCalls.filter((c) => c.status === 'ok' && c.writes === 'file' && c.args.path).map((c) => c.args.path))];
}

/** Whether the run made a call that changed something (a write that ran, a command judged to write that ran). */
function madeChanges(result: HeadlessResult): boolean {
  return result.toolCalls.some((c) => c.status === 'ok' && c.writes !== null);
}

async function runInPlace(
  queue: QueueBackend,
  task: Task,
  runner: string,
  opts: RunOptions,
  childObserver: ChildObserver,
  place: TaskPlace,
  log: (s: string) => void,
): Promise<Task> {
  log(
    `[${new Date().toISOString()}] runner ${runner} (pid ${process.pid}) starts run ${task.runs} (${task.attempts} failed attempts, ${task.runnerDeaths} runner deaths before)${place.base ? ` in a worktree of its own at ${place.base.slice(0, 12)}` : ''}`,
  );
  const workspace = path.relative(queue.root, queue.workspace).split(path.sep).join('/');
  const scopePaths = [workspace, task.planFile, ...(task.writes ?? [])];
  const writeScope = makeWriteScope(place.root, scopePaths, `task ${task.taskId}`);
  await queue.preparePlan(task, place.root);
  // The task's changes to the project, without its plan (which goes back on its own, with the result).
  const changePaths = scopePaths.filter((p) => p !== task.planFile);
  const before = queue.remote || place.base ? await snapshotPaths(place.root, changePaths) : undefined;
  const prompt = await taskPrompt(queue, task, workspace);
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
    const result: HeadlessResult = await runHeadless({
      ...opts.run,
      cwd: cwdIn(queue, place, opts.run.cwd),
      prompt,
      persona: personaOf(queue, task, place),
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
      rounds: 0,
      messages: [],
      transcriptPath: '',
    }));
    const outcome = outcomeOf(result, writeScope);
    const artifacts = await collectArtifacts(queue, task, place, changePaths, before, log);
    const changed = artifacts.changed ?? writtenPaths(result);
    const noChanges = outcome.status === 'complete' && !changed.length && (artifacts.changed !== undefined || !madeChanges(result));
    // The last line lands with the result (in one transaction on Postgres), only if this runner still holds the task.
    const said = noChanges && result.answer ? ` (the model said: ${JSON.stringify(result.answer.replace(/\s+/g, ' ').slice(0, 200))})` : '';
    const lastLine = `[${new Date().toISOString()}] task ${outcome.status}${noChanges ? ', no changes' : ''}${outcome.error ? `: ${outcome.error}` : ''}${said}`;
    const done = await queue.finish(
      task.taskId,
      runner,
      {
        ...outcome,
        summary: result.answer?.slice(0, 4000),
        usage: result.usage,
        changed,
        ...(noChanges ? { noChanges: true } : {}),
        ...(artifacts.branch ? { resultBranch: artifacts.branch } : {}),
      },
      { plan: artifacts.plan, patch: artifacts.patch, logLine: lastLine },
    );
    // Another runner took the task over (this one's lease had expired): its result stands, not this one.
    if (!done) log(`[${new Date().toISOString()}] runner ${runner} no longer holds the task; its result (${outcome.status}) is discarded`);
    return done ?? task;
  } finally {
    clearInterval(beat);
  }
}

/** The task's changes: its plan's text, a patch, the paths it changed and the branch that holds them. */
type Collected = RunArtifacts & { branch?: string; changed?: string[] };

/**
 * The plan file's text and, where snapshots were taken (a worktree of its own, or a queue whose runners are
 * elsewhere), the task's changes as a patch, the paths they touch, and a branch devx/<task id> holding exactly
 * them: set locally for a worktree, pushed to origin when there is one. A worktree's changes are applied to the
 * checkout too, when they apply (all of them or none).
 */
async function collectArtifacts(
  queue: QueueBackend,
  task: Task,
  place: TaskPlace,
  changePaths: string[],
  before: string | undefined,
  log: (s: string) => void,
): Promise<Collected> {
  const isolated = place.base !== undefined;
  if (!queue.remote && !isolated) return {};
  const plan = readTextOrNull(path.join(place.root, task.planFile), READ_LIMITS.state) ?? undefined; // none when the run removed it
  const after = before ? await snapshotPaths(place.root, changePaths) : undefined;
  if (!before || !after) return { plan };
  const patch = await diffTrees(place.root, before, after);
  const base = place.base ?? task.revision;
  if (!patch) return { plan, changed: await changedPaths(place.root, before, after) };
  const made = base ? await commitChanges(place.root, task.taskId, base, before, after) : { why: 'no revision recorded' };
  if ('why' in made) {
    log(`[${new Date().toISOString()}] changes: stored as a patch (no branch: ${made.why})`);
    return { plan, patch, changed: await changedPaths(place.root, before, after) };
  }
  const branch = await branchFor(queue, task, made.commit, isolated, log);
  if (isolated) await applyToCheckout(queue, task, { patch, paths: made.changed }, branch, log);
  return { plan, patch, branch, changed: made.changed };
}

/** Sets devx/<task id> locally (a worktree's task) and pushes it to origin (a queue whose runners are elsewhere). */
async function branchFor(queue: QueueBackend, task: Task, commit: string, isolated: boolean, log: (s: string) => void): Promise<string | undefined> {
  const local = isolated ? await setTaskBranch(queue.root, task.taskId, commit) : { why: 'not made locally' };
  const pushed = queue.remote ? await pushBranch(queue.root, task.taskId, commit) : { why: "the queue is this checkout's" };
  const where = [local.branch ? `branch ${local.branch} in this checkout` : '', pushed.branch ? `pushed to origin as ${pushed.branch}` : ''].filter(Boolean);
  log(`[${new Date().toISOString()}] changes: ${where.length ? where.join(', ') : `stored as a patch (no branch: ${pushed.why})`}`);
  return pushed.branch ?? local.branch;
}

/** One task's changes land in the checkout at a time. */
let applying: Promise<unknown> = Promise.resolve();

/** Applies a worktree task's changes to the checkout (path by path where the whole does not apply), saying so in its transcript. */
async function applyToCheckout(
  queue: QueueBackend,
  task: Task,
  change: { patch: string; paths: string[] },
  branch: string | undefined,
  log: (s: string) => void,
): Promise<void> {
  const turn = applying.then(() => applyPatch(queue.root, change.patch, change.paths));
  applying = turn.catch(() => {});
  const failed = await turn;
  const kept = `${branch ? `branch ${branch} and ` : ''}the patch (devx agent log ${task.taskId})`;
  log(
    `[${new Date().toISOString()}] ${failed.length ? `changes applied to the checkout except ${failed.map((f) => `${f.path} (${f.why})`).join(', ')}; all of them are in ${kept}` : 'changes applied to the checkout'}`,
  );
}

/** Whether tasks can run in worktrees of their own: a git checkout (its top, where .git is) with a commit. */
async function canIsolate(root: string): Promise<boolean> {
  return fs.existsSync(path.join(root, '.git')) && (await headRevision(root)) !== undefined;
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
      const done = await runOneTask(queue, task, runner, opts, observer, isolate);
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
  const isolate = await canIsolate(queue.root);
  if (isolate) {
    // The checkout's own .devx/ keeps its .gitignore (its runs, in worktrees, do not make it here).
    ensureDevxDir(queue.root);
    const swept = await sweepWorktrees(queue.root);
    if (swept.length) opts.onNotice?.(`removed ${swept.length} worktree${swept.length === 1 ? '' : 's'} left by runners that are gone`);
  } else if (opts.parallel > 1) {
    opts.onNotice?.(
      `this project is not a git checkout with a commit, so tasks cannot have worktrees of their own: they run one at a time in it (--parallel ${opts.parallel} ignored)`,
    );
    opts = { ...opts, parallel: 1 };
  }
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
