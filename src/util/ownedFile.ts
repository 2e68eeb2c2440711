// Files devx writes itself (HANDOFF.md, MEMORY.md, .devx/*, ~/.devx/*): never through a symbolic link.
// A cloned repository can commit `HANDOFF.md -> ../../.bashrc` or make `.devx` a link out of the project;
// devx's own writes must land where devx expects them, not where a link points. Every writer goes
// through assertOwnedPath (util/atomicWrite.ts and appendOwnedSync here), so there is one rule.
import fs from 'node:fs';
import path from 'node:path';
import { withAnchored } from './guardedPath.js';

/** devx refused one of its own writes: a link or a non-folder on the way. Named so the user can act. */
export class OwnedPathError extends Error {
  constructor(
    message: string,
    readonly link: string,
  ) {
    super(message);
  }
}

/** A write devx could not make for lack of room or a read-only disk: one line naming the path and the condition. */
export class DiskError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
  ) {
    super(`${DISK_CONDITIONS[code] ?? code} writing ${file}`);
  }

  /** What the person can do about it. */
  get remedy(): string {
    return this.code === 'EROFS'
      ? 'that folder is on a read-only file system: run devx where it can write (or set DEVX_HOME for its own files)'
      : 'free some space on that disk and run again';
  }
}

const DISK_CONDITIONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
};

const DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/** Turns ENOSPC/EDQUOT/EROFS into a DiskError that names the file; other errors pass through. */
export function diskError(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code && DISK_CODES.has(code) ? new DiskError(file, code) : err;
}

/**
 * Throws OwnedPathError when `file` or any folder above it is a symbolic link, or a folder on the way
 * is not a folder. Components that do not exist yet are fine (they will be made as folders). The walk
 * stops at the first existing folder whose real path is itself: nothing above it is a link.
 */
export function assertOwnedPath(file: string): void {
  const abs = path.resolve(file);
  let cur = abs;
  for (;;) {
    let st: fs.Stats | null = null;
    try {
      st = fs.lstatSync(cur);
    } catch {
      // not there yet
    }
    if (st?.isSymbolicLink()) {
      let target = '?';
      try {
        target = fs.readlinkSync(cur);
      } catch {
        // unreadable link
      }
      throw new OwnedPathError(`refusing to write ${abs}: ${cur} is a symbolic link (to ${target}); remove the link or move it aside`, cur);
    }
    if (st && cur !== abs && !st.isDirectory()) throw new OwnedPathError(`refusing to write ${abs}: ${cur} is not a folder`, cur);
    if (st?.isDirectory()) {
      let real: string;
      try {
        real = fs.realpathSync(cur);
      } catch {
        real = '';
      }
      if (real === cur) return;
    }
    const up = path.dirname(cur);
    if (up === cur) return;
    cur = up;
  }
}

/** Makes a folder devx owns (and those above it), refusing to go through a link. */
export function mkdirOwnedSync(dir: string, mode = 0o755): void {
  assertOwnedPath(path.join(dir, '.probe'));
  try {
    fs.mkdirSync(dir, { recursive: true, mode });
  } catch (err) {
    throw diskError(err, dir);
  }
}

/**
 * Appends `data` whole or not at all: the file is opened without following a link, and a write that
 * fails part-way (a full disk) is cut back to where it started, so no half line is left.
 */
export function appendOwnedSync(file: string, data: string | Buffer): void {
  assertOwnedPath(file);
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const fd = openOwned(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT);
  const start = fs.fstatSync(fd).size;
  try {
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
  } catch (err) {
    try {
      fs.ftruncateSync(fd, start);
    } catch {
      // the cut failed too: the reader skips a torn last line
    }
    throw diskError(err, file);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes a new file devx owns: created exclusively (an existing file or a planted link of that name
 * fails), never through a link, removed again when the write fails part-way.
 */
export function writeNewOwnedSync(file: string, data: string | Buffer): void {
  assertOwnedPath(file);
  let fd: number;
  try {
    fd = withAnchored(file, (p) => fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600));
  } catch (err) {
    throw diskError(err, file);
  }
  try {
    fs.writeFileSync(fd, data);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw diskError(err, file);
  }
  fs.closeSync(fd);
}

/** Opens a file devx owns for writing from the start (a log), never through a link. Returns the descriptor. */
export function openOwnedForWriteSync(file: string): number {
  const fd = openOwned(file, fs.constants.O_WRONLY | fs.constants.O_CREAT);
  fs.ftruncateSync(fd, 0); // only now: truncating at open would empty the other name of a hard link before the check
  return fd;
}

/**
 * Opens a file devx owns for writing (after assertOwnedPath): not through a final link, not blocking on a
 * FIFO, and only a regular file with one link (a hard link is another file, ~/.bashrc under a project name).
 */
function openOwned(file: string, flags: number): number {
  assertOwnedPath(file);
  let fd: number;
  try {
    fd = withAnchored(file, (p) => fs.openSync(p, flags | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o600));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new OwnedPathError(`refusing to write ${file}: it is a symbolic link`, file);
    if (code === 'ENXIO' || code === 'EISDIR') throw new OwnedPathError(`refusing to write ${file}: it is not a regular file; remove it`, file);
    throw diskError(err, file);
  }
  const st = fs.fstatSync(fd);
  const why = !st.isFile()
    ? 'it is not a regular file'
    : st.nlink > 1
      ? `it has ${st.nlink} hard links (another name of the same file may be outside the project)`
      : null;
  if (why) {
    fs.closeSync(fd);
    throw new OwnedPathError(`refusing to write ${file}: ${why}; remove it`, file);
  }
  return fd;
}
