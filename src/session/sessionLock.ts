// One live session per project: .devx/session.lock holds the owner's PID, its session id and the
// process groups it has running (so a crashed session's orphaned gemini processes can be reaped).
// Created with an exclusive link, so two starting processes cannot both win.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { reapGroups } from '../util/reapGroups.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';

export interface LockInfo {
  pid: number;
  session: string;
  startedAt: string;
  /** Process groups of children still running (gemini, commands). */
  children: number[];
}

export type AcquireResult = { status: 'acquired'; stale?: LockInfo } | { status: 'busy'; holder: LockInfo };

export function lockPath(root: string): string {
  return path.join(root, '.devx', 'session.lock');
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
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

/** `file` defaults to the project's session lock; workflows keep one per workflow. */
export function acquireLock(root: string, session: string, now = new Date(), file = lockPath(root)): AcquireResult {
  mkdirOwnedSync(path.dirname(file));
  const info: LockInfo = { pid: process.pid, session, startedAt: now.toISOString(), children: [] };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryLink(file, info)) return { status: 'acquired' };
    const holder = readLock(file);
    if (holder && isAlive(holder.pid) && holder.pid !== process.pid) return { status: 'busy', holder };
    // Stale (dead PID) or unreadable: take it over by renaming it away first, so only one taker wins.
    const aside = `${file}.stale.${process.pid}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue; // someone else took it over; look again
    }
    fs.rmSync(aside, { force: true });
    if (tryLink(file, info)) return { status: 'acquired', stale: holder ?? undefined };
  }
  const holder = readLock(file);
  return holder ? { status: 'busy', holder } : { status: 'acquired' };
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
    writeNewOwnedSync(tmp, JSON.stringify({ pid: process.pid, ...this.info, children: [...this.children] } satisfies LockInfo));
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
