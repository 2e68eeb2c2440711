// Files git tracks that the policy denies reading (a committed .env.production, credentials.json, ...).
// git prints their contents from its objects, where neither the path check nor the sandbox sees them:
// `git diff`, `git log -p`, `git show <blob>`, `git cat-file -p <sha>`. The list comes from the index
// (`git ls-files`), cached until the index changes, and from history: a secret committed and later
// removed is still in every older commit (`git log --all`, cached until a ref moves; best effort, see HISTORY_MS).
import fs from 'node:fs';
import path from 'node:path';
import { runProcessSync } from '../util/runSync.js';
import { GitRefusedError, safeGitEnvSync } from '../util/safeGit.js';
import { sensitiveRule } from './pathPolicy.js';
import { matchPathRules, type PermissionRules } from './permissions.js';

const cache = new Map<string, { key: string; paths: string[] }>();
const tops = new Map<string, string | null>();

/** Tracked paths (absolute) that the policy denies reading, in the whole repository; [] outside one. */
export function trackedDeniedPaths(root: string, permissions?: PermissionRules): string[] {
  const top = topLevel(root);
  if (!top) return [];
  const key = `${indexKey(top)}\0${permissions?.rules.length ?? 0}`;
  const hit = cache.get(top);
  if (hit && hit.key === key) return hit.paths;
  const paths = deniedAmong(top, git(top, ['ls-files', '-z', '--cached'])?.split('\0').filter(Boolean) ?? [], permissions);
  if (!key.startsWith('-')) cache.set(top, { key, paths });
  return paths;
}

/** How long listing every path history ever added may take; a repository slower than that is judged by its index alone. */
const HISTORY_MS = 5_000;
const historyCache = new Map<string, { key: string; paths: string[] }>();

/** Paths (absolute) that some commit on any ref added and the policy denies reading, whether or not they are still tracked. */
export function historyDeniedPaths(root: string, permissions?: PermissionRules): string[] {
  const top = topLevel(root);
  if (!top) return [];
  // Where HEAD and every ref point: history changes only when one of them moves.
  const key = `${git(top, ['rev-parse', 'HEAD', '--all'], 10_000, true) ?? ''}\0${permissions?.rules.length ?? 0}`;
  const hit = historyCache.get(top);
  if (hit && hit.key === key) return hit.paths;
  const out = git(top, ['log', '--all', '--format=', '--name-only', '-z', '--diff-filter=ACR', '--no-renames'], HISTORY_MS);
  const names = new Set(out?.split('\0').map((n) => n.trim()));
  names.delete('');
  const paths = deniedAmong(top, [...names], permissions);
  if (out !== null) historyCache.set(top, { key, paths });
  return paths;
}

/** At most this many untracked files are judged one by one; more make the command unverifiable. */
export const UNTRACKED_LIMIT = 20_000;

/**
 * Untracked files below `pathspecs` (absolute paths), listed by git from `cwd`; null when git fails or
 * lists more than UNTRACKED_LIMIT. Used for what `git add`, `git stash -u` and `git clean` would take.
 */
export function untrackedPaths(cwd: string, pathspecs: string[], opts: { ignored: 'no' | 'also' | 'only'; excludes: string[] }): string[] | null {
  const args = ['ls-files', '-z', '--others'];
  if (opts.ignored !== 'also') args.push('--exclude-standard');
  if (opts.ignored === 'only') args.push('--ignored');
  for (const e of opts.excludes) args.push(`--exclude=${e}`);
  args.push('--', ...pathspecs);
  const files = git(cwd, args)?.split('\0').filter(Boolean);
  return !files || files.length > UNTRACKED_LIMIT ? null : files.map((f) => path.resolve(cwd, f));
}

/** The names (relative to the top level) whose reading the policy denies, as absolute paths. */
function deniedAmong(top: string, names: string[], permissions?: PermissionRules): string[] {
  return names
    .map((f) => path.join(top, f))
    .filter((abs) => sensitiveRule([abs], 'read') !== null || (permissions !== undefined && matchPathRules(abs, 'read', permissions)?.kind === 'deny'));
}

function topLevel(root: string): string | null {
  // A folder that is not a repository yet may become one (git init): only a found top level is kept.
  if (!tops.get(root)) tops.set(root, git(root, ['rev-parse', '--show-toplevel'])?.trim() || null);
  return tops.get(root) ?? null;
}

/** What git prints, run in `cwd` with the safe environment; null when it fails (`anyStatus`: whatever it printed). */
function git(cwd: string, args: string[], timeout = 10_000, anyStatus = false): string | null {
  let env: Record<string, string>;
  try {
    env = safeGitEnvSync(cwd);
  } catch (err) {
    if (err instanceof GitRefusedError) return null;
    throw err;
  }
  const r = runProcessSync('git', args, {
    cwd,
    encoding: 'utf8',
    timeout,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
    env,
  });
  return (r.status === 0 || anyStatus) && typeof r.stdout === 'string' ? r.stdout : null;
}

/** Changes when the index does; '-' (never cached) when there is no plain .git/index to watch (worktrees, submodules). */
function indexKey(top: string): string {
  try {
    const st = fs.statSync(path.join(top, '.git', 'index'));
    return `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return '-';
  }
}
