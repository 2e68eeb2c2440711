// The orchestrator's git, in the user's repository: the dirty-tree check, the task branch, commits of
// artifacts with a devx author line, and the merge back. Never forces anything; a conflict stops the
// workflow with a message.
import fs from 'node:fs';
import path from 'node:path';
import { runProcess } from '../util/processRunner.js';
import { GitRefusedError, ownGitArgs, safeGitEnvSync } from '../util/safeGit.js';

export const DEVX_AUTHOR = 'devx workflow <devx@localhost>';

export class GitError extends Error {}

export interface Git {
  root: string;
  run(args: string[], opts?: { allowFail?: boolean }): Promise<{ stdout: string; stderr: string; exitCode: number }>;
}

export function createGit(root: string, env: NodeJS.ProcessEnv = process.env): Git {
  return {
    root,
    async run(args, opts = {}) {
      // The repository's hooks, fsmonitor and drivers never run in devx's own git (util/safeGit.ts).
      // A repository whose configuration cannot be judged stops the workflow, allowFail or not.
      let safeEnv: Record<string, string>;
      try {
        safeEnv = safeGitEnvSync(root, env);
      } catch (err) {
        throw err instanceof GitRefusedError ? new GitError(err.message) : err;
      }
      const r = await runProcess('git', ownGitArgs(args), { cwd: root, env: safeEnv, extendEnv: false });
      const stdout = r.stdout.replace(/\r?\n$/, '');
      const stderr = r.stderr.replace(/\r?\n$/, '');
      if (r.exitCode !== 0 && !opts.allowFail) throw new GitError(`git ${args.join(' ')} failed: ${(stderr || stdout).trim().split('\n').slice(-3).join(' ')}`);
      return { stdout, stderr, exitCode: r.exitCode ?? 1 };
    },
  };
}

export async function isRepo(git: Git): Promise<boolean> {
  return (await git.run(['rev-parse', '--is-inside-work-tree'], { allowFail: true })).stdout === 'true';
}

/** Changed or untracked paths, leaving out devx's own state under .devx/. */
export async function dirtyPaths(git: Git): Promise<string[]> {
  const r = await git.run(['status', '--porcelain', '--untracked-files=all']);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.slice(3))
    .filter((p) => !p.startsWith('.devx/') && !p.startsWith('"\\.devx/'));
}

export async function currentBranch(git: Git): Promise<string> {
  const r = await git.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { allowFail: true });
  if (r.exitCode !== 0) throw new GitError('HEAD is detached; check out a branch before starting a workflow');
  return r.stdout;
}

export async function head(git: Git): Promise<string> {
  return (await git.run(['rev-parse', 'HEAD'])).stdout;
}

export async function branchExists(git: Git, name: string): Promise<boolean> {
  return (await git.run(['rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { allowFail: true })).exitCode === 0;
}

/** The committer is the user when git knows them, else devx (a fresh machine has no identity). */
async function identityArgs(git: Git): Promise<string[]> {
  const email = (await git.run(['config', 'user.email'], { allowFail: true })).stdout;
  return email ? [] : ['-c', 'user.name=devx workflow', '-c', 'user.email=devx@localhost'];
}

/** Commits exactly these paths (added or removed) with devx as the author; null when nothing changed. */
export async function commitPaths(git: Git, paths: string[], message: string): Promise<string | null> {
  if (!paths.length) return null;
  // Paths already staged as moved away (git mv) are not on disk; only the others need adding.
  const present = paths.filter((p) => fs.existsSync(path.join(git.root, p)));
  if (present.length) await git.run(['add', '-A', '--', ...present]);
  const staged = await git.run(['diff', '--cached', '--quiet', '--', ...paths], { allowFail: true });
  if (staged.exitCode === 0) return null;
  await git.run([...(await identityArgs(git)), 'commit', '--no-verify', `--author=${DEVX_AUTHOR}`, '-m', message, '--', ...paths]);
  return head(git);
}

/** Whether `hash` names a commit reachable from `branch` and made after `base`. */
export async function commitOnBranch(git: Git, hash: string, branch: string, base?: string): Promise<boolean> {
  const full = await git.run(['rev-parse', '--verify', '--quiet', `${hash}^{commit}`], { allowFail: true });
  if (full.exitCode !== 0) return false;
  const onBranch = await git.run(['merge-base', '--is-ancestor', full.stdout, branch], { allowFail: true });
  if (onBranch.exitCode !== 0) return false;
  if (!base) return true;
  return (await git.run(['merge-base', '--is-ancestor', base, full.stdout], { allowFail: true })).exitCode === 0 && full.stdout !== base;
}

export async function merge(git: Git, branch: string, mode: 'no-ff' | 'ff', message: string): Promise<{ ok: true } | { ok: false; message: string }> {
  const r = await git.run([...(await identityArgs(git)), 'merge', mode === 'no-ff' ? '--no-ff' : '--ff-only', '-m', message, branch], { allowFail: true });
  if (r.exitCode === 0) return { ok: true };
  await git.run(['merge', '--abort'], { allowFail: true });
  return { ok: false, message: (r.stdout + r.stderr).trim().split('\n').slice(-4).join(' ') };
}
