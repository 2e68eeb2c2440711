// Undo itself: puts back the newest turns' changes, newest first, after checking that nothing changed
// since devx left it (unless forced); the turns are marked undone so the next undo goes further back.
// Only this user's manifests count (session/ownerId.ts): a repository cannot ship a turn to "undo".
import fs from 'node:fs';
import path from 'node:path';
import { outsideOrProtected } from '../policy/pathPolicy.js';
import { ownerId } from './ownerId.js';
import { BlobStore, blobsOf, capture, fileCount, overlay, putBack, sameState, subState, type PathState } from './undoState.js';
import { inside, loadTurns, relTo, split, stillRunning, undoDir, writeManifest, type TurnManifest, type UndoEntry } from './undoManifest.js';

export type RestoreAction = 'restored' | 'removed' | 'recreated';

export interface UndoneTurn {
  turn: TurnManifest;
  restored: { path: string; action: RestoreAction; files: number; dir: boolean; forced: boolean }[];
}

export interface Conflict {
  path: string;
  turn: TurnManifest;
  /** changed: by something else since devx left it; interrupted: devx was stopped mid-change; unsafe: never written, even with --force. */
  kind: 'changed' | 'interrupted' | 'unsafe';
  why: string;
}

export type UndoResult =
  | { status: 'nothing' }
  | { status: 'running'; turn: TurnManifest }
  | { status: 'refused'; conflicts: Conflict[]; turns: TurnManifest[] }
  | { status: 'undone'; turns: UndoneTurn[] }
  /** A file could not be put back (permissions, a full disk): what was put back stays, and undo can be run again. */
  | { status: 'failed'; turns: UndoneTurn[]; path: string; error: string };

/**
 * Undoes the newest `n` turns not undone yet: checks every file first (each must be as devx left it,
 * unless `force`), then puts each back, newest turn first, and marks the turns undone.
 */
export function undoTurns(root: string, n: number, opts: { force?: boolean; owner?: string | null; now?: () => Date } = {}): UndoResult {
  const owner = opts.owner === undefined ? ownerId() : opts.owner;
  const turns = loadTurns(root, owner)
    .filter((t) => !t.undoneAt)
    .slice(0, Math.max(1, n));
  if (!turns.length) return { status: 'nothing' };
  const busy = turns.find(stillRunning);
  if (busy) return { status: 'running', turn: busy };
  const blobs = new BlobStore(path.join(undoDir(root), 'blobs'));

  // What each path will hold once the newer turns are put back: the disk, with their before-states laid over it.
  const applied: { path: string; state: PathState }[] = [];
  const virtual = (rel: string): PathState => {
    let s = capture(path.join(root, rel), null, { files: Infinity, bytes: Infinity });
    for (const a of applied) {
      if (inside(a.path, rel)) s = overlay(s, split(relTo(rel, a.path)), a.state);
      else if (inside(rel, a.path)) s = subState(a.state, split(relTo(a.path, rel)));
    }
    return s;
  };
  const conflicts: Conflict[] = [];
  const plan: { turn: TurnManifest; entry: UndoEntry; forced: boolean }[] = [];
  for (const turn of turns) {
    for (const entry of turn.entries) {
      const bad = unsafePath(root, entry.path);
      if (bad) {
        conflicts.push({ path: entry.path || '.', turn, kind: 'unsafe', why: bad });
        continue;
      }
      const missing = [...blobsOf(entry.before)].find((h) => !fs.existsSync(blobs.file(h)));
      if (missing) {
        conflicts.push({
          path: entry.path || '.',
          turn,
          kind: 'unsafe',
          why: `its kept copy (.devx/undo/blobs/${missing.slice(0, 2)}/${missing.slice(0, 12)}…) is missing`,
        });
        continue;
      }
      const now = virtual(entry.path);
      const forced = !sameState(now, entry.after) && !sameState(now, entry.before);
      if (forced) {
        conflicts.push(
          entry.after
            ? { path: entry.path || '.', turn, kind: 'changed', why: 'changed since devx changed it' }
            : { path: entry.path || '.', turn, kind: 'interrupted', why: 'devx was stopped while changing it, so what it left there is not known' },
        );
      }
      plan.push({ turn, entry, forced });
      applied.push({ path: entry.path, state: entry.before });
    }
  }
  if (conflicts.some((c) => c.kind === 'unsafe') || (conflicts.length && !opts.force)) return { status: 'refused', conflicts, turns };

  const at = (opts.now?.() ?? new Date()).toISOString();
  const done: UndoneTurn[] = [];
  for (const turn of turns) {
    const restored: UndoneTurn['restored'] = [];
    for (const p of plan.filter((x) => x.turn === turn)) {
      const abs = path.join(root, p.entry.path);
      // Put back what is there now (the plan's view may be stale by the time an earlier entry changed it).
      const now = capture(abs, null, { files: Infinity, bytes: Infinity });
      if (sameState(now, p.entry.before)) continue;
      try {
        putBack(abs, p.entry.before, now, blobs);
      } catch (err) {
        done.push({ turn, restored });
        return { status: 'failed', turns: done, path: p.entry.path || '.', error: (err as Error).message };
      }
      const action: RestoreAction = p.entry.before.t === 'absent' ? 'removed' : now.t === 'absent' ? 'recreated' : 'restored';
      const was = p.entry.before.t === 'absent' ? now : p.entry.before;
      restored.push({ path: p.entry.path || '.', action, files: fileCount(was), dir: was.t === 'dir', forced: p.forced });
    }
    turn.undoneAt = at;
    writeManifest(root, turn, true);
    done.push({ turn, restored });
  }
  return { status: 'undone', turns: done };
}

/** Why a manifest's path is not one undo may write: outside the project, through .git, or protected. */
function unsafePath(root: string, rel: string): string | null {
  if (path.isAbsolute(rel) || split(rel).some((n) => n === '..' || n === '.git' || n === '') || inside(rel, '.devx/undo'))
    return `devx will not write ${rel || '.'}: not a path in the project`;
  if (rel === '') return null;
  const p = outsideOrProtected(path.join(root, rel), [root], 'write', rel);
  return p ? `devx will not write ${rel}: ${p.reason}` : null;
}
