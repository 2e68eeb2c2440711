// The project's git directories as the sandbox holds them: nested repositories and submodules read-only
// (the top one is in sandboxPaths.ts), the folders above them fixed in place, and every config that names
// a program replaced, inside the sandbox only, by a copy without those keys (util/safeGit.ts says which).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { isInside } from './resolvePath.js';
import { readConfigFileSync, runsProgram, type ConfigEntry } from '../util/safeGit.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';
import { readTextOrNull } from '../util/readRegularFileSync.js';

/** Where a `.git` entry's repository data is: the folder itself, or the folder a `gitdir:` file names. */
export function gitDirOf(entry: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(entry);
  } catch {
    return null;
  }
  if (st.isDirectory()) return entry;
  if (!st.isFile()) return null;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readTextOrNull(entry, 4096, 'any') ?? '');
  return m ? path.resolve(path.dirname(entry), m[1]) : null;
}

/**
 * Nested `.git` entries and, for each, its git directory when that lies in the project (the top's own are
 * protected elsewhere), and the common directory a `commondir` names there (git reads its config, hooks and
 * refs as the repository's own), for the top's too.
 */
export function nestedGitPaths(root: string, entries: string[]): string[] {
  const top = path.join(root, '.git');
  const out = new Set<string>();
  const held = (d: string) => isInside(root, d) && !isInside(top, d) && fs.existsSync(d);
  for (const e of entries) {
    if (e !== top) out.add(e);
    const dir = gitDirOf(e);
    if (!dir) continue;
    if (dir !== top && held(dir)) out.add(dir);
    const common = commonDirOf(dir);
    if (common && held(common)) out.add(common);
  }
  return [...out];
}

/** The folder a git directory's `commondir` names (a worktree's main git directory), or null. */
export function commonDirOf(gitDir: string): string | null {
  const common = readTextOrNull(path.join(gitDir, 'commondir'), 4096, 'any')?.trim();
  return common ? path.resolve(gitDir, common) : null;
}

/** The folders between the project's top and each nested `.git` (its parent included), outermost first. */
export function foldersAbove(root: string, entries: string[]): string[] {
  const out = new Set<string>();
  for (const e of entries) {
    const chain: string[] = [];
    for (let d = path.dirname(e); d !== root && isInside(root, d); d = path.dirname(d)) chain.unshift(d);
    for (const d of chain) out.add(d);
  }
  return [...out].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length);
}

/** The config files git reads for each repository in the project (its git directory's, a worktree's, the common one). */
function configFiles(root: string, entries: string[]): string[] {
  const out = new Set<string>();
  for (const e of entries) {
    const dir = gitDirOf(e);
    if (!dir) continue;
    const dirs = [dir];
    const common = commonDirOf(dir); // a worktree's
    if (common) dirs.push(common);
    // git reads every module's config when it walks into a submodule.
    for (const d of [...dirs]) for (const m of modulesUnder(path.join(d, 'modules'))) dirs.push(m);
    for (const d of dirs)
      for (const f of ['config', 'config.worktree']) if (isInside(root, path.join(d, f)) && fs.existsSync(path.join(d, f))) out.add(path.join(d, f));
  }
  return [...out];
}

/** Submodules' git directories under .git/modules (nested ones too). */
function modulesUnder(dir: string): string[] {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return names
    .filter((n) => n.isDirectory())
    .flatMap((n) => {
      const d = path.join(dir, n.name);
      return fs.existsSync(path.join(d, 'HEAD')) ? [d, ...modulesUnder(path.join(d, 'modules'))] : modulesUnder(d);
    });
}

const checked = new Map<string, { stamp: string; safe: ConfigEntry[] | null }>();

/** The entries to keep when `file` names a program (null when it names none), checked again when the file changes. */
function unsafeConfig(file: string): ConfigEntry[] | null {
  let stamp: string;
  try {
    const st = fs.statSync(file);
    stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
  const hit = checked.get(file);
  if (hit?.stamp === stamp) return hit.safe;
  const entries = readConfigFileSync(file);
  // A file git cannot list (too large, too slow) is not judged, so not mounted: an empty copy stands for it.
  const safe = !entries ? [] : entries.some((e) => runsProgram(e.key)) ? entries.filter((e) => !runsProgram(e.key)) : null;
  checked.set(file, { stamp, safe });
  return safe;
}

/** Pairs of (config file, sanitised copy to mount over it) for each config in the project that names a program; the copies go in `temps`. */
export function sanitizedConfigs(root: string, entries: string[], temps: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const file of configFiles(root, entries)) {
    const safe = unsafeConfig(file);
    if (!safe) continue;
    const dir = path.join(os.tmpdir(), `devx-${process.getuid?.() ?? 'u'}`, 'git-configs');
    mkdirOwnedSync(dir, 0o700);
    const copy = path.join(dir, `config-${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
    writeNewOwnedSync(copy, renderConfig(safe));
    temps.push(copy);
    out.push([file, copy]);
  }
  return out;
}

/** A config file holding `entries` (as `git config --list` gives them), each value quoted. */
export function renderConfig(entries: ConfigEntry[]): string {
  const quote = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
  return entries
    .map((e) => {
      const first = e.key.indexOf('.');
      const last = e.key.lastIndexOf('.');
      const section = e.key.slice(0, first);
      const sub = last > first ? ` ${quote(e.key.slice(first + 1, last))}` : '';
      return `[${section}${sub}]\n\t${e.key.slice(last + 1)} = ${quote(e.value)}\n`;
    })
    .join('');
}
