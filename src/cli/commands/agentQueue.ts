// The task-queue half of `devx agent` (also /agent:start, /agent:run, /agent:status in the REPL):
// start, status, cancel, retry, log, and running the queue, on whichever queue the project uses
// (queue/openQueue.ts: the file queue, or Postgres).
import { UsageError, approvalModeFrom, EXIT } from '../shared.js';
import { findAgent, loadAgents } from '../../personas/loadAgents.js';
import { HARD_RUNNER_DEATHS, MAX_ATTEMPTS, MAX_RUNNER_DEATHS, renderStatusTable, type Task } from '../../queue/taskQueue.js';
import { runTasks } from '../../queue/runTasks.js';
import { openQueue, resolveQueueUrl, type QueueBackend } from '../../queue/openQueue.js';
import { headRevision } from '../../queue/runnerGit.js';
import { checkBinaries } from '../../runtime/checkBinaries.js';
import { devxHome } from '../../config/paths.js';
import { setAsideLine } from '../../session/setAside.js';
import type { ApprovalMode } from '../../policy/decide.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';
import type { CliIo } from '../command.js';

export type QueueFlags = {
  model?: string;
  provider?: string;
  json?: boolean;
  yes?: boolean;
  'approval-mode'?: string;
  all?: boolean;
  parallel?: string;
  lease?: string;
  write?: string;
  'require-changes'?: boolean;
};

/** How a task ended, as `agent run` says it: its status, and the model's claim when it changed nothing. */
function describeOutcome(t: Task): string {
  if (t.status === 'complete' && t.noChanges)
    return `complete, no changes${t.summary ? ` (the model said: ${JSON.stringify(t.summary.replace(/\s+/g, ' ').slice(0, 200))})` : ''}`;
  return `${t.status}${t.error && t.status !== 'complete' ? ` (${t.error})` : ''}`;
}

/** What a task changed, for the line under its outcome; '' when it changed nothing. */
function changesLine(t: Task): string {
  if (!t.changed?.length) return '';
  const list = `${t.changed.slice(0, 5).join(', ')}${t.changed.length > 5 ? ` and ${t.changed.length - 5} more` : ''}`;
  return `  ${t.taskId} changed ${list}${t.resultBranch ? ` (branch ${t.resultBranch})` : ''}\n`;
}

/** Whether `agent run`'s tasks all did what was asked (with --require-changes, a task that changed nothing did not). */
function allSucceeded(ran: Task[], requireChanges: boolean): boolean {
  return ran.every((t) => t.status === 'complete' && !(requireChanges && t.noChanges));
}

/** The calls of blocked and incomplete tasks, in full, under the table. */
function failedCallsText(tasks: Task[]): string {
  const parts = tasks
    .filter((t) => t.failedCalls?.length && (t.status === 'blocked' || t.status === 'incomplete'))
    .map((t) => `${t.taskId} (${t.status}):\n${t.failedCalls!.map((c) => `  - ${c}`).join('\n')}`);
  return parts.length ? `\nCalls that did not happen:\n${parts.join('\n')}\n` : '';
}

const QUEUE_SUBCOMMANDS = new Set(['start', 'status', 'cancel', 'retry', 'log', 'run']);

/** Runs one queue subcommand; null when `sub` is not one. */
export async function queueSubcommand(sub: string, rest: string[], values: QueueFlags, root: string, io: CliIo): Promise<number | null> {
  if (!QUEUE_SUBCOMMANDS.has(sub)) return null;
  let queue: QueueBackend;
  try {
    const chosen = resolveQueueUrl(io.cwd, io.env);
    for (const w of chosen.warnings) io.stderr.write(`devx: warning: ${escapeControls(w)}\n`);
    queue = await openQueue(root, chosen.url);
  } catch (err) {
    io.stderr.write(`devx: ${escapeControls((err as Error).message)}\n`);
    return (err as Error).name === 'SchemaError' ? EXIT.queueSchema : EXIT.failed;
  }
  try {
    return await onQueue(queue, sub, rest, values, io);
  } finally {
    await queue.close();
  }
}

/** `devx agent log <id>`: the task's plan, its transcript and its changes (a patch, or the branch they were pushed to). */
async function printLog(queue: QueueBackend, id: string | undefined, io: CliIo): Promise<number> {
  if (!id) throw new UsageError('usage: devx agent log <task id>');
  const l = await queue.readLog(id);
  if (!l) {
    io.stderr.write(`devx: no task ${escapeControls(id)}\n`);
    return EXIT.failed;
  }
  const t = l.task;
  const out = [
    `Task ${t.taskId} (${t.agent}): ${t.status}${t.error ? ` (${t.error})` : ''}`,
    ...(t.revision ? [`Queued at revision ${t.revision}`] : []),
    ...(t.resultBranch ? [`Changes pushed to origin as ${t.resultBranch}`] : []),
    '',
    `── plan (${t.planFile})`,
    l.plan.trimEnd(),
    '',
    `── transcript (${t.logFile})`,
    l.log.trimEnd(),
    ...(l.patch ? ['', '── changes (git apply)', l.patch.trimEnd()] : []),
  ];
  // The plan, the transcript and the patch are the model's and the repository's text.
  io.stdout.write(`${escapeControls(out.join('\n'))}\n`);
  return EXIT.ok;
}

async function onQueue(queue: QueueBackend, sub: string, rest: string[], values: QueueFlags, io: CliIo): Promise<number | null> {
  const root = queue.root;
  switch (sub) {
    case 'log':
      return printLog(queue, rest[0], io);
    case 'start': {
      if (rest.length !== 2) throw new UsageError('usage: devx agent start <agent> "<prompt>" [--write <path,...>]');
      findAgent(loadAgents(root, io.env.HOME ?? '', devxHome(io.env)), rest[0]);
      const writes = (values.write ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      // The revision matters to runners in other checkouts (a file queue's runner works in this one).
      const t = await queue.start({ agent: rest[0], prompt: rest[1], writes, revision: queue.remote ? await headRevision(root) : undefined });
      // The seed's line on stdout; what the task may write beside it, on stderr.
      io.stdout.write(values.json ? `${printableJson(t)}\n` : `Task ${t.taskId} created for agent '${rest[0]}' and is now pending.\n`);
      if (!values.json)
        io.stderr.write(escapeControls(`It may write .devx/agents/workspace/ and ${t.planFile}${writes.length ? `, ${writes.join(', ')}` : ''}.\n`));
      return EXIT.ok;
    }
    case 'status': {
      await queue.recover();
      const tasks = await queue.list();
      if (values.json) io.stdout.write(`${printableJson(tasks, 2)}\n`);
      else if (!tasks.length) io.stdout.write('No agent tasks.\n');
      else
        io.stdout.write(
          `${renderStatusTable(tasks)}\n${escapeControls(failedCallsText(tasks))}(Attempts: the task's own failures, given up after ${MAX_ATTEMPTS}. Runner deaths: runners that died while running it, given up after ${MAX_RUNNER_DEATHS} when they are over two thirds of the queue's runner deaths since it first ran, else after ${HARD_RUNNER_DEATHS}.)\n`,
        );
      return EXIT.ok;
    }
    case 'cancel':
    case 'retry': {
      if (rest.length !== 1) throw new UsageError(`usage: devx agent ${sub} <task id>`);
      try {
        const t = sub === 'cancel' ? await queue.cancel(rest[0]) : await queue.retry(rest[0]);
        io.stdout.write(escapeControls(`Task ${t.taskId} is now ${t.cancelRequested ? 'being cancelled' : t.status}.\n`));
        return EXIT.ok;
      } catch (err) {
        io.stderr.write(`devx: ${escapeControls((err as Error).message)}\n`);
        return EXIT.failed;
      }
    }
    case 'run': {
      const parallel = values.parallel ? Number(values.parallel) : 1;
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError('--parallel takes a whole number from 1 to 32');
      const missing = io.backend ? null : checkBinaries({ cwd: io.cwd, env: io.env, provider: values.provider });
      if (missing) {
        io.stderr.write(`${escapeControls(missing)}\n`);
        return EXIT.missingBinary;
      }
      // Recovery takes the queue's lock first: a shipped one is set aside before the line below names it.
      await queue.recover();
      const aside = setAsideLine(root);
      if (aside) io.stderr.write(`devx: warning: ${escapeControls(aside)}\n`);
      const approval: ApprovalMode | undefined = values.yes ? 'yolo' : approvalModeFrom(values);
      // The queue's URL can hold its password: while tasks run, neither the tasks' runs (their environment) nor
      // anything that reads this process's own sees it. The queue is open already.
      const url = process.env.DEVX_QUEUE_URL;
      delete process.env.DEVX_QUEUE_URL;
      const env = { ...io.env };
      delete env.DEVX_QUEUE_URL;
      let ran: Task[];
      try {
        ran = await runTasks(queue, {
          all: Boolean(values.all),
          parallel,
          leaseMs: values.lease ? Number(values.lease) * 1000 : 120_000,
          model: values.model,
          run: { cwd: io.cwd, env, provider: values.provider, approval, backend: io.backend },
          onTaskStart: (t) => io.stderr.write(escapeControls(`running ${t.taskId} (${t.agent}, run ${t.runs})\n`)),
          onTaskRefused: (t, why) => io.stderr.write(escapeControls(`gave ${t.taskId} back: ${why}\n`)),
          onNotice: (text) => io.stderr.write(`devx: ${escapeControls(text)}\n`),
          onTaskEnd: (t) => {
            io.stdout.write(escapeControls(`Orchestrator finished task ${t.taskId}: ${describeOutcome(t)}.\n`));
            io.stderr.write(escapeControls(changesLine(t)));
          },
        });
      } finally {
        if (url !== undefined) process.env.DEVX_QUEUE_URL = url;
      }
      if (!ran.length) io.stdout.write('No pending agent tasks found.\n');
      const unchanged = ran.filter((t) => t.status === 'complete' && t.noChanges).length;
      if (unchanged && values['require-changes'])
        io.stderr.write(
          `devx: ${unchanged} task${unchanged === 1 ? '' : 's'} ended complete with no changes (--require-changes counts ${unchanged === 1 ? 'it' : 'them'} as failed)\n`,
        );
      return allSucceeded(ran, Boolean(values['require-changes'])) ? EXIT.ok : EXIT.failed;
    }
    default:
      return null;
  }
}
