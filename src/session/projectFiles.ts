import fs from 'node:fs';
import path from 'node:path';
import { READ_LIMITS, readRegularFileSync } from '../util/readRegularFileSync.js';
import { outsideOrProtected } from '../policy/pathPolicy.js';
import { assertOwnedPath, OwnedPathError, mkdirOwnedSync } from '../util/ownedFile.js';
import { linkOnTheWay } from '../util/realPath.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';

/**
 * Reads MEMORY.md / HANDOFF.md at the project root, if present. They go into every prompt, and a cloned
 * repository can hold either as a symlink: one that leads out of the project, or to a file the path policy
 * protects (a key, .env), is not read, nor is anything but a regular file.
 */
export function readProjectNote(root: string, name: 'MEMORY.md' | 'HANDOFF.md', onRefused?: (line: string) => void): string | undefined {
  const file = path.join(root, name);
  return outsideOrProtected(file, [root], 'read') ? undefined : readRegularFileSync(file, { maxBytes: READ_LIMITS.note, onRefused });
}

// Shared and committed: settings.json, agents/*.md, tools/*.yaml. Everything else is personal state.
const DEVX_GITIGNORE = `# Written by devx: personal state that should not be committed.
history.json
history.*.json
settings.local.json
session.lock*
sessions/
audit.jsonl
runs/
tool-output/
handoffs/
undo/
agents/tasks/
agents/plans/
agents/logs/
agents/workspace/
agents/patches/
agents/runners/
agents/queue.lock
*.log
`;

/** devx's state folders in a project, outermost first. */
export const STATE_FOLDERS = [
  '.devx/sessions',
  '.devx/agents',
  '.devx/agents/tasks',
  '.devx/agents/plans',
  '.devx/agents/logs',
  '.devx/agents/workspace',
  '.devx/agents/patches',
  '.devx/agents/runners',
  '.devx/workflows',
  '.devx/plans',
  '.devx/runs',
  '.devx/quarantine',
  '.devx/undo',
  '.devx/undo/turns',
  '.devx/undo/blobs',
  '.devx/handoffs',
];

/**
 * State folders a checkout made links (`.devx/undo/blobs` -> the home), with where they point. devx never makes
 * one: nothing is listed, read, written or removed through one (a folder below a linked one is not named).
 */
export function linkedStateFolders(root: string): { rel: string; target: string }[] {
  const out: { rel: string; target: string }[] = [];
  for (const rel of ['.devx', ...STATE_FOLDERS]) {
    const abs = path.join(root, rel);
    // The first link on the way is this folder itself (a link above it is named as that folder).
    if (linkOnTheWay(root, rel) !== abs) continue;
    let target = '?';
    try {
      target = fs.readlinkSync(abs);
    } catch {
      // unreadable link
    }
    out.push({ rel, target });
  }
  return out;
}

/** A log devx appends to must be its own plain file: not a link, a FIFO or a second name of another file (exit 2 at start). */
function assertAppendable(file: string): void {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return;
  const why = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isFile()
      ? 'is not a regular file'
      : st.nlink > 1
        ? `has ${st.nlink} hard links (another name of it may be outside the project)`
        : null;
  if (why) throw new OwnedPathError(`${file} ${why}; devx appends its audit log there and will not. Remove it (rm ${file}) and start again`, file);
}

/**
 * Creates .devx/ with a .gitignore for its personal files. A .devx that is a link or not a folder stops
 * devx (exit 2): its history, audit log and sessions would land wherever the link points.
 */
export function ensureDevxDir(root: string): string {
  const dir = path.join(root, '.devx');
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(dir);
  } catch {
    // not there yet
  }
  if (st?.isSymbolicLink())
    throw new OwnedPathError(
      `${dir} is a symbolic link (to ${fs.readlinkSync(dir)}); devx keeps its state there and will not follow it. Remove the link and start again`,
      dir,
    );
  if (st && !st.isDirectory()) throw new OwnedPathError(`${dir} is not a folder; devx keeps its state there. Move it aside and start again`, dir);
  const linked = linkedStateFolders(root);
  if (linked.length)
    throw new OwnedPathError(
      `${linked.map((l) => `${l.rel} is a symbolic link (to ${l.target})`).join(', ')}; devx keeps its state there and will not follow a link it did not make. Remove ${linked.length > 1 ? 'them' : 'it'} (devx sessions --remove-set-aside) and start again`,
      path.join(root, linked[0].rel),
    );
  if (!st) mkdirOwnedSync(dir);
  assertAppendable(path.join(dir, 'audit.jsonl'));
  const gi = path.join(dir, '.gitignore');
  // lstat: a planted link there is refused by the write, not taken for the file.
  if (!fs.lstatSync(gi, { throwIfNoEntry: false })) writeFileAtomicSync(gi, DEVX_GITIGNORE);
  else if (fs.lstatSync(gi).isSymbolicLink()) assertOwnedPath(gi);
  return dir;
}
