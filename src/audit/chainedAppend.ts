// Appends one JSON line to a hash-chained log. Each line carries the previous line's hash, so
// `devx audit verify` detects edits and deletions. Writers in several processes take a lock file,
// read the last hash, and append the whole line in one write, so lines are never lost or interleaved.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import lockfile from 'proper-lockfile';
import { appendOwnedSync, mkdirOwnedSync } from '../util/ownedFile.js';
import { refusalOf } from '../util/readRegularFileSync.js';

export const GENESIS = '0'.repeat(64);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function hashEntry(prev: string, body: string): string {
  return crypto.createHash('sha256').update(prev).update('\n').update(body).digest('hex');
}

/** How far back from the end lastHash looks for the last line, and the longest line verifyChain reads. */
export const MAX_LINE = 1024 * 1024;
const warned = new Set<string>();

/**
 * The hash field of the last complete line, or GENESIS for an empty log. It reads at most MAX_LINE
 * bytes from the end, whatever the file's size: a last line longer than that (a sparse or foreign file)
 * is not one devx wrote, and like any foreign last line it anchors a new chain, with one warning.
 */
export function lastHash(file: string): string {
  return tail(file).hash;
}

/** lastHash, and whether the file ends in a newline (a new line after a partial or foreign one starts on its own). */
function tail(file: string): { hash: string; ended: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return { hash: GENESIS, ended: true };
  }
  try {
    const st = fs.fstatSync(fd);
    // Not a log devx can append to (a FIFO, a hard link): appendOwnedSync refuses it, naming the file.
    if (!st.isFile() || st.nlink > 1) return { hash: GENESIS, ended: true };
    const size = st.size;
    if (size === 0) return { hash: GENESIS, ended: true };
    const start = Math.max(0, size - MAX_LINE);
    const buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const ended = buf[buf.length - 1] === 10;
    const text = buf.toString('utf8').replace(/\n+$/, '');
    const nl = text.lastIndexOf('\n');
    if (nl < 0 && start > 0) {
      if (!warned.has(file)) {
        warned.add(file);
        process.stderr.write(
          `devx: warning: ${file} ends in a line over ${MAX_LINE} bytes that devx did not write; new entries start a new hash chain after it (devx audit verify reports the break; move the file aside to start a clean log)\n`,
        );
      }
      return { hash: hashEntry(GENESIS, `unreadable tail of ${size} bytes`), ended };
    }
    const line = text.slice(nl + 1);
    const m = /"hash":"([0-9a-f]{64})"\}$/.exec(line);
    return { hash: m ? m[1] : hashEntry(GENESIS, line), ended }; // a foreign last line still anchors the chain
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
    const { hash: prev, ended } = tail(file);
    const obj = JSON.parse(line) as Record<string, unknown>;
    delete obj.hash;
    obj.prevHash = prev;
    const body = JSON.stringify(obj);
    const full = `${body.slice(0, -1)},"hash":"${hashEntry(prev, body)}"}\n`;
    appendOwnedSync(file, ended ? full : `\n${full}`);
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

/** The log's lines, read in chunks with at most MAX_LINE bytes of one line held; an over-long line ends the walk. */
function* chainLines(fd: number): Generator<{ line: string } | { tooLong: true }> {
  const chunk = Buffer.alloc(64 * 1024);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl >= 0 && nl < n; nl = chunk.indexOf(10, from)) {
      pending.push(chunk.subarray(from, nl));
      yield { line: Buffer.concat(pending).toString('utf8') };
      pending = [];
      pendingBytes = 0;
      from = nl + 1;
    }
    pendingBytes += n - from;
    if (pendingBytes > MAX_LINE) {
      yield { tooLong: true };
      return;
    }
    pending.push(Buffer.from(chunk.subarray(from, n)));
  }
  if (pendingBytes) yield { line: Buffer.concat(pending).toString('utf8') };
}

export function verifyChain(file: string): VerifyResult {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, entries: 0 };
    return { ok: false, entries: 0, badLine: 1, problem: `the log cannot be opened (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  try {
    // The same refusals as devx's other reads of project files (a FIFO blocks, a hard link is another file); no size limit: it is read line by line.
    const why = refusalOf(fs.fstatSync(fd), Number.MAX_SAFE_INTEGER);
    if (why) return { ok: false, entries: 0, badLine: 1, problem: `the log ${why}` };
    let prev = GENESIS;
    let i = 0;
    for (const l of chainLines(fd)) {
      if ('tooLong' in l)
        return { ok: false, entries: i, badLine: i + 1, problem: `a line over ${MAX_LINE} bytes (not one devx writes: a sparse, truncated or foreign file)` };
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(l.line);
      } catch {
        return { ok: false, entries: i, badLine: i + 1, problem: 'not valid JSON (a partial or edited line)' };
      }
      const { hash, ...rest } = obj;
      if (rest.prevHash !== prev)
        return { ok: false, entries: i, badLine: i + 1, problem: 'prevHash does not match the previous line (a line was deleted, inserted or reordered)' };
      if (hash !== hashEntry(prev, JSON.stringify(rest)))
        return { ok: false, entries: i, badLine: i + 1, problem: 'hash does not match the content (the line was edited)' };
      prev = hash as string;
      i++;
    }
    return { ok: true, entries: i };
  } finally {
    fs.closeSync(fd);
  }
}
