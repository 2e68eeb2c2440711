import { closeSync, constants, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { assertOwnedPath, diskError } from './ownedFile.js';

/**
 * Replaces `file` whole (a temp file beside it, then a rename), readable by its owner only. For the
 * code that runs before the rest of devx loads (launch plans, the code cache), which imports only node
 * built-ins; everything else uses util/atomicWrite.ts.
 */
export function replaceFileSync(file: string, data: string | Uint8Array): void {
  // Its folders (~/.devx/cache, a run folder) must be folders of their own, not links a repository or
  // another program planted; the rename replaces a link at the file itself rather than following it.
  assertOwnedPath(dirname(file) + '/.probe');
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true }); // a leftover of a killed run with this pid (or a planted link: removed, not followed)
  try {
    // O_EXCL|O_NOFOLLOW: a planted temp name (or a link there) is not written through.
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeFileSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw diskError(err, file);
  }
}
