import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** devx's own home: $DEVX_HOME, else ~/.devx. */
export function devxHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEVX_HOME ? path.resolve(env.DEVX_HOME) : path.join(env.HOME ?? os.homedir(), '.devx');
}

/** The project root: the nearest ancestor holding .git (or .devx), else the directory itself. Realpath'd. */
export function findProjectRoot(cwd: string): string {
  const start = fs.realpathSync.native(cwd);
  for (let dir = start; ; ) {
    if (fs.existsSync(path.join(dir, '.git')) || fs.existsSync(path.join(dir, '.devx'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
}
