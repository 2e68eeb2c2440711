import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';

/** devx's own home: $DEVX_HOME, else ~/.devx. */
export function devxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEVX_HOME ? resolvePath(env.DEVX_HOME) : join(env.HOME ?? homedir(), '.devx');
}

/** The project root: the nearest ancestor holding .git (or .devx), else the directory itself. Realpath'd. */
export function findProjectRoot(cwd: string): string {
  const start = realpathSync.native(cwd);
  for (let dir = start; ; ) {
    if (existsSync(join(dir, '.git')) || existsSync(join(dir, '.devx'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}
