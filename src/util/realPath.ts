// Two questions about a path that many checks ask, answered without throwing.
import fs from 'node:fs';
import path from 'node:path';

/** The path with every link resolved; resolved as given when it does not exist (nothing is there to follow). */
export function realOrAsGiven(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Whether `p` itself is a symbolic link (false when nothing is there). */
export function isSymlink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The first path from `root` down to `root/rel` (`/`-separated) that is a link or something other than a
 * folder on the way (`rel` itself may be anything but a link), or null. Missing parts end the walk: nothing
 * there to follow. devx's state folders in a project are devx's own: one a checkout made a link (to the
 * home) is never listed, read through or cleaned.
 */
export function linkOnTheWay(root: string, rel: string): string | null {
  let cur = root;
  const parts = rel.split('/').filter((x) => x && x !== '.');
  for (const [i, part] of parts.entries()) {
    cur = path.join(cur, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(cur);
    } catch {
      return null;
    }
    if (st.isSymbolicLink() || (i < parts.length - 1 && !st.isDirectory())) return cur;
  }
  return null;
}
