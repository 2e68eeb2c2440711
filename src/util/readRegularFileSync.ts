// Reading a file that is meant to be a regular file: a FIFO left at its name would block the read for
// good and a device such as /dev/zero never ends. O_NONBLOCK makes the open of a FIFO return at once, and
// the type is checked on the opened descriptor, so a name swapped after a check does not get past it.
import fs from 'node:fs';
import type { Stats } from 'node:fs';

/** What a path that is not a regular file is, in words for the model or the user. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The file's text; throws naming `shown` when it is missing, not a regular file, or over `maxBytes`. */
export function readRegularFileOrThrow(file: string, shown = file, maxBytes = Infinity): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${shown} is ${fileKind(st)}, not a regular file`);
    if (st.size > maxBytes) throw new Error(`${shown} is ${st.size} bytes, over the ${maxBytes}-byte limit`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's text, or undefined when it is missing or not a regular file (MEMORY.md, HANDOFF.md, artifacts). */
export function readRegularFileSync(file: string): string | undefined {
  try {
    return readRegularFileOrThrow(file);
  } catch {
    return undefined;
  }
}
