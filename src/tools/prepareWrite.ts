// What every tool that writes a file does first: resolve the path (the sandbox checks it), refuse a
// directory, and create the parent folders.
import fs from 'node:fs/promises';
import path from 'node:path';
import { constants as fsConstants, type Stats } from 'node:fs';
import { ToolError, type ToolContext } from './types.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { mkdirAnchored } from '../util/guardedPath.js';

export async function prepareWrite(ctx: Pick<ToolContext, 'root' | 'resolve'>, p: string): Promise<{ abs: string; shown: string; existed: Stats | null }> {
  const abs = ctx.resolve(p);
  const shown = displayPath(ctx.root, abs);
  const existed = await fs.lstat(abs).catch(() => null);
  if (existed?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path.`);
  if (existed) await refuseReadOnly(abs, shown, existed);
  // Each missing folder made from the one before it, never through a link swapped in meanwhile (util/guardedPath.ts).
  try {
    mkdirAnchored(path.dirname(abs));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new ToolError(`${shown}: ${(err as Error).message}`);
    throw err;
  }
  return { abs, shown, existed };
}

/** Why a file may not be written as it is: read-only for its owner (0444), or not writable by this user. */
export async function readOnlyReason(abs: string, st?: Stats | null): Promise<string | null> {
  const s = st ?? (await fs.stat(abs).catch(() => null));
  if (!s || !s.isFile()) return null;
  // Root may write anything; a file its owner made read-only is still read-only to the user's own shell habits.
  if ((s.mode & 0o222) === 0) return `read-only (mode ${(s.mode & 0o777).toString(8).padStart(4, '0')})`;
  const writable = await fs.access(abs, fsConstants.W_OK).then(
    () => true,
    () => false,
  );
  return writable ? null : 'not writable by you';
}

/** devx never changes a file's permissions to write it: a read-only file is refused with that reason. */
export async function refuseReadOnly(abs: string, shown: string, st?: Stats | null): Promise<void> {
  const why = await readOnlyReason(abs, st);
  if (why)
    throw new ToolError(
      `${shown} is ${why}; devx does not change permissions to write it. Ask the user whether it should change (they can make it writable with chmod u+w ${shown}).`,
    );
}
