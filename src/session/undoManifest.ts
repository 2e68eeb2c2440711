// Undo's manifests: one per turn that changed something, under .devx/undo/:
//
//   turns/<id>.json   its input line, and for each path its state before (absent | file: content hash and
//                     mode | link | folder) and the state devx left it in, plus the commands it ran whose
//                     changes devx does not know (not undoable)
//   blobs/ab/<sha256> the contents, gzip'd, each kept once however many turns hold it
//
// Only this user's manifests count (session/ownerId.ts): a repository cannot ship a turn to "undo".
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync, writeStateSync } from '../util/atomicWrite.js';
import { ownerId, trackedByGit } from './ownerId.js';
import { isAlive } from './sessionLock.js';
import { blobsOf, type PathState } from './undoState.js';
import { linkOnTheWay } from '../util/realPath.js';

export interface UndoEntry {
  /** Relative to the project root, `/`-separated ('' is the root itself). */
  path: string;
  before: PathState;
  /** What devx left there; null while the change runs (a crash leaves it so). */
  after: PathState | null;
  /** The call that first changed it this turn. */
  by: string;
}

export interface TurnManifest {
  version: 1;
  id: string;
  owner?: string;
  pid: number;
  startedAt: string;
  endedAt?: string;
  input: string;
  entries: UndoEntry[];
  /** Calls whose changes devx does not know (a build, a script, an MCP tool): named, never undone. */
  notUndoable: { what: string; why: string }[];
  undoneAt?: string;
}

/** Turns kept; older manifests (and blobs nothing needs any more) are removed. */
export const KEEP_TURNS = 100;

export function undoDir(root: string): string {
  return path.join(root, '.devx', 'undo');
}

export const turnsDir = (root: string) => path.join(undoDir(root), 'turns');
export const inside = (p: string, q: string) => q === '' || p === q || p.startsWith(`${q}/`);
export const split = (rel: string) => (rel === '' ? [] : rel.split('/'));
export const relTo = (base: string, p: string) => (base === '' ? p : p.slice(base.length + 1));

export function writeManifest(root: string, m: TurnManifest, durable: boolean): void {
  const file = path.join(turnsDir(root), `${m.id}.json`);
  const text = `${JSON.stringify(m)}\n`;
  if (durable) writeFileAtomicSync(file, text);
  else writeStateSync(file, text);
}

/** Every readable manifest on disk, newest first, whoever wrote it. */
export function readManifests(root: string): TurnManifest[] {
  const out: TurnManifest[] = [];
  for (const n of safeList(turnsDir(root)).filter((x) => x.endsWith('.json'))) {
    try {
      // O_NONBLOCK: a FIFO under a manifest's name does not block the read (it is no regular file: skipped).
      const fd = fs.openSync(path.join(turnsDir(root), n), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      let m: TurnManifest;
      try {
        if (!fs.fstatSync(fd).isFile()) continue;
        m = JSON.parse(fs.readFileSync(fd, 'utf8')) as TurnManifest;
      } finally {
        fs.closeSync(fd);
      }
      if (m.version === 1 && `${m.id}.json` === n && Array.isArray(m.entries) && Array.isArray(m.notUndoable)) out.push(m);
    } catch {
      // unreadable: not a turn
    }
  }
  return out.sort((a, b) => (a.startedAt === b.startedAt ? b.id.localeCompare(a.id) : b.startedAt.localeCompare(a.startedAt)));
}

/** The turns on disk that are this user's, newest first (undone ones included). */
export function loadTurns(root: string, owner: string | null = ownerId()): TurnManifest[] {
  // Without an id of this user's (an unwritable ~/.devx), a manifest that came with the repository is still not one.
  return readManifests(root).filter((m) => (owner ? m.owner === owner : !trackedByGit(path.join(turnsDir(root), `${m.id}.json`))));
}

export type EntryChange = 'changed' | 'created' | 'deleted' | 'interrupted';

export function changeOf(e: UndoEntry): EntryChange {
  if (!e.after) return 'interrupted';
  if (e.before.t === 'absent') return 'created';
  if (e.after.t === 'absent') return 'deleted';
  return 'changed';
}

/** A turn still being worked on by another live process (a run in another terminal). */
export function stillRunning(m: TurnManifest): boolean {
  return !m.endedAt && m.pid !== process.pid && isAlive(m.pid);
}

/**
 * Removes manifests beyond the newest `keep`, then blobs no manifest needs (older than an hour: a turn may be
 * writing its manifest). Runs when there are `slack` more than `keep`, so a session does not do it every turn.
 */
export function prune(root: string, keep = KEEP_TURNS, owner: string | null = ownerId(), slack = 10): void {
  // Folders a checkout made links (blobs -> the home) are not undo's: nothing is removed through them.
  if (linkOnTheWay(root, '.devx/undo/turns') || linkOnTheWay(root, '.devx/undo/blobs')) return;
  const names = safeList(turnsDir(root)).filter((n) => n.endsWith('.json'));
  if (names.length <= keep + slack) return;
  const all = readManifests(root);
  // Only this user's own turns go; anything else there (shipped, another user's) is set aside, never removed here.
  const mine = all.filter((m) => !owner || m.owner === owner);
  for (const m of mine.slice(keep)) fs.rmSync(path.join(turnsDir(root), `${m.id}.json`), { force: true });
  const needed = new Set<string>();
  for (const m of readManifests(root)) for (const e of m.entries) blobsOf(e.before, needed);
  const blobDir = path.join(undoDir(root), 'blobs');
  const hourAgo = Date.now() - 3600_000;
  for (const sub of safeList(blobDir)) {
    if (!/^[0-9a-f]{2}$/.test(sub) || !isRealDir(path.join(blobDir, sub))) continue;
    for (const h of safeList(path.join(blobDir, sub))) {
      const f = path.join(blobDir, sub, h);
      if (needed.has(h)) continue;
      try {
        const st = fs.lstatSync(f);
        if (st.isFile() && st.mtimeMs < hourAgo) fs.rmSync(f, { force: true });
      } catch {
        // gone already
      }
    }
  }
}

function isRealDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
