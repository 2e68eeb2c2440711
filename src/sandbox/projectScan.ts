// What the sandbox must know of a project before a command runs in it, found by one walk: every git
// directory or `.git` file (nested repositories and submodules included: each is held read-only, and
// their configuration neutralised), and every regular file with more than one link (a hard link can be
// the same file as ~/.aws/credentials under another name: masked like a denied file). The walk is kept
// until something devx did not contain could have changed it (a command a person ran unsandboxed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';

export interface ProjectScan {
  /** Every entry named `.git` (folder or file), absolute; git's own folders are not walked into. */
  gitEntries: string[];
  /** Regular files with more than one link, absolute (outside git folders; pnpm's links verified to be its store's are left out). */
  multiLinked: string[];
  /** The walk stopped at its limit: what it did not reach is not known. */
  partial: boolean;
}

/** A walk stops after this many entries (a project that large is judged by what was reached). */
const MAX_ENTRIES = 500_000;
/** pnpm fills node_modules/.pnpm with hard links to its content store in the home; a name proves nothing (anyone can make that folder). */
const LINKED_STORE = `${path.sep}node_modules${path.sep}.pnpm${path.sep}`;
/** The biggest file whose content is hashed to find it in pnpm's store. */
const MAX_HASHED = 64 * 1024 * 1024;
/** Verdicts by device, inode, size and change time (a new link changes ctime), kept across walks. */
const storeVerdicts = new Map<string, boolean>();

const scans = new Map<string, ProjectScan>();
const gitOnly = new Map<string, string[]>();

/** The project's scan, walked on first use and kept until forgetScan. */
export function scanProject(root: string): ProjectScan {
  let s = scans.get(root);
  if (!s) {
    s = walkProject(root, true, pnpmStores(root));
    scans.set(root, s);
  }
  return s;
}

/** The project's `.git` entries alone: a walk that reads folders but stats no file (kept like the scan). */
export function gitEntriesOf(root: string): string[] {
  const s = scans.get(root)?.gitEntries ?? gitOnly.get(root);
  if (s) return s;
  const found = walkProject(root, false, []).gitEntries;
  gitOnly.set(root, found);
  return found;
}

/** Drops what was kept: the next command walks again (after one that ran where devx did not watch it). */
export function forgetScan(root: string): void {
  scans.delete(root);
  gitOnly.delete(root);
}

function walkProject(root: string, links: boolean, stores: string[]): ProjectScan {
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
      else if (links && e.isFile() && isMultiLinked(p, stores)) out.multiLinked.push(p);
    }
  };
  walk(root);
  return out;
}

function isMultiLinked(p: string, stores: string[]): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return false;
  }
  if (st.nlink <= 1) return false;
  return !(p.includes(LINKED_STORE) && inPnpmStore(p, st, stores));
}

/**
 * The `files` folders of pnpm's content stores where pnpm keeps them in the user's home (never a place
 * the project or its settings name: a store inside the project proves nothing).
 */
function pnpmStores(root: string): string[] {
  const home = os.homedir();
  const bases = [
    process.env.PNPM_HOME && path.join(process.env.PNPM_HOME, 'store'),
    process.env.XDG_DATA_HOME && path.join(process.env.XDG_DATA_HOME, 'pnpm', 'store'),
    path.join(home, '.local', 'share', 'pnpm', 'store'),
    path.join(home, 'Library', 'pnpm', 'store'),
  ].filter((b): b is string => !!b && path.isAbsolute(b) && !(b + path.sep).startsWith(root + path.sep));
  const out: string[] = [];
  for (const b of new Set(bases)) {
    let versions: string[];
    try {
      versions = fs.readdirSync(b).filter((v) => /^v\d+$/.test(v));
    } catch {
      continue;
    }
    for (const v of versions) out.push(path.join(b, v, 'files'));
  }
  return out;
}

/**
 * Is this hard-linked file one of pnpm's store files? pnpm names a store file by its content's SHA-512
 * (`files/ab/cdef…`, `-exec` for an executable): the file is exempt only when that name in a store in
 * the home is this very inode, whose other names are then the store's.
 */
function inPnpmStore(p: string, st: fs.Stats, stores: string[]): boolean {
  if (!stores.length || st.size > MAX_HASHED) return false;
  const key = `${st.dev}:${st.ino}:${st.size}:${st.ctimeMs}`;
  const known = storeVerdicts.get(key);
  if (known !== undefined) return known;
  let verdict = false;
  try {
    const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    let hex: string;
    try {
      const opened = fs.fstatSync(fd);
      if (!opened.isFile() || opened.ino !== st.ino || opened.dev !== st.dev) return false;
      hex = crypto.createHash('sha512').update(fs.readFileSync(fd)).digest('hex');
    } finally {
      fs.closeSync(fd);
    }
    verdict = stores.some((s) =>
      ['', '-exec'].some((suffix) => {
        try {
          const other = fs.lstatSync(path.join(s, hex.slice(0, 2), hex.slice(2) + suffix));
          return other.isFile() && other.dev === st.dev && other.ino === st.ino;
        } catch {
          return false;
        }
      }),
    );
  } catch {
    verdict = false;
  }
  storeVerdicts.set(key, verdict);
  return verdict;
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
