// A command that may write could leave behind what runs later outside any sandbox: a new `.git`
// (a folder or a `gitdir:` file) whose config names an fsmonitor runs at the user's next `git status`
// there; a new `.mcp.json`, `.envrc` or editor folder at the top is loaded by another tool. bwrap cannot
// forbid a name, so devx looks before and after the command and moves what appeared into
// .devx/quarantine/, telling the model (and so the person) what it moved and why.
import fs from 'node:fs';
import path from 'node:path';
import { gitEntriesUnder, identity } from './projectScan.js';
import { hooksPathOf } from './sandboxPaths.js';
import { assertOwnedPath, mkdirOwnedSync } from '../util/ownedFile.js';

/** Names at the top that other tools load and run from once they exist. */
const WATCHED_TOP = ['.git', '.mcp.json', '.envrc', '.vscode', '.idea', '.gemini', '.claude', '.husky'];

export interface CreationWatch {
  /** After the command: moves what it created or replaced into quarantine; one line per entry moved. */
  settle(): string[];
}

/** Looks at `dirs` (the folders the command may write, walked) and the project's top before the command. */
export function watchCreations(root: string, dirs: string[]): CreationWatch {
  const watched = () => {
    const m = gitEntriesUnder(dirs);
    const hooks = hooksPathOf(root);
    for (const p of [...WATCHED_TOP.map((n) => path.join(root, n)), ...(hooks ? [hooks] : [])]) m.set(p, identity(p));
    return m;
  };
  const before = watched();
  return {
    settle() {
      const moved: string[] = [];
      for (const [p, id] of watched()) {
        if (id === '' || before.get(p) === id) continue;
        moved.push(quarantine(root, p));
      }
      return moved;
    },
  };
}

/** Moves `p` under .devx/quarantine/<time>/ (a `.git` there renamed `dot-git`, so git never finds it); says where. */
function quarantine(root: string, p: string): string {
  const rel = path.relative(root, p);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dest = path.join(root, '.devx', 'quarantine', stamp, ...rel.split(path.sep).map((s) => (s === '.git' ? 'dot-git' : s)));
  try {
    mkdirOwnedSync(path.dirname(dest), 0o700);
    assertOwnedPath(dest);
    fs.renameSync(p, dest);
    return `${rel}: made by the command, moved to ${path.relative(root, dest)} (a command devx runs unattended may not create git directories or files other tools run from)`;
  } catch (err) {
    fs.rmSync(p, { recursive: true, force: true });
    return `${rel}: made by the command, removed (it could not be moved aside: ${(err as Error).message})`;
  }
}
