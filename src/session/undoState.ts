// What a path holds, as undo keeps it (session/undoStore.ts): absent, a file (its content by hash, kept in a
// content-addressed blob store, and its mode), a symbolic link (its target) or a folder (each entry). Taken
// without following links; put back without following them either (a temp file beside, then a rename).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { assertOwnedPath, diskError, mkdirOwnedSync } from '../util/ownedFile.js';
import { anchorDir, chmodNoFollow, mkdirAnchored, readDirNoFollow, withAnchored, type AnchoredDir } from '../util/guardedPath.js';
import { fileKind } from '../util/readRegularFileSync.js';

export type PathState =
  | { t: 'absent' }
  | { t: 'file'; hash: string; mode: number; size: number }
  | { t: 'link'; target: string }
  | { t: 'dir'; mode: number; entries: Record<string, PathState> }
  /** A FIFO, socket or device: seen, never kept or put back. */
  | { t: 'other'; kind: string };

/** Folders a snapshot of a folder leaves out: git's and devx's own state (they change on their own). */
export const SKIPPED = new Set(['.git', '.devx']);

/** A path devx will not copy into its undo store: too big, protected, or not a file it can put back. */
export class NotKept extends Error {}

export interface Budget {
  files: number;
  bytes: number;
  /** True when devx may not read this file (the policy denies it): it is never copied. */
  denied?: (abs: string) => boolean;
}

export const LIMITS = { files: 5000, bytes: 50 * 1024 * 1024 };

export function sha256(buf: Buffer): string {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

/** The blobs of one project's undo store: `<dir>/ab/abcdef…`, gzip'd, named by the sha-256 of their content. */
export class BlobStore {
  constructor(readonly dir: string) {}

  file(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /** Keeps `buf` durably (fsync) unless a blob of that content is there already. */
  put(hash: string, buf: Buffer): void {
    const file = this.file(hash);
    // One under that name that does not hold that content (shipped with the project, or damaged) is replaced.
    if (fs.existsSync(file) && this.holds(hash)) return;
    mkdirOwnedSync(path.dirname(file), 0o700);
    writeDurable(file, zlib.gzipSync(buf, { level: 6 }), 0o600);
  }

  private holds(hash: string): boolean {
    try {
      this.get(hash);
      return true;
    } catch {
      return false;
    }
  }

  get(hash: string): Buffer {
    const file = this.file(hash);
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    let buf: Buffer;
    try {
      buf = zlib.gunzipSync(fs.readFileSync(fd));
    } finally {
      fs.closeSync(fd);
    }
    if (sha256(buf) !== hash) throw new Error(`the kept copy ${file} is damaged (its content does not match its name)`);
    return buf;
  }
}

/** Writes `data` to a temp file beside `file` (never through a link), sets its mode, fsyncs, renames it over `file`. */
export function writeDurable(file: string, data: Buffer, mode: number): void {
  assertOwnedPath(file);
  // The temp file and the rename in one folder entered without links (util/guardedPath.ts).
  const dir = anchorDir(path.dirname(path.resolve(file)));
  try {
    writeDurableIn(dir, path.basename(file), file, data, mode);
  } finally {
    dir.release();
  }
}

function writeDurableIn(dir: AnchoredDir, name: string, file: string, data: Buffer, mode: number): void {
  const tmp = dir.at(`${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw diskError(err, file);
  }
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, dir.at(name));
  } catch (err) {
    try {
      fs.closeSync(fd);
    } catch {
      // closed already
    }
    fs.rmSync(tmp, { force: true });
    throw diskError(err, file);
  }
}

function readNoFollow(abs: string): Buffer {
  const fd = withAnchored(abs, (p) => fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotKept(`${abs} is ${fileKind(st)}`);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's SHA-256 and size, read a chunk at a time: comparing a file of several GB holds none of it whole. */
function hashNoFollow(abs: string): { hash: string; size: number } {
  const fd = withAnchored(abs, (p) => fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotKept(`${abs} is ${fileKind(st)}`);
    const h = crypto.createHash('sha256');
    const chunk = Buffer.alloc(1024 * 1024);
    let size = 0;
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; size += n) h.update(chunk.subarray(0, n));
    return { hash: h.digest('hex'), size };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * What `abs` holds now. With `blobs`, file contents are kept (and anything that could not be put back, or
 * that is over the budget or denied, throws NotKept); without, it is only hashed, to compare.
 */
export function capture(abs: string, blobs: BlobStore | null, budget: Budget, shown = abs): PathState {
  let st: fs.Stats;
  try {
    // Each folder on the way entered without following a link (util/guardedPath.ts): a folder a running build
    // swapped for a link into the home is refused here, never copied from.
    st = withAnchored(abs, (p) => fs.lstatSync(p));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { t: 'absent' };
    if (code === 'ELOOP') throw new NotKept(`${shown}: ${(err as Error).message}`);
    throw err;
  }
  if (st.isSymbolicLink()) return { t: 'link', target: withAnchored(abs, (p) => fs.readlinkSync(p)) };
  if (st.isFile()) {
    if (blobs && budget.denied?.(abs)) throw new NotKept(`${shown} is protected; devx does not copy it`);
    budget.files -= 1;
    budget.bytes -= st.size;
    if (budget.files < 0 || budget.bytes < 0)
      throw new NotKept(`${shown} is too large to keep (over ${LIMITS.files} files or ${LIMITS.bytes / 1024 / 1024} MB)`);
    if (!blobs) return { t: 'file', ...hashNoFollow(abs), mode: st.mode & 0o7777 };
    const buf = readNoFollow(abs);
    const hash = sha256(buf);
    blobs.put(hash, buf);
    return { t: 'file', hash, mode: st.mode & 0o7777, size: buf.length };
  }
  if (st.isDirectory()) {
    const entries: Record<string, PathState> = {};
    for (const name of readDirNoFollow(abs).sort()) {
      if (SKIPPED.has(name)) continue;
      entries[name] = capture(path.join(abs, name), blobs, budget, path.join(shown, name));
    }
    return { t: 'dir', mode: st.mode & 0o7777, entries };
  }
  if (blobs) throw new NotKept(`${shown} is ${fileKind(st)}; devx cannot put one back`);
  return { t: 'other', kind: fileKind(st) };
}

export function sameState(a: PathState | null, b: PathState | null): boolean {
  if (!a || !b || a.t !== b.t) return false;
  switch (a.t) {
    case 'absent':
      return true;
    case 'file':
      return b.t === 'file' && a.hash === b.hash && a.mode === b.mode;
    case 'link':
      return b.t === 'link' && a.target === b.target;
    case 'other':
      return b.t === 'other' && a.kind === b.kind;
    case 'dir': {
      if (b.t !== 'dir' || a.mode !== b.mode) return false;
      const ka = Object.keys(a.entries);
      const kb = Object.keys(b.entries);
      return ka.length === kb.length && ka.every((k) => k in b.entries && sameState(a.entries[k], b.entries[k]));
    }
  }
}

/** The part of `s` at `rel` (names below it). */
export function subState(s: PathState, rel: string[]): PathState {
  let cur = s;
  for (const name of rel) {
    if (cur.t !== 'dir') return { t: 'absent' };
    cur = cur.entries[name] ?? { t: 'absent' };
  }
  return cur;
}

/** `s` with the part at `rel` replaced by `sub` (folders on the way made when they are missing). */
export function overlay(s: PathState, rel: string[], sub: PathState): PathState {
  if (rel.length === 0) return sub;
  if (s.t !== 'dir' && sub.t === 'absent') return s;
  const base: Extract<PathState, { t: 'dir' }> = s.t === 'dir' ? s : { t: 'dir', mode: 0o755, entries: {} };
  const [head, ...rest] = rel;
  const child = overlay(base.entries[head] ?? { t: 'absent' }, rest, sub);
  const entries = { ...base.entries };
  if (child.t === 'absent') delete entries[head];
  else entries[head] = child;
  return { ...base, entries };
}

/** Hashes of every file in `s`. */
export function blobsOf(s: PathState, out = new Set<string>()): Set<string> {
  if (s.t === 'file') out.add(s.hash);
  else if (s.t === 'dir') for (const e of Object.values(s.entries)) blobsOf(e, out);
  return out;
}

/** Files in `s`, for what a turn touched. */
export function fileCount(s: PathState): number {
  return s.t === 'dir' ? Object.values(s.entries).reduce((n, e) => n + fileCount(e), 0) : s.t === 'absent' ? 0 : 1;
}

/** Puts `want` at `abs` (whose state is `now`), changing only what differs. Links on the way are refused. */
export function putBack(abs: string, want: PathState, now: PathState, blobs: BlobStore): void {
  if (sameState(want, now)) return;
  assertOwnedPath(abs);
  // Every call below goes folder by folder without following a link (util/guardedPath.ts).
  const remove = (p: string) => withAnchored(p, (q) => fs.rmSync(q, { recursive: true, force: true }));
  switch (want.t) {
    case 'absent':
      remove(abs);
      return;
    case 'file': {
      if (now.t === 'dir') remove(abs);
      assertOwnedPath(path.dirname(abs));
      mkdirAnchored(path.dirname(abs));
      if (now.t === 'file' && now.hash === want.hash) chmodNoFollow(abs, want.mode);
      // rename replaces a link or a file at `abs` itself, never what a link points to
      else writeDurable(abs, blobs.get(want.hash), want.mode);
      return;
    }
    case 'link':
      if (now.t !== 'absent') remove(abs);
      assertOwnedPath(path.dirname(abs));
      mkdirAnchored(path.dirname(abs));
      withAnchored(abs, (p) => fs.symlinkSync(want.target, p));
      return;
    case 'dir': {
      if (now.t !== 'dir' && now.t !== 'absent') remove(abs);
      if (now.t !== 'dir') mkdirAnchored(abs, 0o700);
      // writable while its entries are put back; its own mode last
      chmodNoFollow(abs, want.mode | 0o700);
      const have = now.t === 'dir' ? now.entries : {};
      for (const name of Object.keys(have)) if (!(name in want.entries)) remove(path.join(abs, name));
      for (const [name, s] of Object.entries(want.entries)) putBack(path.join(abs, name), s, have[name] ?? { t: 'absent' }, blobs);
      chmodNoFollow(abs, want.mode);
      return;
    }
    case 'other':
      throw new Error(`${abs}: devx cannot put back ${want.kind}`);
  }
}
