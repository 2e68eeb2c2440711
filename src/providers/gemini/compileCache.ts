// Node 22.1 and later keep V8's compiled code for the modules a process loads in the folder NODE_COMPILE_CACHE
// names, and use it at the next start; much of a gemini start is compiling its own bundle (`npm run bench`,
// "gemini start"). devx gives its gemini calls such a folder in devx's home, beside the sealed home. Node 20
// ignores the variable; Node checks each entry against the source it was made from, so an entry made for
// another gemini is not used, but neither is it removed: each gemini release adds its own, so devx empties the
// folder once it holds more than a few releases' worth. A NODE_COMPILE_CACHE of the person's own is left as it
// is, and Node's own NODE_DISABLE_COMPILE_CACHE turns it off. It does not follow DEVX_CODE_CACHE: a launch that
// differs from the recorded one is not adopted by the next run's head start (util/prestart.ts).
import fs from 'node:fs';
import path from 'node:path';
import { devxHome } from '../../util/devxHome.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';

/** The compile-cache variable for a gemini launched with `env` by a backend working in `workDir`; none when off. */
export function geminiCompileCacheEnv(env: Record<string, string | undefined>, workDir: string): Record<string, string> {
  const effective = { ...process.env, ...env };
  if (effective.NODE_COMPILE_CACHE || effective.NODE_DISABLE_COMPILE_CACHE) return {};
  const dir = path.join(ownerOf(effective, workDir), 'cache', 'gemini');
  if (!made.has(dir)) {
    try {
      mkdirOwnedSync(dir, 0o700);
      emptyWhenOver(dir, CACHE_LIMIT_BYTES);
    } catch {
      return {}; // a link where the folder would be, or a full disk: gemini starts without the cache
    }
    made.add(dir);
  }
  return { NODE_COMPILE_CACHE: dir };
}

const made = new Set<string>();

/** Room for the entries of several gemini releases. */
export const CACHE_LIMIT_BYTES = 64 * 1024 * 1024;

/** Removes everything in `dir` once its files add up to more than `limit` bytes; Node fills it again. */
export function emptyWhenOver(dir: string, limit: number): void {
  let total = 0;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) total += fs.lstatSync(path.join(e.parentPath ?? e.path, e.name)).size;
  }
  if (total <= limit) return;
  for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
}

/** devx's home when `workDir` is in it; a backend given a work folder elsewhere (tests, embedders) keeps it there. */
function ownerOf(env: Record<string, string | undefined>, workDir: string): string {
  const owner = devxHome(env);
  return path.resolve(workDir).startsWith(path.resolve(owner) + path.sep) ? owner : workDir;
}
