// Reads a file that the policy already resolved to its real path, refusing to follow a symlink
// that appeared at that path between the check and the open (O_NOFOLLOW), and refusing anything but a
// regular file: a FIFO would block the read (and a libuv thread) until some writer came, and a device
// such as a zero or disk node inside the project never ends. O_NONBLOCK makes the open of a FIFO return
// at once, so the check happens on the opened handle, not on a name that could be swapped.
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import { PathError } from './resolvePath.js';
import { fileKind } from '../util/readRegularFileSync.js';
import { withAnchoredAsync } from '../util/guardedPath.js';

/** Opens a regular file for reading without following a final symlink or blocking on a FIFO; null if it does not exist. */
async function openRegular(realPath: string, shown: string): Promise<fs.FileHandle | null> {
  let fh: fs.FileHandle;
  try {
    // Each folder on the way entered without following a link, too (util/guardedPath.ts).
    fh = await withAnchoredAsync(realPath, (p) => fs.open(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new PathError(`${realPath} became a symlink after it was checked; refusing to follow it`);
    if (code === 'ENOENT') return null;
    // ENXIO: a socket, or a FIFO opened for writing elsewhere; both are refused like any non-file.
    if (code === 'ENXIO') throw new PathError(`${shown} is not a regular file; only regular files are read`);
    throw err;
  }
  const st = await fh.stat();
  if (!st.isFile()) {
    await fh.close();
    throw new PathError(`${shown} is ${fileKind(st)}, not a regular file; only regular files are read`);
  }
  return fh;
}

export async function readFileNoFollow(realPath: string, shown = realPath): Promise<Buffer> {
  const fh = await openRegular(realPath, shown);
  if (!fh) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${realPath}'`), { code: 'ENOENT' });
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** The file's text, or null when it does not exist or is not a regular file (previews of a change). */
export async function readTextIfRegular(realPath: string): Promise<string | null> {
  try {
    const fh = await openRegular(realPath, realPath);
    if (!fh) return null;
    try {
      return await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}
