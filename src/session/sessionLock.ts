// One live session per project: .devx/session.lock holds the owner's PID, its session id and the
// process groups it has running (so a crashed session's orphaned gemini processes can be reaped).
// Created with an exclusive link, so two starting processes cannot both win. A lock holds the project
// only when it is this user's (its owner id) and names a live devx (its PID, and that process's start
// time, so a recycled PID is no holder); one that came with the project or is another user's is moved
// beside as <lock>.set-aside, never obeyed, and the start's set-aside line names it.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { reapGroups } from '../util/reapGroups.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';
import { ownerId } from './ownerId.js';
import { readTextOrNull } from '../util/readRegularFileSync.js';
import { isAlive } from '../util/processAlive.js';

export { isAlive };

export interface LockInfo {
  pid: number;
  session: string;
  startedAt: string;
  /** Process groups of children still running (gemini, commands). */
  children: number[];
  /** Who holds it (session/ownerId.ts). */
  owner?: string;
  /** When the holding process started (procStart), to tell it from a later process given the same PID. */
  procStart?: string;
}

/** setAside: where a lock that was not this user's was moved. */
export type AcquireResult = { status: 'acquired'; stale?: LockInfo; setAside?: string } | { status: 'busy'; holder: LockInfo };

export function lockPath(root: string): string {
  return path.join(root, '.devx', 'session.lock');
}

/** The boot and the clock tick `pid` started at (/proc), or undefined where there is no /proc to ask. */
export function procStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // "pid (comm) state ppid …": field 22, starttime, is the 20th after the last ')'.
    return `${boot}:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
  } catch {
    return undefined;
  }
}

let started: string | undefined;
/** What this process writes into its locks besides its PID. */
function identity(): { owner?: string; procStart?: string } {
  started ??= procStart(process.pid);
  return { owner: ownerId() ?? undefined, procStart: started };
}

/**
 * live: this user's devx holds it; stale: this user's, but its process is gone (or its PID now names
 * another process); foreign: another user's, or one with no owner id (it came with the project, or an
 * older devx wrote it), whatever process it names.
 */
export function judgeLock(holder: LockInfo): 'live' | 'stale' | 'foreign' {
  const owner = identity().owner;
  if (owner && holder.owner !== owner) return 'foreign';
  if (holder.pid === process.pid || !isAlive(holder.pid)) return 'stale';
  const now = procStart(holder.pid);
  return holder.procStart && now && holder.procStart !== now ? 'stale' : 'live';
}

/** The holder of `file` when it is a live devx of this user's (not this process); null otherwise. */
export function liveHolder(file: string): LockInfo | null {
  const holder = readLock(file);
  return holder && holder.pid !== process.pid && judgeLock(holder) === 'live' ? holder : null;
}

/** A lock's text, or null; never blocks on what a project may hold there (a FIFO). Linked twice while it is made. */
const readText = (file: string): string | null => readTextOrNull(file, 1024 * 1024, 'any');

export function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(readText(file) ?? '') as LockInfo;
    return typeof v.pid === 'number' ? { ...v, children: v.children ?? [] } : null;
  } catch {
    return null;
  }
}

function tryLink(file: string, info: LockInfo): boolean {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  writeNewOwnedSync(tmp, JSON.stringify(info));
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Kills the process groups a dead session left running (only those it really started). */
export function reapChildren(info: LockInfo): number {
  return reapGroups(info.children, info.pid);
}

/** Where a lock that is not this user's is kept once devx takes the project. */
export const setAsideLock = (file: string) => `${file}.set-aside`;

/**
 * Moves the lock at `file` out of the way, if it is still the one read as `text`: renamed away first, so
 * of two takers only one gets it, and put back when another process had replaced it meanwhile.
 */
function takeOver(file: string, text: string | null, to: string | null): boolean {
  const taking = `${file}.taking.${process.pid}`;
  try {
    fs.renameSync(file, taking);
  } catch {
    return false; // someone else took it over
  }
  if (readText(taking) !== text) {
    try {
      fs.linkSync(taking, file);
    } catch {
      // a third process holds the path now; the one taken stays beside
    }
    fs.rmSync(taking, { force: true });
    return false;
  }
  if (to) fs.renameSync(taking, to);
  else fs.rmSync(taking, { force: true });
  return true;
}

/** `file` defaults to the project's session lock; workflows keep one per workflow. */
export function acquireLock(root: string, session: string, now = new Date(), file = lockPath(root)): AcquireResult {
  mkdirOwnedSync(path.dirname(file));
  const info: LockInfo = { pid: process.pid, session, startedAt: now.toISOString(), children: [], ...identity() };
  let result: AcquireResult = { status: 'acquired' };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryLink(file, info)) return result;
    const text = readText(file);
    const holder = readLock(file);
    // Unreadable: no devx of this user's wrote it.
    const judged = holder ? judgeLock(holder) : 'foreign';
    if (judged === 'live') return { status: 'busy', holder: holder! };
    // Stale: removed. Not this user's: kept beside, never obeyed (its processes are not reaped either).
    if (!takeOver(file, text, judged === 'foreign' ? setAsideLock(file) : null)) continue;
    result = judged === 'foreign' ? { status: 'acquired', setAside: setAsideLock(file) } : { status: 'acquired', stale: holder! };
    if (tryLink(file, info)) return result;
  }
  const holder = readLock(file);
  return holder ? { status: 'busy', holder } : result;
}

export class SessionLock {
  private children = new Set<number>();
  private released = false;
  private releasing = false;

  constructor(
    root: string,
    private readonly info: { session: string; startedAt: string },
    private readonly file = lockPath(root),
  ) {}

  private write(): void {
    // A child that ends after the session released its lock (a warm process stopped at dispose) must
    // not bring the lock file back.
    if (this.released) return;
    const file = this.file;
    const tmp = `${file}.w${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    writeNewOwnedSync(tmp, JSON.stringify({ pid: process.pid, ...this.info, children: [...this.children], ...identity() } satisfies LockInfo));
    // rename replaces a link at `file` itself, never what it points to
    fs.renameSync(tmp, file);
  }

  childStarted(pgid: number): void {
    this.children.add(pgid);
    this.write();
  }

  childEnded(pgid: number): void {
    this.children.delete(pgid);
    // While the lock waits to be released, the file keeps naming the group: a kill -9 then costs only a
    // harmless look at a group that is gone, and the exit path saves a write.
    if (!this.releasing) this.write();
  }

  /** Releases the lock once `done` settles (children still exiting); until then a crash leaves their groups recorded for reaping. */
  async releaseAfter(done: Promise<void>): Promise<void> {
    this.releasing = true;
    try {
      await done;
    } finally {
      this.release();
    }
  }

  release(): void {
    this.released = true;
    const file = this.file;
    const held = readLock(file);
    if (held?.pid === process.pid) fs.rmSync(file, { force: true });
  }
}
