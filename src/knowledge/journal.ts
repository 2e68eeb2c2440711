// The embedded store's journal: the changes made since the last snapshot, one JSON line each.
// Lines are appended whole under the store's lock; a reader takes only complete lines, so a writer
// killed mid-append costs at most its own unacknowledged change. The first line names the snapshot
// generation the changes follow: a journal left over from an interrupted compaction is ignored.
import fs from 'node:fs';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { assertOwnedPath, diskError } from '../util/ownedFile.js';

export type JournalOp<D> = { op: 'add'; docs: D[] } | { op: 'del'; ids: string[] };

export interface JournalRead<D> {
  /** False when the file is missing, has no header yet, or follows another snapshot. */
  matches: boolean;
  /** True when the file is shorter than `from`: it was replaced, so the reader must reload. */
  replaced: boolean;
  ops: JournalOp<D>[];
  /** Byte offset after the last complete line read. */
  end: number;
}

const header = (gen: string) => `${JSON.stringify({ devx: 'journal', gen })}\n`;

function isOp(v: unknown): v is JournalOp<unknown> {
  const o = v as { op?: unknown; docs?: unknown; ids?: unknown };
  return (o?.op === 'add' && Array.isArray(o.docs)) || (o?.op === 'del' && Array.isArray(o.ids));
}

function readAt(fd: number, pos: number, len: number): Buffer {
  const buf = Buffer.alloc(len);
  const n = fs.readSync(fd, buf, 0, len, pos);
  return buf.subarray(0, n);
}

/**
 * Reads the complete lines after byte `from` (0 = just after the header) of the journal for
 * snapshot `gen`. The header is checked on every read, so a journal of another generation is never
 * replayed, however it got there.
 */
export function readJournal<D>(file: string, from: number, gen: string): JournalRead<D> {
  const none = (replaced: boolean): JournalRead<D> => ({ matches: false, replaced, ops: [], end: 0 });
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return none(from > 0);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const head = readAt(fd, 0, Math.min(size, 512));
    const nl = head.indexOf(0x0a);
    if (nl < 0) return none(from > 0);
    try {
      if ((JSON.parse(head.subarray(0, nl).toString('utf8')) as { gen?: unknown }).gen !== gen) return none(from > 0);
    } catch {
      return none(from > 0);
    }
    const start = Math.max(from, nl + 1);
    if (size < start) return none(true);
    const body = readAt(fd, start, size - start);
    const last = body.lastIndexOf(0x0a);
    if (last < 0) return { matches: true, replaced: false, ops: [], end: start };
    const ops: JournalOp<D>[] = [];
    for (const line of body.subarray(0, last).toString('utf8').split('\n')) {
      try {
        const v = JSON.parse(line) as unknown;
        if (isOp(v)) ops.push(v as JournalOp<D>);
      } catch {
        /* a damaged line: skip it, keep the rest */
      }
    }
    return { matches: true, replaced: false, ops, end: start + last + 1 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Starts an empty journal for snapshot `gen`, replacing any other. Returns its size. */
export function resetJournal(file: string, gen: string): number {
  writeFileAtomicSync(file, header(gen));
  return Buffer.byteLength(header(gen));
}

/** Appends one operation as a whole line (dropping a torn tail first). Returns the new size. Call under the lock. */
export function appendJournal<D>(file: string, op: JournalOp<D>): number {
  assertOwnedPath(file);
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
  try {
    let size = fs.fstatSync(fd).size;
    if (size > 0) {
      const tail = Buffer.alloc(1);
      fs.readSync(fd, tail, 0, 1, size - 1);
      if (tail[0] !== 0x0a) {
        // A writer died mid-line: its change was never acknowledged, so cut back to the last newline.
        const all = fs.readFileSync(file);
        size = all.lastIndexOf(0x0a) + 1;
        fs.ftruncateSync(fd, size);
      }
    }
    const line = Buffer.from(`${JSON.stringify(op)}\n`);
    try {
      // A full disk may take part of the line: cut back to where it started, so no acknowledged id is ever lost.
      for (let off = 0; off < line.length;) off += fs.writeSync(fd, line, off, line.length - off, size + off);
      fs.fsyncSync(fd);
    } catch (err) {
      try {
        fs.ftruncateSync(fd, size);
      } catch {
        // a torn tail is cut by the next append or read
      }
      throw diskError(err, file);
    }
    return size + line.length;
  } finally {
    fs.closeSync(fd);
  }
}

export function journalSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
