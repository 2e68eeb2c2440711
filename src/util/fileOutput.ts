// A child's stdout through a file instead of a pipe. Node writes to a pipe asynchronously: a CLI that
// calls process.exit() right after printing its answer (gemini 0.61 does, in non-interactive mode) loses
// whatever the pipe had not yet taken: a 5 MB `-o json` answer arrived cut short, at a point that depended
// on how fast the reader drained it (test/e2e/replySize.test.ts). A file is written
// synchronously, so nothing printed before the exit is lost. The file is read as it grows (inotify, with a
// poll behind it), so a streamed reply and an answer read before the process exits work as with a pipe.
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { mkdirOwnedSync, openOwnedForWriteSync } from './ownedFile.js';
import path from 'node:path';

/** Opens `file` (new, devx's own, mode 600) for a child to write its stdout to; the caller closes the descriptor once the child is spawned. */
export function openStdoutFile(file: string): number {
  mkdirOwnedSync(path.dirname(file), 0o700);
  return openOwnedForWriteSync(file);
}

export interface FileTail {
  /** What the file adds, as text, while it grows (ends after finish()). */
  stream: PassThrough;
  /** Bytes read so far. */
  readonly bytes: number;
  /** Reads what is left (the writer has exited), ends the stream, removes the file; returns the whole text. */
  finish(): string;
  /** Stops reading and removes the file, without a last read. */
  close(): void;
}

const POLL_MS = 100;

/** Reads `file` from its start as it grows. `cap`: past this many bytes `onCap` is called once (the caller stops the writer). */
export function tailFile(file: string, cap = Infinity, onCap?: () => void): FileTail {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  const stream = new PassThrough();
  stream.setEncoding('utf8');
  // Flowing from the start: text nobody listens to is dropped here, never buffered (the whole text is kept below).
  stream.resume();
  const decoder = new TextDecoder('utf8');
  const buf = Buffer.alloc(1 << 20);
  let text = '';
  let bytes = 0;
  let done = false;
  let capped = false;
  const read = () => {
    if (done || capped) return;
    for (;;) {
      let n = 0;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, bytes);
      } catch {
        return;
      }
      if (n <= 0) return;
      bytes += n;
      const chunk = decoder.decode(buf.subarray(0, n), { stream: true });
      text += chunk;
      if (chunk) stream.write(chunk);
      if (bytes > cap && !capped) {
        capped = true;
        onCap?.();
        return;
      }
    }
  };
  let watcher: fs.FSWatcher | null = null;
  try {
    watcher = fs.watch(file, { persistent: false }, read);
    watcher.on('error', () => undefined);
  } catch {
    /* the poll alone */
  }
  const poll = setInterval(read, POLL_MS);
  poll.unref();
  const close = () => {
    if (done) return;
    done = true;
    clearInterval(poll);
    watcher?.close();
    try {
      fs.closeSync(fd);
    } catch {
      /* closed */
    }
    fs.rmSync(file, { force: true });
  };
  return {
    stream,
    get bytes() {
      return bytes;
    },
    finish() {
      read();
      const rest = decoder.decode();
      text += rest;
      if (rest) stream.write(rest);
      close();
      stream.end();
      return text;
    },
    close() {
      close();
      stream.end();
    },
  };
}
