import fs from 'node:fs';
import path from 'node:path';

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Resolves a program like the shell would: a path as given, a bare name through PATH. */
export function findExecutable(name: string, env: NodeJS.ProcessEnv): string | null {
  if (name.includes('/')) return isExecutableFile(path.resolve(name)) ? path.resolve(name) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutableFile(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}
