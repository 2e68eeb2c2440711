// Appends one JSON line to a hash-chained log. Each line carries the previous line's hash, so
// `devx audit verify` detects edits and deletions. Writers in several processes take a lock file,
// read the last hash, and append the whole line in one write, so lines are never lost or interleaved.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import lockfile from 'proper-lockfile';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';

export const GENESIS = '0'.repeat(64);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function hashEntry(prev: string, body: string): string {
  return crypto.createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

/** The hash field of the last complete line, or GENESIS for an empty log. */
export function lastHash(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return GENESIS;
  }
  try {
    const st = fs.fstatSync(fd);
    // Not a log devx can append to (a FIFO, a hard link): appendOwnedSync refuses it, naming the file.
    if (!st.isFile() || st.nlink > 1) return GENESIS;
    const size = st.size;
    if (size === 0) return GENESIS;
    let chunk = 4096;
    for (;;) {
      const start = Math.max(0, size - chunk);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      const text = buf.toString('utf8').replace(/\n+$/, '');
      const nl = text.lastIndexOf('\n');
      if (nl >= 0 || start === 0) {
        const line = text.slice(nl + 1);
        const m = /"hash":"([0-9a-f]{64})"\}$/.exec(line);
        return m ? m[1] : hashEntry(GENESIS, line); // a foreign last line still anchors the chain
      }
      chunk *= 4;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function lockSyncWithRetry(file: string): () => void {
  for (let attempt = 0; ; attempt++) {
    try {
      return lockfile.lockSync(file, { realpath: false, stale: 10_000 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || attempt > 5000) throw err;
      Atomics.wait(sleeper, 0, 0, 1 + (attempt % 5));
    }
  }
}

/** `line` is one serialized JSON object without prevHash/hash. */
export function appendChained(file: string, line: string): void {
  mkdirOwnedSync(path.dirname(file));
  const release = lockSyncWithRetry(file);
  try {
    const prev = lastHash(file);
    const obj = JSON.parse(line) as Record<string, unknown>;
    delete obj.hash;
    obj.prevHash = prev;
    const body = JSON.stringify(obj);
    const full = `${body.slice(0, -1)},"hash":"${hashEntry(prev, body)}"}\n`;
    appendOwnedSync(file, full);
  } finally {
    release();
  }
}

export interface VerifyResult {
  ok: boolean;
  entries: number;
  /** 1-based line of the first problem. */
  badLine?: number;
  problem?: string;
}

export function verifyChain(file: string): VerifyResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { ok: true, entries: 0 };
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let prev = GENESIS;
  for (let i = 0; i < lines.length; i++) {
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(lines[i]);
    } catch {
      return { ok: false, entries: i, badLine: i + 1, problem: 'not valid JSON (a partial or edited line)' };
    }
    const { hash, ...rest } = obj;
    if (rest.prevHash !== prev)
      return { ok: false, entries: i, badLine: i + 1, problem: 'prevHash does not match the previous line (a line was deleted, inserted or reordered)' };
    if (hash !== hashEntry(prev, JSON.stringify(rest)))
      return { ok: false, entries: i, badLine: i + 1, problem: 'hash does not match the content (the line was edited)' };
    prev = hash as string;
  }
  return { ok: true, entries: lines.length };
}
