// Where a queued task runs: a git worktree of its own, made from a commit (the revision it was queued at,
// HEAD, or the branch of the task it comes after), so no concurrent task sees its files and it sees none of
// theirs. The worktrees of a checkout live in a folder devx owns outside it (<tmp>/devx-worktrees-<uid>/<the
// checkout's hash>/: a path inside the project's .devx/ would be devx's state to the policy), each named
// <runner pid>-<task id>: a runner killed with -9 leaves its worktrees behind, and the next runner of the
// checkout removes those whose runner is gone (then `git worktree prune`). Every git here goes through the
// safe environment (runnerGit.ts's git: the repository's configuration runs no program).
import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../session/sessionLock.js';
import { git } from './runnerGit.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';
import { taskWorktreesDir } from '../config/paths.js';

/** Copies a folder's regular files and folders into another (links are not followed, nor copied); what was there is replaced. */
export function copyFilesInto(from: string, to: string): void {
  mkdirOwnedSync(to);
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const dst = path.join(to, e.name);
    if (e.isDirectory()) copyFilesInto(src, dst);
    else if (e.isFile()) {
      fs.rmSync(dst, { force: true, recursive: true });
      writeNewOwnedSync(dst, fs.readFileSync(src));
    }
  }
}

/** The devx-owned folder that holds every task worktree of a checkout. */
export const worktreesDir = taskWorktreesDir;

/** A folder of this user's alone (0700, not a link): another user of a shared temp folder cannot plant or read it. */
function ensurePrivateDir(dir: string): void {
  mkdirOwnedSync(dir, 0o700);
  const st = fs.lstatSync(dir);
  const mine = process.getuid === undefined || st.uid === process.getuid();
  if (!st.isDirectory() || !mine || (st.mode & 0o077) !== 0)
    throw new Error(`${dir} is not a private folder of this user (a link, another user's, or open to others)`);
}

/** Creates the folder (and its parent, both private). */
function ensureWorktreesDir(root: string): string {
  const dir = worktreesDir(root);
  ensurePrivateDir(path.dirname(dir));
  ensurePrivateDir(dir);
  return dir;
}

/** The runner pid a worktree folder's name carries (<pid>-<task id>); null for a name devx did not give. */
function ownerPid(name: string): number | null {
  const m = /^(\d+)-task_[0-9a-z]+$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** Adds a worktree for the task at `base`, detached; the folder, or why it could not be made. */
export async function addWorktree(root: string, taskId: string, base: string): Promise<{ dir: string } | { why: string }> {
  let dir: string;
  try {
    dir = path.join(ensureWorktreesDir(root), `${process.pid}-${taskId}`);
  } catch (err) {
    return { why: (err as Error).message };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const r = await git(root, ['worktree', 'add', '--detach', '-q', dir, base]);
  return r.ok ? { dir } : { why: `git worktree add failed: ${r.err.split('\n')[0]}` };
}

/** Removes a task's worktree (its folder and git's record of it). */
export async function removeWorktree(root: string, dir: string): Promise<void> {
  const r = await git(root, ['worktree', 'remove', '--force', '--force', dir]);
  if (r.ok && !fs.existsSync(dir)) return;
  fs.rmSync(dir, { recursive: true, force: true });
  await git(root, ['worktree', 'prune']);
}

/** Removes the worktrees of runners that are gone (killed with -9), then prunes git's records of them; their names. */
export async function sweepWorktrees(root: string): Promise<string[]> {
  const dir = worktreesDir(root);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const stale = names.filter((n) => {
    const pid = ownerPid(n);
    return pid !== null && pid !== process.pid && !isAlive(pid);
  });
  for (const n of stale) fs.rmSync(path.join(dir, n), { recursive: true, force: true });
  if (stale.length) await git(root, ['worktree', 'prune']);
  return stale;
}

/** The commit a local branch points at; undefined when there is none. */
export async function branchCommit(root: string, branch: string): Promise<string | undefined> {
  const r = await git(root, ['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`]);
  return r.ok && /^[0-9a-f]{40,64}$/.test(r.out) ? r.out : undefined;
}
