// The task-queue half of `devx agent` (also /agent:start, /agent:run, /agent:status in the REPL):
// start, status, cancel, retry, and running the queue.
import { UsageError, approvalModeFrom, EXIT } from '../shared.js';
import { findAgent, loadAgents } from '../../personas/loadAgents.js';
import { HARD_RUNNER_DEATHS, MAX_ATTEMPTS, MAX_RUNNER_DEATHS, TaskQueue, renderStatusTable, type Task } from '../../queue/taskQueue.js';
import { runTasks } from '../../queue/runTasks.js';
import { checkBinaries } from '../../runtime/checkBinaries.js';
import { devxHome } from '../../config/paths.js';
import type { ApprovalMode } from '../../policy/decide.js';

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
};

/** The calls of blocked and incomplete tasks, in full, under the table. */
function failedCallsText(tasks: Task[]): string {
  const parts = tasks
    .filter((t) => t.failedCalls?.length && (t.status === 'blocked' || t.status === 'incomplete'))
    .map((t) => `${t.taskId} (${t.status}):\n${t.failedCalls!.map((c) => `  - ${c}`).join('\n')}`);
  return parts.length ? `\nCalls that did not happen:\n${parts.join('\n')}\n` : '';
}

/** Runs one queue subcommand; null when `sub` is not one. */
export async function queueSubcommand(sub: string, rest: string[], values: QueueFlags, root: string): Promise<number | null> {
  const queue = new TaskQueue(root);
  switch (sub) {
    case 'start': {
      if (rest.length !== 2) throw new UsageError('usage: devx agent start <agent> "<prompt>" [--write <path,...>]');
      findAgent(loadAgents(root, process.env.HOME ?? '', devxHome(process.env)), rest[0]);
      const writes = (values.write ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const t = await queue.start(rest[0], rest[1], undefined, writes);
      // The seed's line on stdout; what the task may write beside it, on stderr.
      process.stdout.write(values.json ? `${JSON.stringify(t)}\n` : `Task ${t.taskId} created for agent '${rest[0]}' and is now pending.\n`);
      if (!values.json) process.stderr.write(`It may write .devx/agents/workspace/ and ${t.planFile}${writes.length ? `, ${writes.join(', ')}` : ''}.\n`);
      return EXIT.ok;
    }
    case 'status': {
      await queue.recover();
      const tasks = queue.list();
      if (values.json) process.stdout.write(`${JSON.stringify(tasks, null, 2)}\n`);
      else if (!tasks.length) process.stdout.write('No agent tasks.\n');
      else
        process.stdout.write(
          `${renderStatusTable(tasks)}\n${failedCallsText(tasks)}(Attempts: the task's own failures, given up after ${MAX_ATTEMPTS}. Runner deaths: runners that died while running it, given up after ${MAX_RUNNER_DEATHS} when they are over two thirds of the queue's runner deaths since it first ran, else after ${HARD_RUNNER_DEATHS}.)\n`,
        );
      return EXIT.ok;
    }
    case 'cancel':
    case 'retry': {
      if (rest.length !== 1) throw new UsageError(`usage: devx agent ${sub} <task id>`);
      try {
        const t = sub === 'cancel' ? await queue.cancel(rest[0]) : await queue.retry(rest[0]);
        process.stdout.write(`Task ${t.taskId} is now ${t.cancelRequested ? 'being cancelled' : t.status}.\n`);
        return EXIT.ok;
      } catch (err) {
        process.stderr.write(`devx: ${(err as Error).message}\n`);
        return EXIT.failed;
      }
    }
    case 'run': {
      const parallel = values.parallel ? Number(values.parallel) : 1;
      if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError('--parallel takes a whole number from 1 to 32');
      const missing = checkBinaries({ cwd: process.cwd(), env: process.env, provider: values.provider });
      if (missing) {
        process.stderr.write(`${missing}\n`);
        return EXIT.missingBinary;
      }
      const approval: ApprovalMode | undefined = values.yes ? 'yolo' : approvalModeFrom(values);
      const ran = await runTasks(queue, {
        all: Boolean(values.all),
        parallel,
        leaseMs: values.lease ? Number(values.lease) * 1000 : 120_000,
        model: values.model,
        run: { cwd: process.cwd(), env: process.env, provider: values.provider, approval },
        onTaskStart: (t) => process.stderr.write(`running ${t.taskId} (${t.agent}, run ${t.runs})\n`),
        onTaskEnd: (t) =>
          process.stdout.write(`Orchestrator finished task ${t.taskId}: ${t.status}${t.error && t.status !== 'complete' ? ` (${t.error})` : ''}.\n`),
      });
      if (!ran.length) process.stdout.write('No pending agent tasks found.\n');
      return ran.every((t) => t.status === 'complete') ? EXIT.ok : EXIT.failed;
    }
    default:
      return null;
  }
}
