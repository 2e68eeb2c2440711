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
