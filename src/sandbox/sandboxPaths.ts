// Which paths of a project the sandbox keeps read-only whatever the claim (what git, editors and other
// agents read to decide what to run), and which folders a `write` claim makes writable.
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from './resolvePath.js';
import { FIXED_CONFIG_PATHS, patternConfigAt } from './otherToolsConfig.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';

/**
 * Names at the project's top that decide what runs later: git's folder (hooks, config, commondir, an
 * fsmonitor), devx's state, and other programs' configuration (otherToolsConfig.ts).
 */
export const PROTECTED_NAMES = ['.git', '.devx', ...FIXED_CONFIG_PATHS.filter((p) => !p.includes('/'))];
/** With claim.git (git add, commit...) .git is writable except these, which choose what git runs. */
const GIT_EXEC_PARTS = ['config', 'config.worktree', 'commondir', 'hooks', 'info', 'modules', 'worktrees'];

/** The folder core.hooksPath names in the project's git config (husky sets .husky/_), when it is inside the project. */
export function hooksPathOf(root: string): string | null {
  const text = readTextOrNull(path.join(root, '.git', 'config'), READ_LIMITS.definition, 'any');
  if (text === null) return null;
  const m = /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(text);
  if (!m) return null;
  const value = m[1].replace(/^"(.*)"$/, '$1');
  const abs = value.startsWith('~') ? null : path.resolve(root, value);
  return abs && isInside(root, abs) ? abs : null;
}

/** Existing paths inside the project that stay read-only (links resolved; a link out of the project needs nothing). */
export function protectedPaths(root: string, opts: { gitWritable: boolean }): string[] {
  const out = new Set<string>();
  const add = (p: string) => {
    let real: string;
    try {
      real = fs.realpathSync(p);
    } catch {
      return;
    }
    if (isInside(root, real) && real !== root) out.add(real);
  };
  for (const name of PROTECTED_NAMES) {
    const p = path.join(root, name);
    if (name === '.git' && opts.gitWritable && isDir(p)) for (const part of GIT_EXEC_PARTS) add(path.join(p, part));
    else add(p);
  }
  // Other programs' configuration deeper than the top (`.config/mise.toml`) or named by a pattern (`mise.dev.toml`).
  for (const rel of FIXED_CONFIG_PATHS) if (rel.includes('/')) add(path.join(root, rel));
  for (const p of patternConfigAt(root)) add(p);
  const hooks = hooksPathOf(root);
  if (hooks) add(hooks);
  return [...out];
}

/**
 * Of those, the ones a build must not create anew either (a `.git` with an fsmonitor in its config runs at
 * your next git command; Claude Code and Gemini CLI run a new project's hooks). The others only matter
 * once they exist (husky and core.hooksPath point at an existing folder; direnv asks before a new .envrc;
 * Claude Code asks before a new .mcp.json's servers), and a placeholder file there would trip tools that
 * read every file.
 */
const PLACEHOLDER_NAMES = ['.git', '.vscode', '.gemini', '.claude'];

/** Protected names missing at the project's top: a writable top gets a read-only placeholder there, so nothing can create them. */
export function missingProtected(root: string): string[] {
  return PLACEHOLDER_NAMES.filter((n) => {
    try {
      fs.lstatSync(path.join(root, n));
      return false;
    } catch {
      return true;
    }
  }).map((n) => path.join(root, n));
}

/** The folders a `write` claim makes writable: the nearest existing folder of each target, inside the project. */
export function writableFolders(root: string, writes: string[]): string[] {
  const out = new Set<string>();
  for (const w of writes) {
    let dir = path.dirname(w);
    while (!isDir(dir) && dir !== path.dirname(dir)) dir = path.dirname(dir);
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue;
    }
    if (isInside(root, real)) out.add(real);
  }
  // A folder inside another one already writable needs no mount of its own.
  return [...out].filter((d) => ![...out].some((o) => o !== d && isInside(o, d))).sort();
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
