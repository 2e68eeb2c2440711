// A command that may write could leave behind what runs later outside any sandbox: a new `.git`
// (a folder or a `gitdir:` file) whose config names an fsmonitor runs at the user's next `git status`
// there; a new `.mcp.json`, `.envrc` or editor folder at the top is loaded by another tool. bwrap cannot
// forbid a name, so devx looks before and after the command and moves what appeared into
// .devx/quarantine/, telling the model (and so the person) what it moved and why.
import fs from 'node:fs';
import path from 'node:path';
import { entriesNamedUnder, entryKey, identity, type FoundEntry } from './projectScan.js';
import { shownBytes } from '../util/fileNames.js';
import { anchorDir, withAnchored } from '../util/guardedPath.js';
import { hooksPathOf } from './sandboxPaths.js';
import { FIXED_CONFIG_PATHS, NESTED_CONFIG_NAMES, patternConfigAt } from './otherToolsConfig.js';
import { assertOwnedPath, mkdirOwnedSync } from '../util/ownedFile.js';

/** Names at the top that other tools load and run from once they exist. */
const WATCHED_TOP = ['.git', ...FIXED_CONFIG_PATHS];
const WATCHED_ANYWHERE: ReadonlySet<string> = new Set(['.git', ...NESTED_CONFIG_NAMES]);

export interface CreationWatch {
  /** After the command: moves what it created or replaced into quarantine; one line per entry moved. */
  settle(): string[];
}

/** Looks at `dirs` (the folders the command may write, walked) and the project's top before the command. */
export function watchCreations(root: string, dirs: string[]): CreationWatch {
  const watched = (): Map<string, FoundEntry> => {
    // `.git` anywhere, and other tools' folders that count in a package too (`packages/web/.claude`).
    const m = entriesNamedUnder(dirs, WATCHED_ANYWHERE);
    const hooks = hooksPathOf(root);
    for (const p of [...WATCHED_TOP.map((n) => path.join(root, n)), ...patternConfigAt(root), ...(hooks ? [hooks] : [])])
      m.set(entryKey(p), { path: p, id: identity(p) });
    return m;
  };
  const before = watched();
  return {
    settle() {
      const moved: string[] = [];
      for (const [key, e] of watched()) {
        if (e.id === '' || before.get(key)?.id === e.id) continue;
        moved.push(quarantine(root, e.path));
      }
      return moved;
    },
  };
}

/** Moves `p` under .devx/quarantine/<time>/ (a `.git` there renamed `dot-git`, so git never finds it); says where. */
function quarantine(root: string, p: string | Buffer): string {
  // A path below a name that is not UTF-8 is kept there under its shown form (\xNN for each such byte).
  const rel = typeof p === 'string' ? path.relative(root, p) : shownBytes(relativeBytes(root, p));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dest = path.join(root, '.devx', 'quarantine', stamp, ...rel.split(path.sep).map((s) => (s === '.git' ? 'dot-git' : s)));
  try {
    mkdirOwnedSync(path.dirname(dest), 0o700);
    assertOwnedPath(dest);
    moveAnchored(p, dest);
    return `${rel}: made by the command, moved to ${path.relative(root, dest)} (a command devx runs unattended may not create git directories or files other tools run from)`;
  } catch (err) {
    // A link on the way (a folder swapped meanwhile): what is there now is not the project's, and stays.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return `${rel}: made by the command, left where it is (${(err as Error).message})`;
    if (typeof p === 'string') withAnchored(p, (q) => fs.rmSync(q, { recursive: true, force: true }));
    else fs.rmSync(p, { recursive: true, force: true });
    return `${rel}: made by the command, removed (it could not be moved aside: ${(err as Error).message})`;
  }
}

/** Renames `from` to `to`, each in its folder entered without links (util/guardedPath.ts); a path of bytes as it is. */
function moveAnchored(from: string | Buffer, to: string): void {
  if (typeof from !== 'string') return fs.renameSync(from, to);
  const src = anchorDir(path.dirname(from));
  try {
    withAnchored(to, (dest) => fs.renameSync(src.at(path.basename(from)), dest));
  } finally {
    src.release();
  }
}

/** `p` below `root`, as bytes (the whole path when it is not below it). */
function relativeBytes(root: string, p: Buffer): Buffer {
  const top = Buffer.from(root + path.sep);
  return p.subarray(0, top.length).equals(top) ? p.subarray(top.length) : p;
}
