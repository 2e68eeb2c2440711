import { renameSync, writeFileSync } from 'node:fs';

/**
 * Replaces `file` whole (a temp file beside it, then a rename), readable by its owner only. For the
 * code that runs before the rest of devx loads (launch plans, the code cache), which imports only node
 * built-ins; everything else uses util/atomicWrite.ts.
 */
export function replaceFileSync(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}
