// Atomic file replacement: write a temp file beside the target, fsync, rename. Readers never see
// a half-written file, and a crash leaves either the old or the new content.
import writeFileAtomicLib from 'write-file-atomic';

export async function writeFileAtomic(file: string, data: string): Promise<void> {
  await writeFileAtomicLib(file, data, { encoding: 'utf8', fsync: true });
}

export function writeFileAtomicSync(file: string, data: string): void {
  writeFileAtomicLib.sync(file, data, { encoding: 'utf8', fsync: true });
}

/**
 * For state rewritten after every message (history, session record, transcript): still atomic (a
 * killed process leaves the old or the new file, never a torn one), without waiting for the disk.
 */
export function writeStateSync(file: string, data: string): void {
  writeFileAtomicLib.sync(file, data, { encoding: 'utf8', fsync: false });
}
