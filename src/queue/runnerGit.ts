// What a runner needs from git: the revision a task was queued at, whether this checkout has it, and the
// task's changes, taken as the difference between two snapshots of the paths it may write in its worktree
// (before and after the run, each a tree written through a temporary empty index, so what was there
// before is not counted, and two git processes each). They come back as a patch stored with the result,
// as a commit on the task's base holding exactly them (the branch devx/<task id>, set locally and pushed
// to origin for runners elsewhere), and applied to the checkout where they apply. Every git here runs
// in the safe environment (util/safeGit.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { runProcess } from '../util/processRunner.js';
import { GitRefusedError, ownGitArgs, safeGitEnvSync } from '../util/safeGit.js';

/** A patch larger than this is not stored (the branch, when there is one, still carries it). */
const MAX_PATCH = 4 * 1024 * 1024;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export async function git(root: string, args: string[], env: Record<string, string> = {}, input?: string, maxBuffer?: number) {
  let safeEnv: Record<string, string>;
  try {
    safeEnv = safeGitEnvSync(root, process.env, env);
  } catch (err) {
    // A configuration that cannot be judged: this git does not run, and the line says why.
    if (err instanceof GitRefusedError) return { ok: false, out: '', err: err.message };
    throw err;
  }
  const r = await runProcess('git', ownGitArgs(args), {
    cwd: root,
    env: safeEnv,
    extendEnv: false,
    input,
    timeoutMs: 120_000,
    ...(maxBuffer ? { maxBuffer } : {}),
  });
  return { ok: r.exitCode === 0 && !r.outputCapped, out: r.stdout.replace(/\n$/, ''), err: r.stderr.trim() };
}

const tempIndex = () => path.join(os.tmpdir(), `devx-index-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);

/** HEAD's commit; undefined outside a git checkout. */
export async function headRevision(root: string): Promise<string | undefined> {
  const r = await git(root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return r.ok && /^[0-9a-f]{40,64}$/.test(r.out) ? r.out : undefined;
}

/** Commits this process has seen in a checkout (a commit, once there, stays). */
const seen = new Set<string>();

/** Remembers this checkout's HEAD, before any claim: most tasks name it, so their check then spawns no git. */
export async function rememberHead(root: string): Promise<void> {
  const head = await headRevision(root);
  if (head) seen.add(`${root}\0${head}`);
}

export async function hasCommit(root: string, rev: string): Promise<boolean> {
  const key = `${root}\0${rev}`;
  if (seen.has(key)) return true;
  const ok = (await git(root, ['cat-file', '-e', `${rev}^{commit}`])).ok;
  if (ok) seen.add(key);
  return ok;
}

/** A tree holding only the paths (as they are on disk now, ignored files too); undefined outside git. */
export async function snapshotPaths(root: string, scope: string[]): Promise<string | undefined> {
  // `docs/` as `docs`: a pathspec with a slash at its end matched nothing with a fresh index (the task's changes were lost).
  const paths = scope.map((p) => path.posix.normalize(p).replace(/\/+$/, '') || '.');
  // An empty folder holds nothing git would record: no git process for a scope with no files (most tasks' before).
  const present = paths.filter((p) => {
    const st = fs.statSync(path.join(root, p), { throwIfNoEntry: false });
    return st && (!st.isDirectory() || fs.readdirSync(path.join(root, p)).length > 0);
  });
  if (!present.length) return EMPTY_TREE;
  const index = tempIndex();
  const env = { GIT_INDEX_FILE: index };
  // A scope around devx's own folder (`--write .`) leaves out its state there (the audit log, runs, undo): a task
  // returns its changes, not devx's records of the run. What the scope names inside .devx (the workspace) goes in.
  const own = present.filter((p) => p === '.devx' || p.startsWith('.devx/'));
  const rest = present.filter((p) => !own.includes(p));
  try {
    if (rest.length && !(await git(root, ['add', '-A', '-f', '--', ...rest, ':(exclude).devx'], env)).ok) return undefined;
    if (own.length && !(await git(root, ['add', '-A', '-f', '--', ...own], env)).ok) return undefined;
    const tree = await git(root, ['write-tree'], env);
    return tree.ok ? tree.out : undefined;
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/**
 * The change between two snapshots as a binary-safe patch ('' for none, or one too large to store). Plumbing with
 * its prefixes given: the porcelain's settings (diff.noprefix, diff.mnemonicPrefix, diff.relative, colour) would
 * change the paths `git apply` takes from it, and a patch without its a/ b/ would land one folder up.
 */
export async function diffTrees(root: string, before: string, after: string): Promise<string> {
  if (before === after) return '';
  const args = ['diff-tree', '-r', '-p', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', ...PREFIXES, before, after];
  const r = await git(root, args, {}, undefined, MAX_PATCH + 1);
  return r.ok && r.out.length <= MAX_PATCH ? `${r.out}\n` : '';
}

const PREFIXES = ['--src-prefix=a/', '--dst-prefix=b/'];

/** The paths that differ between two snapshots. */
export async function changedPaths(root: string, before: string, after: string): Promise<string[]> {
  if (before === after) return [];
  return (await git(root, ['diff-tree', '-r', '--name-only', '-z', '--no-renames', before, after])).out.split('\0').filter(Boolean);
}

/** Identity for devx's own commits when the user has none configured. */
async function commitIdentity(root: string): Promise<Record<string, string>> {
  if ((await git(root, ['config', 'user.email'])).ok) return {};
  return { GIT_AUTHOR_NAME: 'devx', GIT_AUTHOR_EMAIL: 'devx@localhost', GIT_COMMITTER_NAME: 'devx', GIT_COMMITTER_EMAIL: 'devx@localhost' };
}

/** A commit on `base` with the paths changed between the snapshots as the run left them; its id, or why not. */
export async function commitChanges(
  root: string,
  taskId: string,
  base: string,
  before: string,
  after: string,
): Promise<{ commit: string; changed: string[] } | { why: string }> {
  const changed = await changedPaths(root, before, after);
  if (!changed.length) return { why: 'no changes' };
  const entries = new Map<string, string>();
  for (const line of (await git(root, ['ls-tree', '-r', '-z', after, '--', ...changed])).out.split('\0').filter(Boolean)) {
    const tab = line.indexOf('\t');
    entries.set(line.slice(tab + 1), line.slice(0, tab).replace(/^(\d+) blob ([0-9a-f]+)$/, '$1 $2'));
  }
  // Each changed path as the run left it; one it removed is removed (mode 0).
  const info = changed.map((p) => `${entries.get(p) ?? `0 ${'0'.repeat(40)}`}\t${p}`).join('\0');
  const index = tempIndex();
  const env: Record<string, string> = { GIT_INDEX_FILE: index, ...(await commitIdentity(root)) };
  try {
    if (!(await git(root, ['read-tree', base], env)).ok) return { why: `cannot read ${base}` };
    const updated = await git(root, ['update-index', '-z', '--index-info'], env, `${info}\0`);
    if (!updated.ok) return { why: `cannot stage the changes: ${updated.err.split('\n')[0]}` };
    const tree = await git(root, ['write-tree'], env);
    const commit = tree.ok ? await git(root, ['commit-tree', tree.out, '-p', base, '-m', `devx task ${taskId}`], env) : tree;
    return commit.ok ? { commit: commit.out, changed } : { why: `commit failed: ${commit.err.split('\n')[0]}` };
  } finally {
    fs.rmSync(index, { force: true });
  }
}

/** Points the local branch devx/<taskId> at the commit; the branch's name, or why not. */
export async function setTaskBranch(root: string, taskId: string, commit: string): Promise<{ branch?: string; why?: string }> {
  const branch = `devx/${taskId}`;
  const r = await git(root, ['update-ref', `refs/heads/${branch}`, commit]);
  return r.ok ? { branch } : { why: `cannot set ${branch}: ${r.err.split('\n')[0]}` };
}

/** receive-pack for a remote on this machine: its repository's hooks, fsmonitor, alternate-refs command and auto gc never run. */
const LOCAL_RECEIVE_PACK =
  'git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.alternateRefsCommand=true -c receive.autogc=false -c gc.auto=0 receive-pack';

/** Whether git reaches `url` on this machine (a path or file://), as git tells a local URL from ssh's host:path. */
export function isLocalUrl(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || /^[A-Za-z0-9+.-]+::/.test(url)) return false;
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** Pushes the commit as devx/<taskId> to origin; the branch's name, or why not. */
export async function pushBranch(root: string, taskId: string, commit: string): Promise<{ branch?: string; why?: string }> {
  const url = await git(root, ['remote', 'get-url', '--push', 'origin']);
  if (!url.ok) return { why: 'no origin remote' };
  const branch = `devx/${taskId}`;
  // A remote on this machine (a path, file://) runs its receive-pack here, in that repository, whose hooks and
  // settings the safe environment does not reach (git drops it for another repository): they are switched off there.
  const local = isLocalUrl(url.out.split('\n')[0] ?? '') ? [`--receive-pack=${LOCAL_RECEIVE_PACK}`] : [];
  const pushed = await git(root, ['push', '-q', ...local, 'origin', `${commit}:refs/heads/${branch}`]);
  // A remote's URL can hold a credential (https://user:token@host): it never reaches the message.
  return pushed.ok
    ? { branch }
    : {
        why: `git push failed: ${pushed.err
          .split('\n')
          .slice(-1)[0]
          .replace(/\/\/([^/:@\s]*):[^@\s]*@/g, '//$1:***@')}`,
      };
}

/** Applies a patch (or, with `only`, its part for that path) to the checkout's files; null when it applied, else why not. */
async function applyOne(root: string, patch: string, only?: string): Promise<string | null> {
  const include = only ? [`--include=${only.replace(/[[\]*?\\]/g, '\\$&')}`] : [];
  const r = await git(root, ['apply', '-p1', '--binary', '--whitespace=nowarn', ...include, '-'], {}, patch);
  return r.ok ? null : r.err.split('\n')[0] || 'git apply failed';
}

/** The paths `git apply` would write for a patch (as applyOne applies it); null when it cannot read the patch. */
async function patchTargets(root: string, patch: string): Promise<string[] | null> {
  const r = await git(root, ['apply', '-p1', '--numstat', '-z', '-'], {}, patch);
  if (!r.ok) return null;
  // Each record: added, deleted and the path, tab-separated, ended by NUL (a rename's two paths never come: --no-renames).
  return r.out
    .split('\0')
    .filter(Boolean)
    .map((rec) => rec.split('\t').slice(2).join('\t'));
}

/**
 * Applies a patch to the checkout's files: all of it when it applies, else path by path; the paths that did
 * not apply (each as it differs in the checkout), [] when all did. A patch that would write a path other than
 * the task's changed ones is not applied at all: only its branch and stored patch keep it.
 */
export async function applyPatch(root: string, patch: string, paths: string[]): Promise<{ path: string; why: string }[]> {
  const targets = await patchTargets(root, patch);
  const allowed = new Set(paths);
  const stray = targets?.find((t) => !allowed.has(t));
  if (!targets || stray !== undefined) {
    const why = targets ? `the patch writes ${JSON.stringify(stray)}, which is not among the task's changes` : 'git cannot read the patch';
    return paths.map((p) => ({ path: p, why }));
  }
  if (!(await applyOne(root, patch))) return [];
  const failed: { path: string; why: string }[] = [];
  for (const p of paths) {
    const why = await applyOne(root, patch, p);
    if (why) failed.push({ path: p, why });
  }
  return failed;
}
