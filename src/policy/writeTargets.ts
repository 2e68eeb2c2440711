// Where a write really lands. The path check sees the words of a command, but `mv g .git`, `cp -r
// stuff/. .` and `rm -r .` change paths no word names: the name a source takes inside a destination
// folder, every file of a copied or moved tree under its new name, and what a removed or renamed tree
// holds. Protection is by name (.git/hooks, .git/config, .devx/...), so renaming the folder that gives
// a path its protected name (`mv .git g`, then edit g/hooks, then move it back) must be refused too.
import fs from 'node:fs';
import path from 'node:path';
import { isInside, realpathDeepest } from '../sandbox/resolvePath.js';
import type { Word } from './shellWords.js';
import { sensitiveRule } from './pathPolicy.js';
import { matchPathRules, type PermissionRules } from './permissions.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from './types.js';

export interface TargetContext {
  root: string;
  permissions?: PermissionRules;
}

/** How many entries of a copied or moved tree are mapped to their new names before devx gives up (and asks). */
const TREE_LIMIT = 5000;

/** Names that, placed under a folder, are protected only because of that folder's own name. */
const PROBES = [path.join('hooks', 'pre-commit'), 'config', 'settings.json', 'audit.jsonl', 'history.json'];

const lexists = (p: string) => {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

export const isDir = (p: string) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** The write rule a path falls under by name (built-in protected names, then settings deny rules), or null. */
function protectedBy(p: string, ctx: TargetContext): { rule: string; reason: string } | null {
  const s = sensitiveRule([p], 'write');
  if (s) return { rule: `path:${s.id}`, reason: s.reason };
  const m = ctx.permissions ? matchPathRules(p, 'write', ctx.permissions) : null;
  if (m?.kind === 'deny') return { rule: `settings:${m.source}:deny:${m.rule}`, reason: `your settings rule ${m.rule}` };
  return null;
}

/**
 * A tree that is removed, renamed or changed as a whole (rm -r, mv, chmod -R): refused when it gives
 * protected paths their names (it is .git, .devx or such a folder's parent) or holds the project's own.
 */
export function decideTree(abs: string, shown: string, how: string, ctx: TargetContext): PolicyDecision {
  for (const anchor of ['.git', '.devx']) {
    const a = path.join(ctx.root, anchor);
    if (lexists(a) && isInside(abs, a)) return DENY(`${how} ${shown} would take the project's ${anchor} with it, which devx protects`, `path:tree:${anchor}`);
  }
  for (const probe of PROBES) {
    const hit = protectedBy(path.join(abs, probe), ctx);
    if (hit && !protectedBy(path.join(path.dirname(abs), `devx-probe-${process.pid}`, probe), ctx)) {
      return DENY(`${how} ${shown} changes the folder that protects ${path.join(shown, probe)} (${hit.reason})`, hit.rule);
    }
  }
  return ALLOW('no protected paths depend on this folder', 'command:paths');
}

/**
 * Where `source` lands when copied, moved or linked to `dest`: inside it under its own name when
 * `dest` is a folder (or `into`), else `dest` itself. With `--parents` (cp), the whole source path is kept.
 */
export function placedAt(source: string, sourceText: string, dest: string, into: 'auto' | 'always' | 'never', parents = false): string {
  if (parents) return path.join(dest, sourceText);
  const intoDir = into === 'always' || (into === 'auto' && isDir(dest));
  return intoDir ? path.join(dest, path.basename(source)) : dest;
}

/**
 * Every file of the tree at `source`, mapped to its place under `target`: refused when one lands on a
 * protected name (`cp -r stuff/. .` with stuff/.git/hooks/x, or a folder moved to .git with hooks inside).
 */
export function decidePlacedTree(source: string, target: string, shownTarget: string, ctx: TargetContext, moves = false): PolicyDecision {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(source);
  } catch {
    return ALLOW('nothing there yet', 'command:paths');
  }
  if (!st.isDirectory()) return ALLOW('a single file', 'command:paths');
  let seen = 0;
  const stack = [''];
  while (stack.length) {
    const rel = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(source, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > TREE_LIMIT)
        return ASK(
          `${shownTarget} would receive more than ${TREE_LIMIT} entries, too many to check for protected names in advance`,
          'command:unverifiable:tree',
        );
      const r = path.join(rel, e.name);
      const hit = protectedBy(path.join(target, r), ctx);
      // A move keeps a file's own protected name (config/.env becomes cfg/.env): only a name the destination gives counts.
      const ownName = moves && hit && protectedBy(path.join(path.dirname(target), `devx-probe-${process.pid}`, r), ctx)?.rule === hit.rule;
      if (hit && !ownName) return DENY(`this would write ${path.join(shownTarget, r)} (${hit.reason})`, hit.rule);
      if (e.isDirectory()) stack.push(r);
    }
  }
  return ALLOW('no protected names in the copied tree', 'command:paths');
}

/** How a command's words become paths where it runs (supplied by the command walker). */
export interface WordResolver {
  /** Every directory the shell may be in at this point. */
  cwds: string[];
  home: string;
  /** A glob's matches from `cwd`, or null when there are too many to judge. */
  expand(pattern: string, cwd: string): string[] | null;
  /** The path policy (settings included) for writing `abs`. */
  judgeWrite(abs: string, cwd: string): PolicyDecision;
}

/** The absolute paths a word names from `cwd` (a glob: what it matches), or null when that is not known in advance. */
function pathsOf(w: Word, cwd: string, r: WordResolver): string[] | null {
  if (!w.literal || w.unknownKinds.length) return null;
  const t = w.text === '~' ? r.home : w.text.startsWith('~/') ? path.join(r.home, w.text.slice(2)) : w.text;
  return w.glob ? r.expand(t, cwd) : [path.resolve(cwd, t || '.')];
}

const shownPath = (p: string, ctx: TargetContext) => path.relative(ctx.root, p) || '.';

/** A folder removed, renamed or rewritten whole, judged as given and where it leads. Words not known in advance were asked about already. */
export function checkTree(w: Word, how: string, r: WordResolver, ctx: TargetContext): PolicyDecision {
  let d = ALLOW('no protected paths depend on it', 'command:paths');
  for (const cwd of r.cwds) {
    for (const p of pathsOf(w, cwd, r) ?? []) {
      let real = p;
      try {
        real = realpathDeepest(p);
      } catch {
        /* judged as given */
      }
      for (const q of new Set([p, real])) d = strictest(d, decideTree(q, shownPath(q, ctx), how, ctx));
    }
  }
  return d;
}

/** Each source judged as a write where it lands under `dest`, its tree included. */
export function checkPlacement(
  sources: Word[],
  dest: Word,
  opts: { into: 'auto' | 'always' | 'never'; parents?: boolean; moves?: boolean },
  r: WordResolver,
  ctx: TargetContext,
): PolicyDecision {
  let d = ALLOW('nothing lands on a protected path', 'command:paths');
  for (const cwd of r.cwds) {
    for (const D of pathsOf(dest, cwd, r) ?? []) {
      for (const s of sources) {
        for (const S of pathsOf(s, cwd, r) ?? []) {
          const T = placedAt(S, s.text, D, opts.into, opts.parents);
          if (T !== D) d = strictest(d, r.judgeWrite(T, cwd));
          d = strictest(d, decidePlacedTree(S, T, shownPath(T, ctx), ctx, opts.moves));
        }
      }
    }
  }
  return d;
}
