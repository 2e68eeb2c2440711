import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export { devxHome } from '../util/devxHome.js';

/** The project root: the nearest ancestor holding .git (or .devx), else the directory itself. Realpath'd. */
export function findProjectRoot(cwd: string): string {
  const start = realpathSync.native(cwd);
  for (let dir = start; ;) {
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, '.devx'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}
