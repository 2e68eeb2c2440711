// gemini (0.61) registers the folder it runs in, under a lock: `projects.json.lock` in its home, a folder
// made with mkdir and removed when done (proper-lockfile; another gemini waits for it, up to 10 s, until it
// is stale). A per-call gemini that answers at once can exit while a late registry lookup holds it, and the
// next gemini in the same home then waits for the lock to go stale before it starts (seen in `devx run`s in
// spawn mode against an instant API; a real API's latency mostly hides the race). devx's sealed home is devx's own,
// and its gemini processes hold this lock for milliseconds, so devx removes one that was left there.
import fs from 'node:fs';
import path from 'node:path';

/** A lock at least this old (by its mtime, which proper-lockfile sets up to 1 s ahead) was left behind. */
export const LEFT_LOCK_MS = 1_000;

export function registryLockOf(sealedHome: string): string {
  return path.join(sealedHome, '.gemini', 'projects.json.lock');
}

/**
 * Removes the registry lock of a sealed gemini home if it was left: made since `since` (a call's start, once
 * that call's gemini has exited), or older than LEFT_LOCK_MS. Never throws; true when it removed one.
 */
export function dropLeftRegistryLock(sealedHome: string, left: { since?: number }, now = Date.now()): boolean {
  const lock = registryLockOf(sealedHome);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(lock);
  } catch {
    return false;
  }
  if (!st.isDirectory()) return false;
  const byThisCall = left.since !== undefined && st.mtimeMs >= left.since - 1;
  if (!byThisCall && now - st.mtimeMs < LEFT_LOCK_MS) return false;
  try {
    fs.rmdirSync(lock);
    return true;
  } catch {
    return false;
  }
}
