// Files git tracks that the policy denies reading (a committed .env.production, credentials.json, ...).
// git prints their contents from its objects, where neither the path check nor the sandbox sees them:
// `git diff`, `git log -p`, `git show <blob>`, `git cat-file -p <sha>`. The list comes from the index
// (`git ls-files`), cached until the index changes; files only in older commits are not in it.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
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
  const r = spawnSync('git', ['ls-files', '-z', '--cached'], { cwd: top, encoding: 'utf8', timeout: 10_000, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  const files = r.status === 0 && typeof r.stdout === 'string' ? r.stdout.split('\0').filter(Boolean) : [];
  const paths = files
    .map((f) => path.join(top, f))
    .filter((abs) => sensitiveRule([abs], 'read') !== null || (permissions !== undefined && matchPathRules(abs, 'read', permissions)?.kind === 'deny'));
  if (!key.startsWith('-')) cache.set(top, { key, paths });
  return paths;
}

function topLevel(root: string): string | null {
  // A folder that is not a repository yet may become one (git init): only a found top level is kept.
  if (!tops.get(root)) {
    const r = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    tops.set(root, r.status === 0 && typeof r.stdout === 'string' && r.stdout.trim() ? r.stdout.trim() : null);
  }
  return tops.get(root) ?? null;
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
