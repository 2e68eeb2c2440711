// Runs queued tasks: claim, run the agent headless with its plan file and the workspace, write the
// transcript to the task's log file, keep the lease alive, and record the outcome.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { runTurn, type AgentEvent } from '../agent/loop.js';
import type { Agent } from '../cli/createAgent.js';
import { loadAgents } from './loadAgents.js';
import { applyAgent } from './applyAgent.js';
import type { Task, TaskQueue } from './taskQueue.js';
import { summarizeArgs } from '../cli/renderEvents.js';
import { setChildObserver } from '../util/processRunner.js';

export interface RunOptions {
  all: boolean;
  parallel: number;
  leaseMs: number;
  model?: string;
  onTaskStart?: (t: Task) => void;
  onTaskEnd?: (t: Task) => void;
  /** Extra event sink (the audit log). */
  onEvent?: (e: AgentEvent) => void;
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
      return `[${t}] -> ${e.tool} ${summarizeArgs(e.args)}`;
    case 'tool_end':
      return `[${t}] <- ${e.outcome.tool} ${e.outcome.status} (${e.outcome.durationMs} ms)\n${e.outcome.content.slice(0, 4000)}`;
    case 'turn_end':
      return `[${t}] turn ended: ${e.status}${e.error ? ` (${e.error.message})` : ''}`;
    default:
      return null;
  }
}

export async function runOneTask(agent: Agent, queue: TaskQueue, task: Task, runner: string, opts: RunOptions): Promise<Task> {
  const logFile = path.join(queue.root, task.logFile);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = (s: string) => fs.appendFileSync(logFile, `${s}\n`);
  log(`[${new Date().toISOString()}] runner ${runner} (pid ${process.pid}) starts attempt ${task.attempts}`);
  const def = loadAgents(agent.root, agent.userHome, agent.devxHome).agents.get(task.agent);
  if (!def) {
    log(`unknown agent "${task.agent}"`);
    return (await queue.finish(task.taskId, runner, { status: 'failed', error: `no agent named "${task.agent}"` })) ?? task;
  }
  const deps = applyAgent(agent.deps, agent.tools, agent.root, def, { model: opts.model });
  let prompt = `Task: ${task.prompt}. Your plan file is at ${task.planFile}. All file I/O must be within the './.devx/agents/workspace/' directory.`;
  if (task.after) {
    const prev = queue.read(task.after);
    if (prev?.summary) prompt += `\n\nInput from the previous step (${prev.agent}, ${prev.taskId}):\n${prev.summary}`;
  }
  const controller = new AbortController();
  const beat = setInterval(async () => {
    try {
      const t = await queue.heartbeat(task.taskId, runner, opts.leaseMs);
      if (t?.cancelRequested) controller.abort();
    } catch {
      /* a missed heartbeat only shortens the lease */
    }
  }, Math.max(200, Math.floor(opts.leaseMs / 3)));
  const usage = { input: 0, output: 0 };
  try {
    const result = await runTurn(deps, [], prompt, {
      signal: controller.signal,
      emit: (e) => {
        const line = logLine(e);
        if (line) log(line);
        if (e.type === 'model_response' && e.usage) {
          usage.input += e.usage.input ?? 0;
          usage.output += e.usage.output ?? 0;
        }
        opts.onEvent?.(e);
      },
    });
    const status = result.status === 'answered' ? 'complete' : result.status === 'cancelled' ? 'cancelled' : 'failed';
    const done = await queue.finish(task.taskId, runner, {
      status,
      summary: result.answer?.slice(0, 4000),
      error: result.status === 'answered' ? undefined : (result.error?.message ?? result.status),
      usage,
    });
    log(`[${new Date().toISOString()}] task ${status}`);
    return done ?? task;
  } finally {
    clearInterval(beat);
  }
}

export async function runTasks(agent: Agent, queue: TaskQueue, opts: RunOptions): Promise<Task[]> {
  const ran: Task[] = [];
  const children = new Set<number>();
  const sync = () => queue.trackChildren(process.pid, [...children]);
  setChildObserver({ started: (g) => (children.add(g), sync()), ended: (g) => (children.delete(g), sync()) });
  const worker = async () => {
    const runner = `${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    for (;;) {
      const task = await queue.claim(runner, opts.leaseMs);
      if (!task) return;
      opts.onTaskStart?.(task);
      const done = await runOneTask(agent, queue, task, runner, opts);
      ran.push(done);
      opts.onTaskEnd?.(done);
      if (!opts.all) return;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  } finally {
    setChildObserver(null);
    children.clear();
    sync();
  }
  return ran;
}
