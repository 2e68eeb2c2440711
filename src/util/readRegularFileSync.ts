// The one way devx opens a file it reads itself from a project (MEMORY.md, HANDOFF.md, settings, agents,
// skills, commands, attachments, its own state) or from its home. Whatever is at the name may come with
// a repository: a FIFO blocks a read for good, a device such as /dev/zero never ends, a sparse file can
// be gigabytes, and a hard link is another file (~/.ssh/id_rsa) under a project name. So: a regular file
// only, opened without blocking (O_NONBLOCK, checked on the opened descriptor so a swapped name cannot
// pass), one link only, at most the kind's size. A refusal names the file and what is wrong with it.
import fs from 'node:fs';
import type { Stats } from 'node:fs';
import { openForReadSync } from './guardedPath.js';

/** Size limits per kind of file devx reads itself. */
export const READ_LIMITS = {
  /** MEMORY.md, HANDOFF.md: notes that go into every prompt. */
  note: 1024 * 1024,
  /** settings, agent and skill definitions, commands, custom tools, workflows, hook files. */
  definition: 1024 * 1024,
  /** devx's own state: history, sessions, tasks, workflow state, undo records. */
  state: 256 * 1024 * 1024,
  /** A file a search reads line by line. */
  search: 16 * 1024 * 1024,
} as const;

/** devx would not read a file: its name and the reason, in one line a person can act on. */
export class UnreadableFileError extends Error {
  readonly code = 'EUNREADABLE';
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`${file} ${why}`);
  }
}

/** What a path that is not a regular file is, in words for the model or the user. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Why devx will not read a file with these stats, or null. */
export function refusalOf(st: Stats, maxBytes: number, links: 'one' | 'any' = 'one'): string | null {
  if (!st.isFile()) return `is ${fileKind(st)}, not a regular file`;
  if (links === 'one' && st.nlink > 1) return `has ${st.nlink} hard links: it may be a file from outside the project under another name`;
  if (st.size > maxBytes) return `is ${st.size} bytes, over the ${maxBytes}-byte limit for it`;
  return null;
}

/** The file's bytes; throws ENOENT when missing and UnreadableFileError (naming `shown`) when devx will not read it. */
export function readOwnFileSync(file: string, o: { maxBytes: number; shown?: string; links?: 'one' | 'any' }): Buffer {
  let fd: number;
  try {
    // In a tree a sandboxed command may change meanwhile, no link is followed on the way or at the end (guardedPath.ts).
    fd = openForReadSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    // ENXIO: a socket; EISDIR: a folder; ELOOP: a link inside the project.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' || code === 'EISDIR') throw new UnreadableFileError(o.shown ?? file, 'is not a regular file');
    if (code === 'ELOOP')
      throw new UnreadableFileError(o.shown ?? file, 'is reached through a symbolic link that leads out of the project; devx does not follow those');
    throw err;
  }
  try {
    const why = refusalOf(fs.fstatSync(fd), o.maxBytes, o.links);
    if (why) throw new UnreadableFileError(o.shown ?? file, why);
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's text; throws naming `shown` when it is missing, not a regular file, hard-linked, or over `maxBytes`. */
export function readRegularFileOrThrow(file: string, shown = file, maxBytes: number = READ_LIMITS.definition): string {
  return readOwnFileSync(file, { maxBytes, shown }).toString('utf8');
}

/**
 * The file's text, or undefined when it is missing; a file devx will not read is also undefined, and
 * `onRefused` (when given) hears one line naming it and why.
 */
export function readRegularFileSync(file: string, o: { maxBytes?: number; onRefused?: (line: string) => void } = {}): string | undefined {
  try {
    return readOwnFileSync(file, { maxBytes: o.maxBytes ?? READ_LIMITS.note }).toString('utf8');
  } catch (err) {
    if (err instanceof UnreadableFileError) o.onRefused?.(`skipped ${err.message}`);
    return undefined;
  }
}

/** A definition file's text (an agent, skill, command, tool, workflow): a user's own may have several links, a project's may not. */
export function readDefinitionSync(file: string, scope: string): string {
  return readOwnFileSync(file, { maxBytes: READ_LIMITS.definition, links: scope === 'project' ? 'one' : 'any' }).toString('utf8');
}

/** Like readRegularFileSync, but a file devx will not read throws (bad config must stop devx with its name). */
export function readTextIfPresentSync(file: string, maxBytes: number, links: 'one' | 'any' = 'one'): string | undefined {
  try {
    return readOwnFileSync(file, { maxBytes, links }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** devx's own state file (history, a session, a task, a workflow run) as text: regular, bounded, never blocking. */
export function readStateText(file: string): string {
  return readOwnFileSync(file, { maxBytes: READ_LIMITS.state, links: 'any' }).toString('utf8');
}

/** The file's text, or null when it is missing or devx will not read it (a reader that can do without it). */
export function readTextOrNull(file: string, maxBytes: number, links: 'one' | 'any' = 'one'): string | null {
  try {
    return readOwnFileSync(file, { maxBytes, links }).toString('utf8');
  } catch {
    return null;
  }
}
