// Atomic file replacement: write a temp file beside the target, fsync, rename. Readers never see
// a half-written file, and a crash or a full disk leaves the old content (write-file-atomic removes its
// temp file when a step fails). devx's own files are never written through a symbolic link (ownedFile.ts).
import writeFileAtomicLib from 'write-file-atomic';
import { assertOwnedPath, diskError } from './ownedFile.js';

export async function writeFileAtomic(file: string, data: string): Promise<void> {
  assertOwnedPath(file);
  await writeFileAtomicLib(file, data, { encoding: 'utf8', fsync: true }).catch((err: unknown) => {
    throw diskError(err, file);
  });
}

export function writeFileAtomicSync(file: string, data: string): void {
  assertOwnedPath(file);
  try {
    writeFileAtomicLib.sync(file, data, { encoding: 'utf8', fsync: true });
  } catch (err) {
    throw diskError(err, file);
  }
}

/**
 * For state rewritten after every message (history, session record, transcript): still atomic (a
 * killed process leaves the old or the new file, never a torn one), without waiting for the disk.
 */
export function writeStateSync(file: string, data: string): void {
  assertOwnedPath(file);
  try {
    writeFileAtomicLib.sync(file, data, { encoding: 'utf8', fsync: false });
  } catch (err) {
    throw diskError(err, file);
  }
}
