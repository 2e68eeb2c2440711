// Which paths under a directory the policy denies reading: sensitive files (the built-in list),
// settings Read(...) deny rules, and symlinks that lead out of the project or to a secret. Used by
// recursive readers (grep -r, rg, git grep: they run only sandboxed when a tree holds such paths),
// by search_code / glob / list_directory (they withhold them), and by the sandbox (it masks them).
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../sandbox/resolvePath.js';
import { sensitiveRule } from './pathPolicy.js';
import { matchPathRules, type PermissionRules } from './permissions.js';

export interface DeniedScan {
  /** Absolute paths (as found, not resolved) that must not be read. */
  paths: string[];
  /** True when the walk stopped at its limit: the tree may hold more. */
  capped: boolean;
}

export interface DenyContext {
  root: string;
  home: string;
  devxHome: string;
  permissions?: PermissionRules;
}

const LIMIT = 50_000;
const TTL_MS = 2_000;
const cache = new Map<string, { at: number; scan: DeniedScan }>();

/** Is this one path denied for reading (the given name or where it leads)? */
export function isReadDenied(p: string, ctx: DenyContext): boolean {
  let real = p;
  try {
    real = fs.realpathSync(p);
  } catch {
    /* dangling: judged by name */
  }
  if (sensitiveRule([p, real], 'read')) return true;
  if (isInside(ctx.devxHome, real) || isInside(path.join(ctx.home, '.gemini'), real)) return true;
  return [real, p].some((x) => ctx.permissions !== undefined && matchPathRules(x, 'read', ctx.permissions)?.kind === 'deny');
}

/** Walks `dir` (not following links) and lists what must not be read. `hidden: false` skips dot-entries (rg's default). */
export function deniedUnder(dir: string, ctx: DenyContext, opts: { hidden?: boolean } = {}): DeniedScan {
  const key = `${dir}\0${opts.hidden !== false}\0${ctx.permissions?.rules.length ?? 0}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.scan;
  const scan: DeniedScan = { paths: [], capped: false };
  let seen = 0;
  const visit = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > LIMIT) {
        scan.capped = true;
        return;
      }
      if (opts.hidden === false && e.name.startsWith('.')) continue;
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) {
        let real: string | null = null;
        try {
          real = fs.realpathSync(p);
        } catch {
          /* dangling */
        }
        if (real === null || !isInside(ctx.root, real) || isReadDenied(p, ctx)) scan.paths.push(p);
        continue;
      }
      if (isReadDenied(p, ctx)) {
        scan.paths.push(p);
        continue;
      }
      // Inside .git only config matters (objects are not files a reader greps meaningfully): the rest is not walked.
      const cfg = path.join(p, 'config');
      if (e.isDirectory() && e.name === '.git' && fs.existsSync(path.join(p, 'HEAD'))) {
        if (fs.existsSync(cfg) && isReadDenied(cfg, ctx)) scan.paths.push(cfg);
      } else if (e.isDirectory()) visit(p);
      if (scan.capped) return;
    }
  };
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(dir);
  } catch {
    /* missing */
  }
  if (st?.isDirectory()) visit(dir);
  else if (st && isReadDenied(dir, ctx)) scan.paths.push(dir);
  cache.set(key, { at: Date.now(), scan });
  return scan;
}
