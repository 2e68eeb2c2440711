import fs from 'node:fs';
import path from 'node:path';
import { splitPath } from './absolutePath.js';

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Resolves a program like the shell would: a path as given, a bare name through PATH's absolute entries (a
 * relative one would name a program of the folder devx runs in, a repository's: util/absolutePath.ts).
 */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | null {
  if (name.includes('/')) return isExecutableFile(path.resolve(name)) ? path.resolve(name) : null;
  for (const dir of splitPath(env.PATH).kept) {
    if (isExecutableFile(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}
