// A queued task as stored in .devx/agents/tasks/<id>.json (queue/taskQueue.ts reads and writes them).
import * as z from 'zod';

export const TaskSchema = z.object({
  taskId: z.string(),
  status: z.enum(['pending', 'running', 'complete', 'incomplete', 'failed', 'blocked', 'cancelled']),
  agent: z.string(),
  prompt: z.string(),
  planFile: z.string(),
  logFile: z.string(),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  completedAt: z.string().optional(),
  /** `space`: the runner's PID space on the Postgres queue (queue/postgres/pidSpace.ts). */
  owner: z.object({ pid: z.number(), host: z.string(), runner: z.string(), space: z.string().optional() }).optional(),
  leaseExpiresAt: z.string().optional(),
  /** The task's own failures. */
  attempts: z.number().default(0),
  /** Runners that died (or lost their lease) while running it. */
  runnerDeaths: z.number().default(0),
  /** Times a runner claimed it. */
  runs: z.number().default(0),
  /** The queue's runner-death count when it first ran (queueRecovery.ts weighs its own deaths against the queue's). */
  queueDeathsAtFirstRun: z.number().optional(),
  /** Paths beyond the workspace and the plan file the task may write (relative to the project root). */
  writes: z.array(z.string()).optional(),
  /** The calls that did not do what they were asked (refused or failed writes; refused calls of a blocked task). */
  failedCalls: z.array(z.string()).optional(),
  summary: z.string().optional(),
  error: z.string().optional(),
  usage: z
    .object({ input: z.number(), output: z.number(), cached: z.number().optional(), requests: z.number().optional(), durationMs: z.number().optional() })
    .optional(),
  cancelRequested: z.boolean().optional(),
  /** Chained steps: the task that must complete first, whose answer is passed on. */
  after: z.string().optional(),
  /** Who queued it (session/ownerId.ts): a task that came with a clone is never run as the user's own. */
  queuedBy: z.string().optional(),
  /** The repository revision it was queued at (git rev-parse HEAD): a runner whose checkout lacks it gives the task back. */
  revision: z.string().optional(),
  /** The branch its changes were pushed to on the runner's origin (a queue whose runners are elsewhere). */
  resultBranch: z.string().optional(),
  /** Its changes are stored as a patch with the result (devx agent log <id>). */
  hasPatch: z.boolean().optional(),
  /** The paths its run changed (from its worktree's snapshots; without git, the paths its file writes named). */
  changed: z.array(z.string()).optional(),
  /** It ended `complete` having changed nothing: no call that changed anything ran (its answer is only the model's claim). */
  noChanges: z.boolean().optional(),
});
export type Task = z.infer<typeof TaskSchema>;
