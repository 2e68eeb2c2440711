// Undo. Before devx changes a file (write_file, edit_file, append_file, a command whose
// write set the policy knows) it keeps what the change will touch, per turn, under .devx/undo/ (the layout
// is in undoManifest.ts; undoing is undoTurns.ts; saved path states are undoState.ts).
//
// The "before" is written (fsync) before the tool runs, so a kill -9 mid-turn leaves a manifest that still
// undoes every finished change; a change that was under way has no "after" and is put back only with --force.
// Undo goes newest first and refuses, naming them, when files changed since devx left them (unless forced).
// Only this user's manifests count (session/ownerId.ts): a repository cannot ship a turn to "undo".
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ChangeJournal } from '../tools/types.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { ensureDevxDir } from './projectFiles.js';
import { ownerId } from './ownerId.js';
import { BlobStore, LIMITS, NotKept, capture, overlay, sameState, type PathState } from './undoState.js';
import { KEEP_TURNS, inside, prune, relTo, split, turnsDir, undoDir, writeManifest, type TurnManifest, type UndoEntry } from './undoManifest.js';
export * from './undoManifest.js';
export * from './undoTurns.js';
export type { PathState };

/**
 * The journal of one agent (runtime/createAgent.ts puts it in the tools' context; runtime/agentRun.ts
 * marks the turns). runToolCall calls before() and after() around every call that changes files.
 */
export class UndoJournal implements ChangeJournal {
  private turn: TurnManifest | null = null;
  private input = '';
  private readonly blobs: BlobStore;
  private readonly owner: string | null;

  constructor(
    readonly root: string,
    private readonly opts: { readDenied?: (abs: string) => boolean; now?: () => Date; owner?: string | null } = {},
  ) {
    this.blobs = new BlobStore(path.join(undoDir(root), 'blobs'));
    this.owner = opts.owner === undefined ? ownerId() : opts.owner;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** A new turn; nothing is written until it changes something. */
  beginTurn(input: string): void {
    this.endTurn();
    this.input = input.length > 2000 ? `${input.slice(0, 2000)}…` : input;
  }

  endTurn(): void {
    const t = this.turn;
    this.turn = null;
    if (!t) return;
    t.endedAt = this.now().toISOString();
    try {
      // Every change left things as they were: not a turn to undo.
      if (!t.entries.length && !t.notUndoable.length) fs.rmSync(path.join(turnsDir(this.root), `${t.id}.json`), { force: true });
      // Not waited onto the disk: what undo needs is there already; a lost end time reads as a turn devx stopped in.
      else writeManifest(this.root, t, false);
    } catch {
      // the manifest of every change is on disk already; only the end time is missing
    }
  }

  private current(): TurnManifest {
    if (this.turn) return this.turn;
    ensureDevxDir(this.root);
    mkdirOwnedSync(turnsDir(this.root), 0o700);
    // Copies of the user's files: never committed, whatever an older .devx/.gitignore says.
    const ignore = path.join(undoDir(this.root), '.gitignore');
    if (!fs.lstatSync(ignore, { throwIfNoEntry: false })) writeFileAtomicSync(ignore, '*\n');
    const at = this.now();
    this.turn = {
      version: 1,
      id: `${at.toISOString().replace(/[:.]/g, '-')}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`,
      ...(this.owner ? { owner: this.owner } : {}),
      pid: process.pid,
      startedAt: at.toISOString(),
      input: this.input,
      entries: [],
      notUndoable: [],
    };
    prune(this.root, KEEP_TURNS, this.owner);
    return this.turn;
  }

  private rel(abs: string): string | null {
    const r = path.relative(this.root, abs);
    if (r === '..' || r.startsWith(`..${path.sep}`) || path.isAbsolute(r)) return null;
    return r.split(path.sep).join('/');
  }

  /** Keeps what `paths` hold now, before `what` changes them. Throws only when the store cannot be written. */
  before(paths: string[], what: string): void {
    const turn = this.current();
    for (const abs of paths) {
      const rel0 = this.rel(abs);
      if (rel0 === null) {
        turn.notUndoable.push({ what, why: `it writes ${abs}, outside the project` });
        continue;
      }
      if (inside(rel0, '.devx/undo') || split(rel0).some((n) => n === '.git')) continue;
      // A file in folders that do not exist yet: what devx will create is the topmost missing folder.
      let rel = rel0;
      while (rel.includes('/') && !fs.existsSync(path.join(this.root, path.dirname(rel)))) rel = path.posix.dirname(rel);
      if (turn.entries.some((e) => inside(rel, e.path))) continue;
      let state: PathState;
      try {
        state = capture(path.join(this.root, rel), this.blobs, { ...LIMITS, denied: this.opts.readDenied }, rel || '.');
      } catch (err) {
        if (!(err instanceof NotKept)) throw err;
        turn.notUndoable.push({ what, why: err.message });
        continue;
      }
      // Paths inside it already kept this turn: their earlier state is the one to go back to.
      const nested = turn.entries.filter((e) => inside(e.path, rel));
      for (const e of nested) state = overlay(state, split(relTo(rel, e.path)), e.before);
      turn.entries = turn.entries.filter((e) => !nested.includes(e));
      turn.entries.push({ path: rel, before: state, after: null, by: nested[0]?.by ?? what });
    }
    writeManifest(this.root, turn, true);
  }

  /** Records what devx left `paths` as; an entry left unchanged is dropped. Never throws. */
  after(paths: string[]): void {
    const turn = this.turn;
    if (!turn) return;
    try {
      const touched = new Set<UndoEntry>();
      for (const abs of paths) {
        const rel = this.rel(abs);
        if (rel === null) continue;
        for (const e of turn.entries) if (inside(rel, e.path) || inside(e.path, rel)) touched.add(e);
      }
      for (const e of touched) {
        try {
          e.after = capture(path.join(this.root, e.path), null, { files: LIMITS.files * 10, bytes: LIMITS.bytes * 10 });
        } catch {
          e.after = null;
        }
      }
      turn.entries = turn.entries.filter((e) => !sameState(e.before, e.after));
      writeManifest(this.root, turn, false);
    } catch {
      // the before-states are on disk; a missing after-state makes undo ask for --force
    }
  }

  notUndoable(what: string, why: string): void {
    const turn = this.current();
    turn.notUndoable.push({ what, why });
    try {
      writeManifest(this.root, turn, false);
    } catch {
      // kept in memory; written with the next change or at the turn's end
    }
  }
}
