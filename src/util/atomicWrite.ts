// Atomic file replacement: write a temp file beside the target, (fsync,) rename. Readers never see a
// half-written file, and a crash or a full disk leaves the old content and no temp file. Written here
// rather than with write-file-atomic: its sync path writes with one writeSync and ignores a short count,
// so on a nearly full disk it renamed a truncated file over a good one (found by test/integration/diskFull).
// devx's own files are never written through a symbolic link (ownedFile.ts).
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { assertOwnedPath, diskError } from './ownedFile.js';
import { anchorDir, type AnchoredDir } from './guardedPath.js';

function replaceWhole(file: string, data: string | Uint8Array, fsync: boolean): void {
  assertOwnedPath(file);
  // The temp file and the rename in one folder entered without links (util/guardedPath.ts): a folder swapped
  // for a link after the check above does not take the write elsewhere.
  const dir = anchorDir(path.dirname(path.resolve(file)));
  try {
    replaceIn(dir, path.basename(file), file, data, fsync);
  } finally {
    dir.release();
  }
}

function replaceIn(dir: AnchoredDir, name: string, file: string, data: string | Uint8Array, fsync: boolean): void {
  const old = fs.lstatSync(dir.at(name), { throwIfNoEntry: false });
  const tmp = dir.at(`${name}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  let fd: number | null = null;
  try {
    // O_EXCL|O_NOFOLLOW: a planted temp name or link is never written through.
    fd = fs.openSync(
      tmp,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
      old?.isFile() ? old.mode & 0o7777 : 0o666,
    );
    if (old?.isFile()) {
      // The file keeps its mode (a script stays executable) and, when root rewrites it, its owner.
      fs.fchmodSync(fd, old.mode & 0o7777);
      if (process.getuid?.() === 0 && (old.uid !== 0 || old.gid !== 0)) fs.fchownSync(fd, old.uid, old.gid);
    }
    fs.writeFileSync(fd, data, 'utf8'); // loops until every byte is written, or throws
    if (fsync) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = null;
    fs.renameSync(tmp, dir.at(name));
  } catch (err) {
    if (fd !== null) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw diskError(err, file);
  }
}

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  replaceWhole(file, data, true);
}

export function writeFileAtomicSync(file: string, data: string): void {
  replaceWhole(file, data, true);
}

/**
 * For state rewritten after every message (history, session record, transcript): still atomic (a
 * killed process leaves the old or the new file, never a torn one), without waiting for the disk.
 */
export function writeStateSync(file: string, data: string): void {
  replaceWhole(file, data, false);
}
