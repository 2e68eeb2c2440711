// What a runner elsewhere needs from git (#33, runners anywhere): the revision a task was queued at,
// whether this checkout has it, and the task's changes, taken as the difference between two snapshots
// of the paths it may write (before and after the run, through a temporary index, so earlier tasks'
// files in the shared workspace are not counted). They come back as a patch stored with the result and,
// when this checkout has an `origin`, as a branch devx/<task id> pushed there (the revision plus the patch).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { runProcess } from '../util/processRunner.js';

/** A patch larger than this is not stored (the branch, when there is one, still carries it). */
const MAX_PATCH = 4 * 1024 * 1024;

async function git(root: string, args: string[], env: Record<string, string> = {}, input?: string) {
  const r = await runProcess('git', args, { cwd: root, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env }, input, timeoutMs: 120_000 });
  return { ok: r.exitCode === 0, out: r.stdout.trim(), err: r.stderr.trim() };
}

/** HEAD's commit; undefined outside a git checkout. */
export async function headRevision(root: string): Promise<string | undefined> {
  const r = await git(root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return r.ok && /^[0-9a-f]{40,64}$/.test(r.out) ? r.out : undefined;
}

export async function hasCommit(root: string, rev: string): Promise<boolean> {
  return (await git(root, ['cat-file', '-e', `${rev}^{commit}`])).ok;
}

/** A tree of HEAD with the paths as they are on disk now (ignored files too). */
export async function snapshotPaths(root: string, paths: string[]): Promise<string | undefined> {
  const index = path.join(os.tmpdir(), `devx-index-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    if (!(await git(root, ['read-tree', 'HEAD'], env)).ok) return undefined;
    const tracked = new Set((await git(root, ['ls-files', '--', ...paths], env)).out.split('\n').filter(Boolean));
    const present = paths.filter((p) => fs.existsSync(path.join(root, p)) || [...tracked].some((t) => t === p || t.startsWith(`${p.replace(/\/$/, '')}/`)));
    if (present.length && !(await git(root, ['add', '-A', '-f', '--', ...present], env)).ok) return undefined;
    const tree = await git(root, ['write-tree'], env);
    return tree.ok ? tree.out : undefined;
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/** The change between two snapshots as a binary-safe patch ('' for none). */
export async function diffTrees(root: string, before: string, after: string): Promise<string> {
  const r = await runProcess('git', ['diff', '--binary', '--no-color', '--no-ext-diff', before, after], {
    cwd: root,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    maxBuffer: MAX_PATCH * 2,
  });
  return r.exitCode === 0 && r.stdout.length <= MAX_PATCH ? r.stdout : '';
}

/** Pushes `revision` + `patch` as devx/<taskId> to origin; the branch name, or why not. */
export async function pushBranch(root: string, taskId: string, revision: string, patch: string): Promise<{ branch?: string; why?: string }> {
  if (!(await git(root, ['remote', 'get-url', 'origin'])).ok) return { why: 'no origin remote' };
  const index = path.join(os.tmpdir(), `devx-index-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  const env: Record<string, string> = { GIT_INDEX_FILE: index };
  if (!(await git(root, ['config', 'user.email'])).ok)
    Object.assign(env, { GIT_AUTHOR_NAME: 'devx', GIT_AUTHOR_EMAIL: 'devx@localhost', GIT_COMMITTER_NAME: 'devx', GIT_COMMITTER_EMAIL: 'devx@localhost' });
  try {
    if (!(await git(root, ['read-tree', revision], env)).ok) return { why: `cannot read ${revision}` };
    const applied = await git(root, ['apply', '--cached', '--binary', '-'], env, patch);
    if (!applied.ok) return { why: `the patch does not apply to ${revision.slice(0, 12)}: ${applied.err.split('\n')[0]}` };
    const tree = await git(root, ['write-tree'], env);
    const commit = tree.ok ? await git(root, ['commit-tree', tree.out, '-p', revision, '-m', `devx task ${taskId}`], env) : tree;
    if (!commit.ok) return { why: `commit failed: ${commit.err.split('\n')[0]}` };
    const branch = `devx/${taskId}`;
    const pushed = await git(root, ['push', '-q', 'origin', `${commit.out}:refs/heads/${branch}`]);
    // A remote's URL can hold a credential (https://user:token@host): it never reaches the message.
    return pushed.ok
      ? { branch }
      : {
          why: `git push failed: ${pushed.err
            .split('\n')
            .slice(-1)[0]
            .replace(/\/\/([^/:@\s]*):[^@\s]*@/g, '//$1:***@')}`,
        };
  } finally {
    fs.rmSync(index, { force: true });
  }
}
