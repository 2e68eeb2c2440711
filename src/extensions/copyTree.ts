// Installing copies a bundle's folder; it never links to it. Before anything is copied the whole tree is
// checked: a link must lead to somewhere inside the bundle (it is copied as a link within the copy), a named
// pipe, socket or device is refused, and so is a tree past the limits (files, bytes, depth). The top `.git`
// of a cloned or local repository is left out. Files are copied through descriptors opened without following
// a link, so a file swapped for a link after the check is refused too.
import fs from 'node:fs';
import path from 'node:path';
import { fileKind } from '../util/readRegularFileSync.js';

export interface TreeLimits {
  maxFiles: number;
  maxBytes: number;
  maxDepth: number;
}

export const TREE_LIMITS: TreeLimits = { maxFiles: 20_000, maxBytes: 200 * 1024 * 1024, maxDepth: 32 };

/** A bundle devx will not install: the path and why, in one line. */
export class BundleRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleRefused';
  }
}

export interface TreeEntry {
  /** Its path inside the bundle. */
  rel: string;
  kind: 'dir' | 'file' | 'link';
  /** A link's target, relative to the link's own folder (inside the bundle). */
  target?: string;
  mode: number;
}

const within = (p: string, base: string) => p === base || p.startsWith(`${base}${path.sep}`);

/** Where a link leads: its real path, or (a link to nothing) the path it names. */
function linkTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(path.dirname(file), fs.readlinkSync(file));
  }
}

/** Every entry of the bundle at `root` (a real path), checked; a BundleRefused names the first that may not be installed. */
export function scanTree(root: string, limits: TreeLimits = TREE_LIMITS): TreeEntry[] {
  const out: TreeEntry[] = [];
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > limits.maxDepth) throw new BundleRefused(`${dir} is nested more than ${limits.maxDepth} folders deep`);
    for (const name of fs.readdirSync(dir).sort()) {
      if (dir === root && name === '.git') continue;
      const abs = path.join(dir, name);
      const rel = path.relative(root, abs);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) {
        const to = linkTarget(abs);
        if (!within(to, root))
          throw new BundleRefused(`${abs} is a link to ${fs.readlinkSync(abs)}, outside the bundle; a bundle may link only to its own files`);
        out.push({ rel, kind: 'link', target: path.relative(path.dirname(abs), to) || '.', mode: st.mode });
      } else if (st.isDirectory()) {
        out.push({ rel, kind: 'dir', mode: st.mode });
        walk(abs, depth + 1);
      } else if (st.isFile()) {
        files++;
        bytes += st.size;
        if (files > limits.maxFiles) throw new BundleRefused(`the bundle has more than ${limits.maxFiles} files; devx installs at most that many`);
        if (bytes > limits.maxBytes)
          throw new BundleRefused(`the bundle is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MB; devx installs at most that much`);
        out.push({ rel, kind: 'file', mode: st.mode });
      } else {
        throw new BundleRefused(`${abs} is ${fileKind(st)}; a bundle may hold only files, folders and links inside it`);
      }
    }
  };
  walk(root, 0);
  return out;
}

/** Copies one regular file, opened without following a link; refuses anything else at its name now. */
function copyFile(from: string, to: string, mode: number, budget: { bytes: number }): void {
  let src: number;
  try {
    src = fs.openSync(from, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    throw new BundleRefused(`${from} changed while it was copied (${(err as NodeJS.ErrnoException).code}); nothing was installed`);
  }
  try {
    if (!fs.fstatSync(src).isFile()) throw new BundleRefused(`${from} changed while it was copied; nothing was installed`);
    const dst = fs.openSync(to, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, (mode & 0o755) | 0o600);
    try {
      const buf = Buffer.alloc(1024 * 1024);
      for (let n = fs.readSync(src, buf); n > 0; n = fs.readSync(src, buf)) {
        budget.bytes -= n;
        if (budget.bytes < 0) throw new BundleRefused(`${from} grew while it was copied; nothing was installed`);
        for (let off = 0; off < n;) off += fs.writeSync(dst, buf, off, n - off);
      }
    } finally {
      fs.closeSync(dst);
    }
  } finally {
    fs.closeSync(src);
  }
}

/** Copies the checked entries from `root` into the new folder `dest` (which must not exist). */
export function copyTree(root: string, entries: TreeEntry[], dest: string, limits: TreeLimits = TREE_LIMITS): void {
  fs.mkdirSync(dest, { mode: 0o755 });
  const budget = { bytes: limits.maxBytes };
  for (const e of entries) {
    const to = path.join(dest, e.rel);
    if (e.kind === 'dir') fs.mkdirSync(to, { mode: (e.mode & 0o755) | 0o700 });
    else if (e.kind === 'link') fs.symlinkSync(e.target!, to);
    else copyFile(path.join(root, e.rel), to, e.mode, budget);
  }
}
