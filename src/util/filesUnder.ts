// The files of a folder tree that a loader reads (commands, skills): regular files only, in a stable order.
import fs from 'node:fs';
import path from 'node:path';

/** Regular files under `dir` ending in one of `exts`, sorted; none when the folder is missing. */
export function filesUnder(dir: string, exts: string[]): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return filesUnder(p, exts);
      return e.isFile() && exts.some((x) => e.name.endsWith(x)) ? [p] : [];
    })
    .sort();
}
