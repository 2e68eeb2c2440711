// Paths devx opens itself inside a tree that a sandboxed command may be changing at that very moment: the
// project, where a background build can swap a folder for a link into the home between devx's check of a
// path and its open (a rename exchange, in a loop). Inside such a tree each folder on the way is entered
// from the one before it without following a link, and the last name is used relative to the folder so
// opened (/proc/self/fd/<n>/<name>: Linux resolves it from that open folder, not by its path again). What
// devx opens, writes or renames there is inside the tree whatever is swapped meanwhile; a link on the way
// is refused (ELOOP). Outside the trees, and where /proc is missing, paths are used as given.
import fs from 'node:fs';
import path from 'node:path';
import { isSymlink } from './realPath.js';

const trees = new Set<string>();
const HAS_PROC = process.platform === 'linux' && fs.existsSync('/proc/self/fd');

/** Guards `root` (a real path) from now on: commands that change it may run beside devx's own file work. */
export function guardTree(root: string): void {
  trees.add(path.resolve(root));
}

/** A folder entered without links (or, unguarded, its path): names inside it for one call each, then release. */
export interface AnchoredDir {
  /** The path to give a call for `name` in this folder. */
  at(name: string): string;
  /** Whether the folder is inside a guarded tree (and names in it must not be followed if they are links). */
  guarded: boolean;
  release(): void;
}

/** Enters `dir` for the calls that follow; inside a guarded tree a link on the way throws ELOOP (ENOENT if missing). */
export function anchorDir(dir: string): AnchoredDir {
  const abs = path.resolve(dir);
  const tree = HAS_PROC ? treeOf(abs) : undefined;
  if (tree === undefined) return { at: (name) => path.join(abs, name), guarded: false, release: () => undefined };
  let fd = fs.openSync(tree, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    for (const c of path.relative(tree, abs).split(path.sep).filter(Boolean)) {
      const next = openDirAt(fd, c, abs);
      fs.closeSync(fd);
      fd = next;
    }
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  const held = fd;
  return { at: (name) => `/proc/self/fd/${held}/${name}`, guarded: true, release: () => fs.closeSync(held) };
}

/** Runs `use` with the path to give one call for `file` (its folder entered as anchorDir does). */
export function withAnchored<T>(file: string, use: (p: string, guarded: boolean) => T): T {
  const d = anchorDir(path.dirname(path.resolve(file)));
  try {
    return use(d.at(path.basename(file)), d.guarded);
  } finally {
    d.release();
  }
}

/** The same, for a call that returns a promise: the folder stays open until it settles. */
export async function withAnchoredAsync<T>(file: string, use: (p: string, guarded: boolean) => Promise<T>): Promise<T> {
  const d = anchorDir(path.dirname(path.resolve(file)));
  try {
    return await use(d.at(path.basename(file)), d.guarded);
  } finally {
    d.release();
  }
}

function treeOf(abs: string): string | undefined {
  let best: string | undefined;
  for (const t of trees) {
    const rel = path.relative(t, abs);
    if ((rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) && (best === undefined || t.length > best.length)) best = t;
  }
  return best;
}

function openDirAt(fd: number, name: string, whole: string): number {
  try {
    return fs.openSync(`/proc/self/fd/${fd}/${name}`, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    // O_DIRECTORY|O_NOFOLLOW on a link gives ELOOP or ENOTDIR; a file on the way is ENOTDIR as it would be anyway.
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' && !isLinkAt(fd, name)) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ELOOP' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw Object.assign(new Error(`${name} on the way to ${whole} is a link; refusing to go through it`), { code: 'ELOOP' });
    throw err;
  }
}

function isLinkAt(fd: number, name: string): boolean {
  return isSymlink(`/proc/self/fd/${fd}/${name}`);
}

/**
 * A folder's entries (names as bytes), read from a descriptor opened without following a link, and the
 * folders below opened from it: a walk with it stays in the tree it started in, whatever is swapped meanwhile.
 * `visit` gets each entry with a function that walks into it (a folder only; a link is never entered).
 */
export function walkDir(dir: string, visit: Visit): void {
  let fd: number;
  try {
    fd = HAS_PROC ? fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW) : -1;
  } catch {
    return;
  }
  walkFrom(fd, dir, visit);
}

/** One entry of a walk: its Dirent, its whole path as bytes, and how to walk into it; false stops the folder. */
export type Visit = (e: fs.Dirent<Buffer>, at: Buffer, enter: () => void) => boolean | void;

function walkFrom(fd: number, dir: string | Buffer, visit: Visit): void {
  const here = fd >= 0 ? `/proc/self/fd/${fd}` : dir;
  let entries: fs.Dirent<Buffer>[];
  try {
    entries = fs.readdirSync(here, { withFileTypes: true, encoding: 'buffer' });
  } catch {
    if (fd >= 0) fs.closeSync(fd);
    return;
  }
  try {
    for (const e of entries) {
      const child = Buffer.concat([Buffer.from(typeof dir === 'string' ? `${dir}${path.sep}` : Buffer.concat([dir, Buffer.from(path.sep)])), e.name]);
      const enter = () => {
        if (!e.isDirectory()) return;
        let cfd = -1;
        if (fd >= 0) {
          try {
            cfd = fs.openSync(Buffer.concat([Buffer.from(`${here}/`), e.name]), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
          } catch {
            return; // swapped for a link, or gone
          }
        }
        walkFrom(cfd, child, visit);
      };
      if (visit(e, child, enter) === false) return;
    }
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** Makes `dir` and the folders above it that are missing (as mkdir -p), each from the one before it inside a guarded tree. */
export function mkdirAnchored(dir: string, mode = 0o755): void {
  const abs = path.resolve(dir);
  const tree = HAS_PROC ? treeOf(abs) : undefined;
  if (tree === undefined) return void fs.mkdirSync(abs, { recursive: true, mode });
  let fd = fs.openSync(tree, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    for (const c of path.relative(tree, abs).split(path.sep).filter(Boolean)) {
      try {
        fs.mkdirSync(`/proc/self/fd/${fd}/${c}`, { mode });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const next = openDirAt(fd, c, abs);
      fs.closeSync(fd);
      fd = next;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Sets the mode of `file` itself, never of what a link there points to (chmod follows a link; this refuses one). */
export function chmodNoFollow(file: string, mode: number): void {
  withAnchored(file, (p) => {
    const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      fs.fchmodSync(fd, mode);
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** Runs `use` with a path naming folder `dir` as opened without a link on the way or at the end (a /proc path on Linux). */
export function withDirOpen<T>(dir: string, use: (here: string) => T): T {
  return withAnchored(dir, (p) => {
    let fd: number;
    try {
      fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code === 'ENOTDIR' || code === 'ELOOP') && isSymlink(p))
        throw Object.assign(new Error(`${dir} is a link; refusing to go through it`), { code: 'ELOOP' });
      throw err;
    }
    try {
      return use(HAS_PROC ? `/proc/self/fd/${fd}` : p);
    } finally {
      fs.closeSync(fd);
    }
  });
}

/** A folder's names, read as withDirOpen opens it. */
export function readDirNoFollow(dir: string): string[] {
  return withDirOpen(dir, (here) => fs.readdirSync(here));
}

type Callback<T> = (err: NodeJS.ErrnoException | null, value: T) => void;

/** Runs `f` now and hands its result (or error) to `cb`: an asynchronous call made of synchronous guarded ones. */
function settle<T>(f: () => T, cb: Callback<T>): void {
  let v: T;
  try {
    v = f();
  } catch (err) {
    return cb(err as NodeJS.ErrnoException, undefined as T);
  }
  cb(null, v);
}

/** The file system calls fast-glob makes, each going folder by folder without links inside a guarded tree. */
export const guardedGlobFs = {
  lstat: (p: string, cb: Callback<fs.Stats>) => settle(() => lstatGuarded(p), cb),
  stat: (p: string, cb: Callback<fs.Stats>) => settle(() => withAnchored(p, (q) => fs.statSync(q)), cb),
  lstatSync: (p: string) => lstatGuarded(p),
  statSync: (p: string) => withAnchored(p, (q) => fs.statSync(q)),
  // readdir(path, cb) for names, readdir(path, { withFileTypes: true }, cb) for entries.
  readdir: (p: string, o: unknown, cb?: unknown) => {
    const [opts, done] = typeof o === 'function' ? [undefined, o] : [o, cb];
    settle(() => withDirOpen(p, (here) => fs.readdirSync(here, opts as fs.ObjectEncodingOptions)), done as Callback<unknown>);
  },
  readdirSync: (p: string, o?: unknown) => withDirOpen(p, (here) => fs.readdirSync(here, o as fs.ObjectEncodingOptions)),
};

function lstatGuarded(p: string): fs.Stats {
  return withAnchored(p, (q) => fs.lstatSync(q));
}

/**
 * Opens `file` for devx's own read: inside a guarded tree without following a link on the way; a link
 * there (the project's own, CLAUDE.md -> AGENTS.md, or a shared folder) is followed only to where it
 * really leads inside the same tree, which is then opened the same way. A link out of the tree is refused.
 */
export function openForReadSync(file: string, flags: number): number {
  try {
    return withAnchored(file, (p, guarded) => fs.openSync(p, flags | (guarded ? fs.constants.O_NOFOLLOW : 0)));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOOP') throw err;
    const tree = treeOf(path.resolve(file));
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch {
      throw err;
    }
    if (tree === undefined || treeOf(real) !== tree || real === path.resolve(file)) throw err;
    return withAnchored(real, (p) => fs.openSync(p, flags | fs.constants.O_NOFOLLOW));
  }
}
