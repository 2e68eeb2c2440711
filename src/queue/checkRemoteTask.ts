// A task that came from a shared database (the Postgres queue) was written by whoever may write there,
// not by this user's own devx: before a runner acts on it, its fields must be what devx itself writes.
// A plan file or `--write` path outside the checkout (or inside .git), or a revision that is not a commit
// id (it is passed to git), is refused.
import path from 'node:path';
import type { Task } from './taskSchema.js';

const ID = /^task_[0-9a-z]+$/;

function unsafePath(p: string): boolean {
  if (!p || path.isAbsolute(p) || p.includes('\0') || p.includes('\\')) return true;
  const parts = path.posix.normalize(p).split('/');
  return parts[0] === '..' || parts.some((s) => s.toLowerCase() === '.git');
}

/** Why the runner refuses this task's fields; null when they are what devx writes. */
export function unsafeTaskFields(t: Task): string | null {
  if (!ID.test(t.taskId)) return `its id ${JSON.stringify(t.taskId.slice(0, 80))} is not a devx task id`;
  if (t.planFile !== `.devx/agents/plans/${t.taskId}_plan.md`) return `its plan file ${JSON.stringify(t.planFile.slice(0, 200))} is not the one devx gives it`;
  if (t.logFile !== `.devx/agents/logs/${t.taskId}.log`) return `its log file ${JSON.stringify(t.logFile.slice(0, 200))} is not the one devx gives it`;
  if (t.after !== undefined && !ID.test(t.after)) return 'the task it comes after is not a devx task id';
  if (t.revision !== undefined && !/^[0-9a-f]{7,64}$/.test(t.revision)) return `its revision ${JSON.stringify(t.revision.slice(0, 80))} is not a commit id`;
  const bad = (t.writes ?? []).find(unsafePath);
  if (bad !== undefined) return `it may write ${JSON.stringify(bad.slice(0, 200))}, outside the checkout or inside .git`;
  return null;
}
