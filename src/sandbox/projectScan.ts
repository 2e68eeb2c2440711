// What the sandbox must know of a project before a command runs in it, found by one walk: every git
// directory or `.git` file (nested repositories and submodules included: each is held read-only, and
// their configuration neutralised), and every regular file with more than one link that may have a name outside
// the project (a hard link can be the same file as ~/.aws/credentials under another name: masked like a
// denied file). The walk is kept
// until something devx did not contain could have changed it (a command a person ran unsandboxed).
// Below a name that is not UTF-8 no path can be given to bwrap: what would need hiding or holding there
// is listed as unmaskable, and the sandbox refuses to start (bwrap.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { decodedName, shownBytes } from '../util/fileNames.js';
import { walkDir } from '../util/guardedPath.js';
import { NESTED_CONFIG_NAMES } from './otherToolsConfig.js';

export interface ProjectScan {
  /** Every entry named `.git` (folder or file), absolute; git's own folders are not walked into. */
  gitEntries: string[];
  /**
   * Regular files with more than one link, absolute (outside git folders): those with a link the walk did not
   * find in the project (pnpm's links verified to be its store's are left out).
   */
  multiLinked: string[];
  /**
   * What the sandbox would have to hide or hold but cannot name: a `.git` entry or a hard-linked file below a
   * name that is not UTF-8, or a `.git` file whose `gitdir:` is not UTF-8 (shown with \xNN for such bytes).
   */
  unmaskable: string[];
  /**
   * Editors' and agents' configuration below the top (`packages/web/.vscode`, `apps/api/.claude`), outside
   * node_modules, absolute: a build holds them read-only, as it holds the top's.
   */
  nestedConfig: string[];
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
const gitOnly = new Map<string, ProjectScan>();

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
  return gitScanOf(root).gitEntries;
}

/** `.git` entries the git-only walk could not name (below a name that is not UTF-8, or a `gitdir:` that is not). */
export function unnamedGitEntriesOf(root: string): string[] {
  return gitScanOf(root).unmaskable;
}

function gitScanOf(root: string): ProjectScan {
  const s = scans.get(root) ?? gitOnly.get(root);
  if (s) return s;
  const found = walkProject(root, false, []);
  gitOnly.set(root, found);
  return found;
}

/** Drops what was kept: the next command walks again (after one that ran where devx did not watch it). */
export function forgetScan(root: string): void {
  scans.delete(root);
  gitOnly.delete(root);
}

function walkProject(root: string, links: boolean, stores: string[]): ProjectScan {
  const out: ProjectScan = { gitEntries: [], multiLinked: [], unmaskable: [], nestedConfig: [], partial: false };
  const linked: LinkedFile[] = [];
  let seen = 0;
  // Folders are entered from their parent's descriptor, never through a link (a build may swap one meanwhile).
  walkDir(root, (e, at, enter) => {
    if (++seen > MAX_ENTRIES) {
      out.partial = true;
      return false;
    }
    const name = decodedName(e.name);
    const p = decodedName(at);
    // Below a name that is not UTF-8 everything is reached by bytes; only what would need a mount is kept.
    if (p === null) {
      if (name === '.git') out.unmaskable.push(shownBytes(at));
      else if (e.isDirectory()) enter();
      else if (links && e.isFile() && linkCount(at) > 1) out.unmaskable.push(shownBytes(at));
      return;
    }
    if (name === '.git') {
      out.gitEntries.push(p);
      if (e.isFile() && !gitdirDecodes(p)) out.unmaskable.push(p);
      return;
    }
    if (links && isNestedConfig(root, p, name)) out.nestedConfig.push(p);
    if (e.isDirectory()) enter();
    else if (links && e.isFile()) {
      const f = multiLinked(p, stores);
      if (f) linked.push(f);
    }
  });
  out.multiLinked = outsideLinks(linked, out.partial);
  return out;
}

/** An editor's or agent's configuration in a folder below the top, not in an installed package. */
function isNestedConfig(root: string, p: string, name: string | null): boolean {
  if (name === null || !NESTED_CONFIG_NAMES.has(name.toLowerCase())) return false;
  return path.dirname(p) !== root && !p.slice(root.length).split(path.sep).includes('node_modules');
}

interface LinkedFile {
  path: string;
  /** Device and inode: the names of one file share it. */
  key: string;
  nlink: number;
}

/**
 * The hard-linked files that may have a name outside the project: those whose every link the walk did not
 * find in it (a build's own links, such as cargo's target/debug/<bin> beside deps/<bin>-<hash>, are left
 * alone: masking them stopped the next build from replacing them). After a partial walk, all of them.
 */
function outsideLinks(files: LinkedFile[], partial: boolean): string[] {
  const names = new Map<string, number>();
  for (const f of files) names.set(f.key, (names.get(f.key) ?? 0) + 1);
  return files.filter((f) => partial || (names.get(f.key) ?? 0) < f.nlink).map((f) => f.path);
}

/** Whether a `.git` file's content (its `gitdir:` line) is UTF-8: one that is not names a folder no mount can. */
function gitdirDecodes(p: string): boolean {
  try {
    const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(4096);
      return decodedName(buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0))) !== null;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return true; // gone or unreadable: git cannot read it either
  }
}

function linkCount(p: Buffer): number {
  try {
    return fs.lstatSync(p).nlink;
  } catch {
    return 0;
  }
}

/** A regular file with more than one link (pnpm's verified links to its store left out), or null. */
function multiLinked(p: string, stores: string[]): LinkedFile | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return null;
  }
  if (st.nlink <= 1 || (p.includes(LINKED_STORE) && inPnpmStore(p, st, stores))) return null;
  return { path: p, key: `${st.dev}:${st.ino}`, nlink: st.nlink };
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

/** A `.git` entry found by gitEntriesUnder: its path (bytes below a name that is not UTF-8) and identity. */
export interface FoundEntry {
  path: string | Buffer;
  id: string;
}

/** One key per path, whatever its bytes (latin1 maps each byte to one character). */
export const entryKey = (p: string | Buffer): string => (typeof p === 'string' ? Buffer.from(p) : p).toString('latin1');

/**
 * Entries named `.git` under `dirs` (not inside node_modules, whose nested repositories no git command
 * of the project reaches), with their identity: a later walk compares them to find one made or replaced.
 * Names are read as bytes, so one below a name that is not UTF-8 is found too.
 */
export function gitEntriesUnder(dirs: string[]): Map<string, FoundEntry> {
  return entriesNamedUnder(dirs, new Set(['.git']));
}

/** Entries under `dirs` with one of `names` (compared without case), found as gitEntriesUnder finds `.git`. */
export function entriesNamedUnder(dirs: string[], names: ReadonlySet<string>): Map<string, FoundEntry> {
  const out = new Map<string, FoundEntry>();
  for (const d of dirs)
    walkDir(d, (e, at, enter) => {
      const name = decodedName(e.name);
      const p = decodedName(at) ?? at;
      if (name !== null && names.has(name.toLowerCase())) out.set(entryKey(p), { path: p, id: identity(p) });
      else if (name !== 'node_modules' && name !== '.git') enter();
    });
  return out;
}

/** A path's device, inode and type, or '' when it is gone. */
export function identity(p: string | Buffer): string {
  try {
    const st = fs.lstatSync(p);
    return `${st.dev}:${st.ino}:${st.isDirectory() ? 'd' : st.isFile() ? 'f' : 'o'}`;
  } catch {
    return '';
  }
}
