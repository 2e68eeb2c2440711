// Reads a file that the policy already resolved to its real path, refusing to follow a symlink
// that appeared at that path between the check and the open (O_NOFOLLOW).
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import { PathError } from './resolvePath.js';

export async function readFileNoFollow(realPath: string): Promise<Buffer> {
  let fh;
  try {
    fh = await fs.open(realPath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new PathError(`${realPath} became a symlink after it was checked; refusing to follow it`);
    throw err;
  }
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
