import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createHash } from 'node:crypto';

export { devxHome } from '../util/devxHome.js';

/** The project root: the nearest ancestor holding .git (or .devx), else the directory itself. Realpath'd. */
export function findProjectRoot(cwd: string): string {
  const start = realpathSync.native(cwd);
  for (let dir = start; ;) {
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, '.devx'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}

/**
 * The folder that holds a checkout's task worktrees (queue/taskWorktree.ts): devx's own, private, outside the
 * checkout (a path inside the project's .devx/ would be devx's state to the policy), named by the checkout's hash.
 */
export function taskWorktreesDir(root: string): string {
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return join(tmpdir(), `devx-worktrees-${process.getuid?.() ?? 'u'}`, checkout);
}

/** A folder of this user's alone: not a link, theirs, closed to others. */
function isPrivateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid()) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The checkout among `roots` that task worktree `dir` was made from; undefined when `dir` is no task worktree of theirs. */
export function worktreeOrigin(dir: string, roots: string[]): string | undefined {
  if (!/^\d+-task_[0-9a-z]+$/.test(basename(dir))) return undefined;
  const parent = dirname(dir);
  const resolved = (d: string) => {
    try {
      return realpathSync.native(d);
    } catch {
      return d;
    }
  };
  const origin = roots.find((r) => resolved(taskWorktreesDir(r)) === parent);
  return origin !== undefined && isPrivateDir(parent) && isPrivateDir(dirname(parent)) ? origin : undefined;
}
