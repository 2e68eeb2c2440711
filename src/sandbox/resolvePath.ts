// Path confinement: every path a tool touches must resolve (symlinks included) inside the project root.
// Containment is compared by path segments, never by string prefix (/a/app-evil is not inside /a/app).
import fs from 'node:fs';
import path from 'node:path';

export class PathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathError';
  }
}

/** True when `child` equals `root` or lies below it, compared segment by segment. */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  if (rel === '') return true;
  if (path.isAbsolute(rel)) return false;
  const first = rel.split(path.sep)[0];
  return first !== '..';
}

/**
 * Resolves `p` (relative to `cwd`, default the root) to a real absolute path.
 * The deepest existing ancestor is realpath'd, so a symlink anywhere in the chain is followed;
 * the not-yet-existing tail is appended as plain segments (it cannot contain links yet).
 * `realRoot` must already be a realpath.
 */
export function resolveInside(realRoot: string, p: string, cwd: string = realRoot): string {
  if (typeof p !== 'string') throw new PathError('path must be a string');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) throw new PathError('path contains control characters; refusing it');
  const given = path.resolve(cwd, p === '' ? '.' : p);
  const real = realpathDeepest(given);
  if (!isInside(realRoot, real)) {
    const shown = real === given ? given : `${given} -> ${real}`;
    throw new PathError(`path is outside the project root (${shown}); only files under ${realRoot} can be used`);
  }
  return real;
}

/** realpath of the deepest existing ancestor, joined with the remaining segments. */
export function realpathDeepest(abs: string): string {
  const tail: string[] = [];
  let cur = abs;
  let hops = 0;
  for (;;) {
    try {
      const real = fs.realpathSync.native(cur);
      return tail.length ? path.join(real, ...tail.reverse()) : real;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new PathError(`symlink loop at ${cur}`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      // A dangling symlink: follow its target text so a link pointing outside is still caught.
      const linkTarget = readLinkOrNull(cur);
      if (linkTarget !== null) {
        const next = path.resolve(path.dirname(cur), linkTarget);
        if (++hops > 40) throw new PathError(`too many symlinks at ${cur}`);
        cur = next;
        continue;
      }
      const parent = path.dirname(cur);
      if (parent === cur) return path.join(cur, ...tail.reverse());
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}

function readLinkOrNull(p: string): string | null {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}

/** Path relative to the root for display; '.' for the root itself. */
export function displayPath(realRoot: string, abs: string): string {
  const rel = path.relative(realRoot, abs);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}
