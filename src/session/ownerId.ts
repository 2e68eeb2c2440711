// Who wrote a project's devx state: a random id kept in ~/.devx/owner-id. State that does not carry this
// user's id (another user's, one shipped with the project, tracked by git or not, or one an older devx wrote
// before ids) is set aside and never resumed, run or followed as the user's own: a repository's
// .devx/history.json would be fed to the model as if the user had had that conversation.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { runGitSync } from '../util/safeGit.js';
import { devxHome } from '../config/paths.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';

const cache = new Map<string, string>();

function readId(file: string): string | null {
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    return /^[0-9a-f]{32}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

/**
 * This user's id (made on first use); null when ~/.devx cannot hold it (then nothing is judged by it).
 * Several devx processes starting at once agree on one: the first to link its file in place wins and
 * the others read it (were each to write its own, state written under a losing id would be foreign).
 */
export function ownerId(env: NodeJS.ProcessEnv = process.env): string | null {
  const file = path.join(devxHome(env), 'owner-id');
  const hit = cache.get(file) ?? readId(file);
  if (hit) {
    cache.set(file, hit);
    return hit;
  }
  try {
    const id = crypto.randomBytes(16).toString('hex');
    mkdirOwnedSync(path.dirname(file), 0o700);
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    writeNewOwnedSync(tmp, `${id}\n`);
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Another process made it first (or a damaged one is there: replaced, as before).
      const theirs = readId(file);
      if (theirs) {
        cache.set(file, theirs);
        return theirs;
      }
      fs.renameSync(tmp, file);
      cache.set(file, id);
      return id;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    cache.set(file, id);
    return id;
  } catch {
    return null;
  }
}

/** True when git tracks `file`: it arrived with the repository rather than being written here. */
export function trackedByGit(file: string): boolean {
  const r = runGitSync(path.dirname(file), ['ls-files', '--error-unmatch', '--', path.basename(file)], { timeout: 5000 });
  return r.status === 0;
}

const trackedCache = new Map<string, Set<string>>();

/** The files git tracks under `dir` (one `git ls-files` per folder and process), as absolute paths. */
function trackedUnder(dir: string): Set<string> {
  let set = trackedCache.get(dir);
  if (set) return set;
  const r = runGitSync(dir, ['ls-files', '-z', '--full-name', '--', '.'], { timeout: 5000 });
  const top = runGitSync(dir, ['rev-parse', '--show-toplevel'], { timeout: 5000 });
  set = new Set(
    r.status === 0 && top.status === 0
      ? r.stdout
          .split('\0')
          .filter(Boolean)
          .map((f) => path.join(top.stdout.trim(), f))
      : [],
  );
  trackedCache.set(dir, set);
  return set;
}

/** Why state without this user's id is not theirs, in words a person can act on. */
export const NO_OWNER = 'it carries no owner id of yours: it came with the project, or an older devx wrote it';
export const OTHER_OWNER = 'written by another user';

/**
 * Why the state in `file` (a conversation, a session, a queued task, a workflow run) is not this user's to
 * resume, or null when it is: only state carrying this user's id is. Without an id (an unwritable ~/.devx,
 * where nothing devx writes carries one) what git tracks came with the repository and the rest is the
 * user's. `dir` is the folder whose tracked files are listed once (for many files in one folder).
 */
export function foreignState(file: string, owner: string | undefined, dir = path.dirname(file)): string | null {
  const me = ownerId();
  if (me) return owner === me ? null : owner ? OTHER_OWNER : NO_OWNER;
  return trackedUnder(dir).has(path.resolve(file)) ? 'it came with the repository' : null;
}

/**
 * This user's mark for a file devx shares with other tools in `root` (HANDOFF.md): a keyed hash of the
 * project's real path, so the mark neither gives the owner id away when the file is committed nor holds
 * when the file is copied into another project. Null without an owner id.
 */
export function ownerMark(root: string, what: string): string | null {
  const me = ownerId();
  if (!me) return null;
  let real = root;
  try {
    real = fs.realpathSync(root);
  } catch {
    // a project that is not there any more: its path as given
  }
  return crypto.createHmac('sha256', me).update(`${what}\0${real}`).digest('hex').slice(0, 32);
}
