// Undo (issue #28, point 7). Before devx changes a file (write_file, edit_file, append_file, a command whose
// write set the policy knows) it keeps what the change will touch, per turn, under .devx/undo/:
//
//   turns/<id>.json   one manifest per turn that changed something: its input line, and for each path its
//                     state before (absent | file: content hash and mode | link | folder) and the state devx
//                     left it in, plus the commands it ran whose changes devx does not know (not undoable)
//   blobs/ab/<sha256> the contents, gzip'd, each kept once however many turns hold it
//
// The "before" is written (fsync) before the tool runs, so a kill -9 mid-turn leaves a manifest that still
// undoes every finished change; a change that was under way has no "after" and is put back only with --force.
// Undo goes newest first and refuses, naming them, when files changed since devx left them (unless forced).
// Only this user's manifests count (session/ownerId.ts): a repository cannot ship a turn to "undo".
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ChangeJournal } from '../tools/types.js';
import { writeFileAtomicSync, writeStateSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { outsideOrProtected } from '../policy/pathPolicy.js';
import { ensureDevxDir } from './projectFiles.js';
import { ownerId, trackedByGit } from './ownerId.js';
import { isAlive } from './sessionLock.js';
import { BlobStore, LIMITS, NotKept, blobsOf, capture, fileCount, overlay, putBack, sameState, subState, type PathState } from './undoState.js';

export type { PathState };

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

const turnsDir = (root: string) => path.join(undoDir(root), 'turns');
const inside = (p: string, q: string) => q === '' || p === q || p.startsWith(`${q}/`);
const split = (rel: string) => (rel === '' ? [] : rel.split('/'));
const relTo = (base: string, p: string) => (base === '' ? p : p.slice(base.length + 1));

function writeManifest(root: string, m: TurnManifest, durable: boolean): void {
  const file = path.join(turnsDir(root), `${m.id}.json`);
  const text = `${JSON.stringify(m)}\n`;
  if (durable) writeFileAtomicSync(file, text);
  else writeStateSync(file, text);
}

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

/** Every readable manifest on disk, newest first, whoever wrote it. */
function readManifests(root: string): TurnManifest[] {
  const out: TurnManifest[] = [];
  for (const n of safeList(turnsDir(root)).filter((x) => x.endsWith('.json'))) {
    try {
      const fd = fs.openSync(path.join(turnsDir(root), n), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      let m: TurnManifest;
      try {
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

/** A turn still being worked on by another live process (an agent run in another terminal). */
export function stillRunning(m: TurnManifest): boolean {
  return !m.endedAt && m.pid !== process.pid && isAlive(m.pid);
}

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
  const turns = loadTurns(root, owner).filter((t) => !t.undoneAt).slice(0, Math.max(1, n));
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
        conflicts.push({ path: entry.path || '.', turn, kind: 'unsafe', why: `its kept copy (.devx/undo/blobs/${missing.slice(0, 2)}/${missing.slice(0, 12)}…) is missing` });
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
  if (path.isAbsolute(rel) || split(rel).some((n) => n === '..' || n === '.git' || n === '') || inside(rel, '.devx/undo')) return `devx will not write ${rel || '.'}: not a path in the project`;
  if (rel === '') return null;
  const p = outsideOrProtected(path.join(root, rel), [root], 'write', rel);
  return p ? `devx will not write ${rel}: ${p.reason}` : null;
}

/**
 * Removes manifests beyond the newest `keep`, then blobs no manifest needs (older than an hour: a turn may be
 * writing its manifest). Runs when there are `slack` more than `keep`, so a session does not do it every turn.
 */
export function prune(root: string, keep = KEEP_TURNS, owner: string | null = ownerId(), slack = 10): void {
  const names = safeList(turnsDir(root)).filter((n) => n.endsWith('.json'));
  if (names.length <= keep + slack) return;
  const all = readManifests(root);
  const stale = new Set(names.filter((n) => !all.some((m) => `${m.id}.json` === n)));
  const mine = all.filter((m) => !owner || m.owner === owner);
  for (const m of mine.slice(keep)) fs.rmSync(path.join(turnsDir(root), `${m.id}.json`), { force: true });
  for (const n of stale) fs.rmSync(path.join(turnsDir(root), n), { force: true });
  const needed = new Set<string>();
  for (const m of readManifests(root)) for (const e of m.entries) blobsOf(e.before, needed);
  const blobDir = path.join(undoDir(root), 'blobs');
  const hourAgo = Date.now() - 3600_000;
  for (const sub of safeList(blobDir)) {
    for (const h of safeList(path.join(blobDir, sub))) {
      const f = path.join(blobDir, sub, h);
      if (needed.has(h)) continue;
      try {
        if (fs.lstatSync(f).mtimeMs < hourAgo) fs.rmSync(f, { force: true });
      } catch {
        // gone already
      }
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
