// What the sandbox must know of a project before a command runs in it, found by one walk: every git
// directory or `.git` file (nested repositories and submodules included: each is held read-only, and
// their configuration neutralised), and every regular file with more than one link (a hard link can be
// the same file as ~/.aws/credentials under another name: masked like a denied file). The walk is kept
// until something devx did not contain could have changed it (a command a person ran unsandboxed).
import fs from 'node:fs';
import path from 'node:path';

export interface ProjectScan {
  /** Every entry named `.git` (folder or file), absolute; git's own folders are not walked into. */
  gitEntries: string[];
  /** Regular files with more than one link, absolute (outside git folders and pnpm's linked store). */
  multiLinked: string[];
  /** The walk stopped at its limit: what it did not reach is not known. */
  partial: boolean;
}

/** A walk stops after this many entries (a project that large is judged by what was reached). */
const MAX_ENTRIES = 500_000;
/** pnpm fills node_modules/.pnpm with hard links to its own store in the home: a package manager's, not a repository's. */
const LINKED_STORE = `${path.sep}node_modules${path.sep}.pnpm${path.sep}`;

const scans = new Map<string, ProjectScan>();
const gitOnly = new Map<string, string[]>();

/** The project's scan, walked on first use and kept until forgetScan. */
export function scanProject(root: string): ProjectScan {
  let s = scans.get(root);
  if (!s) {
    s = walkProject(root, true);
    scans.set(root, s);
  }
  return s;
}

/** The project's `.git` entries alone: a walk that reads folders but stats no file (kept like the scan). */
export function gitEntriesOf(root: string): string[] {
  const s = scans.get(root)?.gitEntries ?? gitOnly.get(root);
  if (s) return s;
  const found = walkProject(root, false).gitEntries;
  gitOnly.set(root, found);
  return found;
}

/** Drops what was kept: the next command walks again (after one that ran where devx did not watch it). */
export function forgetScan(root: string): void {
  scans.delete(root);
  gitOnly.delete(root);
}

function walkProject(root: string, links: boolean): ProjectScan {
  const out: ProjectScan = { gitEntries: [], multiLinked: [], partial: false };
  let seen = 0;
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) {
        out.partial = true;
        return;
      }
      const p = path.join(dir, e.name);
      if (e.name === '.git') out.gitEntries.push(p);
      else if (e.isDirectory()) walk(p);
      else if (links && e.isFile() && isMultiLinked(p)) out.multiLinked.push(p);
    }
  };
  walk(root);
  return out;
}

function isMultiLinked(p: string): boolean {
  if (p.includes(LINKED_STORE)) return false;
  try {
    return fs.lstatSync(p).nlink > 1;
  } catch {
    return false;
  }
}

/**
 * Entries named `.git` under `dirs` (not inside node_modules, whose nested repositories no git command
 * of the project reaches), with their identity: a later walk compares them to find one made or replaced.
 */
export function gitEntriesUnder(dirs: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.name === '.git') out.set(p, identity(p));
      else if (e.isDirectory() && e.name !== 'node_modules') walk(p);
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** A path's device, inode and type, or '' when it is gone. */
export function identity(p: string): string {
  try {
    const st = fs.lstatSync(p);
    return `${st.dev}:${st.ino}:${st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o'}`;
  } catch {
    return '';
  }
}
