// Who wrote a project's devx state: a random id kept in ~/.devx/owner-id. State that carries another id
// (or none, and came with the repository through git) is someone else's and is never resumed as the
// user's own: a cloned repository's committed .devx/history.json would be fed to the model as if the
// user had had that conversation.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { devxHome } from '../config/paths.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';

const cache = new Map<string, string>();

/** This user's id (made on first use); null when ~/.devx cannot hold it (then nothing is judged by it). */
export function ownerId(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = path.join(devxHome(env), 'owner-id');
  const hit = cache.get(file);
  if (hit) return hit;
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{32}$/.test(id)) {
      cache.set(file, id);
      return id;
    }
  } catch {
    // not made yet
  }
  try {
    const id = crypto.randomBytes(16).toString('hex');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomicSync(file, `${id}\n`);
    cache.set(file, id);
    return id;
  } catch {
    return null;
  }
}

/** True when git tracks `file`: it arrived with the repository rather than being written here. */
export function trackedByGit(file: string): boolean {
  const r = spawnSync('git', ['-C', path.dirname(file), 'ls-files', '--error-unmatch', '--', path.basename(file)], { stdio: 'ignore', timeout: 5000 });
  return r.status === 0;
}
