// Runs queued tasks: claim, run the agent headless (runtime's runHeadless) with its plan file and
// the workspace, write the transcript to the task's log file, keep the lease alive, and record the
// outcome, derived from what happened: a task whose every tool call was refused ends `blocked`; one
// with a refused or failed write ends `incomplete`; each lists those calls. The agent writes only in
// the queue's workspace, its plan file and the paths the task names (policy/writeScope.ts).
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentEvent } from '../core/loop.js';
import type { Task, TaskQueue } from './taskQueue.js';
import { describeCall } from '../tools/types.js';
import { describeCalls, describeFailedCall, failedWrites, refusedCalls, runHeadless, type HeadlessOptions } from '../runtime/runHeadless.js';
import { describeWriteScope, makeWriteScope } from '../policy/writeScope.js';
import type { ChildObserver } from '../util/processRunner.js';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';

export interface RunOptions {
  all: boolean;
  parallel: number;
  leaseMs: number;
  model?: string;
  /** Where and how the agents run (cwd, env, approval mode, ...). */
  run: Omit<HeadlessOptions, 'prompt' | 'persona' | 'signal' | 'onEvent' | 'childObserver' | 'model'>;
  onTaskStart?: (t: Task) => void;
  onTaskEnd?: (t: Task) => void;
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

export async function runOneTask(queue: TaskQueue, task: Task, runner: string, opts: RunOptions, childObserver: ChildObserver): Promise<Task> {
  const logFile = path.join(queue.root, task.logFile);
  mkdirOwnedSync(path.dirname(logFile));
  const log = (s: string) => appendOwnedSync(logFile, `${s}\n`);
  log(
    `[${new Date().toISOString()}] runner ${runner} (pid ${process.pid}) starts run ${task.runs} (${task.attempts} failed attempts, ${task.runnerDeaths} runner deaths before)`,
  );
  const workspace = path.relative(queue.root, queue.workspace).split(path.sep).join('/');
  const writeScope = makeWriteScope(queue.root, [workspace, task.planFile, ...(task.writes ?? [])], `task ${task.taskId}`);
  let prompt = `Task: ${task.prompt}. Your plan file is at ${task.planFile}. All file I/O must be within the './${workspace}/' directory${task.writes?.length ? ` (you may also write ${task.writes.join(', ')})` : ''}.`;
  if (task.after) {
    const prev = queue.read(task.after);
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
    const refused = refusedCalls(result.toolCalls);
    const unwritten = failedWrites(result.toolCalls);
    const answered = result.status === 'answered';
    const blocked = answered && result.toolCalls.length > 0 && refused.length === result.toolCalls.length;
    const status = blocked
      ? 'blocked'
      : answered && unwritten.length
        ? 'incomplete'
        : answered
          ? 'complete'
          : result.status === 'cancelled'
            ? 'cancelled'
            : 'failed';
    const listed = blocked ? refused : unwritten;
    const error =
      status === 'blocked'
        ? `every tool call was refused: ${describeCalls(refused)}`
        : status === 'incomplete'
          ? `${unwritten.length} write${unwritten.length === 1 ? '' : 's'} did not happen (the task may write ${describeWriteScope(writeScope)}): ${describeCalls(unwritten)}`
          : answered
            ? undefined
            : (result.error?.message ?? result.status);
    const failedCalls = listed.length && (status === 'blocked' || status === 'incomplete') ? listed.map(describeFailedCall) : undefined;
    const done = await queue.finish(task.taskId, runner, { status, summary: result.answer?.slice(0, 4000), error, usage: result.usage, failedCalls });
    log(`[${new Date().toISOString()}] task ${status}${error ? `: ${error}` : ''}`);
    return done ?? task;
  } finally {
    clearInterval(beat);
  }
}

export async function runTasks(queue: TaskQueue, opts: RunOptions): Promise<Task[]> {
  const ran: Task[] = [];
  const children = new Set<number>();
  const sync = () => queue.trackChildren(process.pid, [...children]);
  // The queue records this runner's live process groups, so a runner killed with -9 can be cleaned up.
  const observer: ChildObserver = { started: (g) => (children.add(g), sync()), ended: (g) => (children.delete(g), sync()) };
  const worker = async () => {
    const runner = `${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    for (;;) {
      const task = await queue.claim(runner, opts.leaseMs);
      if (!task) return;
      opts.onTaskStart?.(task);
      const done = await runOneTask(queue, task, runner, opts, observer);
      ran.push(done);
      opts.onTaskEnd?.(done);
      if (!opts.all) return;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  } finally {
    children.clear();
    sync();
  }
  return ran;
}
