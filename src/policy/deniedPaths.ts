// Which paths under a directory the policy denies reading: sensitive files (the built-in list),
// settings Read(...) deny rules, and symlinks that lead out of the project or to a secret. Used by
// recursive readers (grep -r, rg, git grep: they run only sandboxed when a tree holds such paths),
// by search_code / glob / list_directory (they withhold them), and by the sandbox (it masks them).
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../sandbox/resolvePath.js';
import { sensitiveRule } from './pathPolicy.js';
import { matchPathRules, type PermissionRules } from './permissions.js';
import { decodedName, shownBytes } from '../util/fileNames.js';
import { walkDir } from '../util/guardedPath.js';
import { realOrAsGiven } from '../util/realPath.js';

export interface DeniedScan {
  /** Absolute paths (as found, not resolved) that must not be read. */
  paths: string[];
  /**
   * True when the tree could not be checked whole: the walk stopped at its limit, or a name below is not UTF-8
   * (no string path names it, so nothing can be judged on it). The tree may hold more than `paths`.
   */
  capped: boolean;
  /** The names below that are not UTF-8, absolute, shown with \xNN for such bytes: what the caller can tell the person. */
  undecodable: string[];
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
  const scan: DeniedScan = { paths: [], capped: false, undecodable: [] };
  let seen = 0;
  let stopped = false;
  // Folders are entered from their parent's descriptor, never through a link (util/guardedPath.ts): a sandboxed
  // build may swap one for a link into the home while this walks.
  const visit = (e: fs.Dirent<Buffer>, at: Buffer, enter: () => void): boolean | void => {
    if (stopped) return false;
    if (++seen > LIMIT) {
      stopped = true;
      return false;
    }
    const name = decodedName(e.name);
    const p = decodedName(at);
    // A name that is not UTF-8 has no string path to judge: noted, and the walk goes on (the sandbox masks what it finds).
    if (name === null || p === null) {
      const parent = decodedName(at.subarray(0, at.length - e.name.length - 1)) ?? '?';
      if (opts.hidden !== false || e.name[0] !== 0x2e) scan.undecodable.push(path.join(parent, shownBytes(e.name)));
      return;
    }
    if (opts.hidden === false && name.startsWith('.')) return;
    if (e.isSymbolicLink()) {
      let real: string | null = null;
      try {
        real = fs.realpathSync(p);
      } catch {
        /* dangling */
      }
      if (real === null || !isInside(ctx.root, real) || isReadDenied(p, ctx)) scan.paths.push(p);
      return;
    }
    if (isReadDenied(p, ctx)) return void scan.paths.push(p);
    // Inside .git only config matters (objects are not files a reader greps meaningfully): the rest is not walked.
    const cfg = path.join(p, 'config');
    if (e.isDirectory() && name === '.git' && fs.existsSync(path.join(p, 'HEAD'))) {
      if (fs.existsSync(cfg) && isReadDenied(cfg, ctx)) scan.paths.push(cfg);
    } else enter();
  };
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(dir);
  } catch {
    /* missing */
  }
  if (st?.isDirectory()) walkDir(realOrAsGiven(dir), visit);
  else if (st && isReadDenied(dir, ctx)) scan.paths.push(dir);
  scan.capped = stopped || scan.undecodable.length > 0;
  cache.set(key, { at: Date.now(), scan });
  return scan;
}
