// What a project holds of devx state that is not this user's (session/ownerId.ts): a conversation, sessions,
// queued tasks, workflow runs, undo records, a handoff, a lock, shipped with the project (tracked by git or
// not), another user's, or written by a devx older than owner ids. Each reader leaves it alone; a start says
// in one line what is set aside, and `devx sessions --remove-set-aside` removes exactly that. The queue's and
// the workflows' folders are named here (those layers sit above this one).
import fs from 'node:fs';
import path from 'node:path';
import { foreignState, ownerId } from './ownerId.js';
import { isOwnHandoff } from './handoff.js';
import { linkedStateFolders, readProjectNote } from './projectFiles.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';
import { judgeLock, readLock, setAsideLock } from './sessionLock.js';
import { linkOnTheWay } from '../util/realPath.js';

export type SetAsideKind = 'conversation' | 'lock' | 'session' | 'queued task' | 'workflow run' | 'undo record' | 'handoff' | 'linked folder';

export interface SetAsideItem {
  kind: SetAsideKind;
  /** What the start's line names, relative to the project (`/`-separated). */
  label: string;
  /** What removing it removes, relative to the project. */
  remove: string[];
}

/** The names in a state folder of the project; none when it, or a folder above it, is a link (see linkedFolders). */
const list = (root: string, rel: string): string[] => {
  if (linkOnTheWay(root, rel)) return [];
  try {
    return fs.readdirSync(path.join(root, rel)).sort();
  } catch {
    return [];
  }
};

/**
 * State folders a checkout made links (`.devx/undo/blobs` -> the home): devx never makes one, lists nothing
 * through one, and removing it removes the link alone.
 */
function linkedFolders(root: string): SetAsideItem[] {
  return linkedStateFolders(root).map(({ rel, target }) => ({ kind: 'linked folder' as const, label: `${rel} (a link to ${target})`, remove: [rel] }));
}

/**
 * Whose the state file is, by the readers' rule (foreignState). A file that holds the user's id is taken for
 * theirs without parsing (the id is theirs alone). One that is unreadable or no JSON object is neither (its
 * reader reports it).
 */
function judge(file: string, field: string): 'mine' | 'foreign' | null {
  // Never blocks on what a project holds under the name (a FIFO), nor reads more than state can be.
  const text = readTextOrNull(file, READ_LIMITS.state, 'any');
  if (text === null) return null;
  const me = ownerId();
  if (me && text.includes(me)) return 'mine';
  try {
    const v = JSON.parse(text) as Record<string, unknown> | null;
    if (!v || typeof v !== 'object') return null;
    return foreignState(file, typeof v[field] === 'string' ? (v[field] as string) : undefined) ? 'foreign' : 'mine';
  } catch {
    return null;
  }
}

const foreign = (file: string, field: string) => judge(file, field) === 'foreign';

function conversations(root: string): SetAsideItem[] {
  const dir = path.join(root, '.devx');
  const out: SetAsideItem[] = [];
  if (foreign(path.join(dir, 'history.json'), 'owner')) out.push(item('conversation', '.devx/history.json'));
  for (const n of list(root, '.devx').filter((x) => /^history\.set-aside-.*\.json$/.test(x))) out.push(item('conversation', `.devx/${n}`));
  return out;
}

function locks(root: string): SetAsideItem[] {
  const out: SetAsideItem[] = [];
  const live = path.join(root, '.devx', 'session.lock');
  const holder = readLock(live);
  if (holder && judgeLock(holder) === 'foreign')
    out.push({ kind: 'lock', label: `.devx/session.lock (naming pid ${holder.pid})`, remove: ['.devx/session.lock'] });
  const wf = list(root, '.devx/workflows').map((id) => `.devx/workflows/${id}/lock`);
  for (const rel of ['.devx/session.lock', '.devx/undo/undo.lock', '.devx/agents/queue.lock', ...wf]) {
    const aside = setAsideLock(rel);
    if (!fs.existsSync(path.join(root, aside))) continue;
    const pid = readLock(path.join(root, aside))?.pid;
    out.push({ kind: 'lock', label: `${rel}${pid === undefined ? '' : ` (naming pid ${pid})`}, kept as ${aside}`, remove: [aside] });
  }
  return out;
}

/**
 * Sessions not the user's. At a start (`all` false) only those newer than the user's newest one are read,
 * newest first, so a start does not grow with the number of past sessions: only those could be resumed
 * without naming them (an older one named with --resume <id> is refused all the same).
 */
function sessions(root: string, all: boolean): SetAsideItem[] {
  const dir = path.join(root, '.devx', 'sessions');
  const names = list(root, '.devx/sessions');
  const has = new Set(names);
  const out: SetAsideItem[] = [];
  const records = names.filter((x) => /^[\w-]+\.json$/.test(x) && !x.endsWith('.transcript.json')).reverse();
  for (const n of records) {
    const whose = judge(path.join(dir, n), 'owner');
    if (whose === 'mine' && !all) break;
    const transcript = n.replace(/\.json$/, '.transcript.json');
    if (whose === 'foreign') out.push(item('session', `.devx/sessions/${n}`, has.has(transcript) ? [`.devx/sessions/${transcript}`] : []));
  }
  if (!all) return out;
  for (const n of names.filter((x) => /^[\w-]+\.transcript\.json$/.test(x))) {
    if (has.has(n.replace(/\.transcript\.json$/, '.json'))) continue;
    if (foreign(path.join(dir, n), 'owner')) out.push(item('session', `.devx/sessions/${n}`));
  }
  return out;
}

function inFolder(root: string, rel: string, kind: SetAsideKind, field: string): SetAsideItem[] {
  return list(root, rel)
    .filter((n) => n.endsWith('.json') && foreign(path.join(root, rel, n), field))
    .map((n) => item(kind, `${rel}/${n}`));
}

function workflows(root: string): SetAsideItem[] {
  return list(root, '.devx/workflows')
    .filter((id) => foreign(path.join(root, '.devx', 'workflows', id, 'state.json'), 'owner'))
    .map((id) => ({ kind: 'workflow run' as const, label: `.devx/workflows/${id}`, remove: [`.devx/workflows/${id}`] }));
}

function handoff(root: string): SetAsideItem[] {
  const text = readProjectNote(root, 'HANDOFF.md');
  return text !== undefined && text.trim() && !isOwnHandoff(root, text) ? [item('handoff', 'HANDOFF.md')] : [];
}

function item(kind: SetAsideKind, rel: string, more: string[] = []): SetAsideItem {
  return { kind, label: rel, remove: [rel, ...more] };
}

/** The devx state in `root` that is not this user's; `all`: every past session too (see sessions). */
export function findSetAside(root: string, opts: { all?: boolean } = {}): SetAsideItem[] {
  return [
    ...linkedFolders(root),
    ...locks(root),
    ...handoff(root),
    ...conversations(root),
    ...sessions(root, opts.all ?? false),
    ...inFolder(root, '.devx/agents/tasks', 'queued task', 'queuedBy'),
    ...workflows(root),
    ...inFolder(root, '.devx/undo/turns', 'undo record', 'owner'),
  ];
}

export const REMOVE_SET_ASIDE = 'devx sessions --remove-set-aside';

/** The start's one line about what is set aside; null when nothing is. */
export function setAsideLine(root: string, items = findSetAside(root)): string | null {
  if (!items.length) return null;
  const named: string[] = [];
  for (const kind of new Set(items.map((i) => i.kind))) {
    const of = items.filter((i) => i.kind === kind);
    const dir = path.posix.dirname(of[0].remove[0]);
    named.push(of.length <= 3 ? of.map((i) => i.label).join(', ') : `${of.length} ${kind}s in ${dir}/`);
  }
  const adopt = items.some((i) => i.kind === 'handoff') ? ' (a HANDOFF.md you or your Claude Code wrote: devx handoff --adopt)' : '';
  return `set aside devx state you did not write here (it came with the project, is another user's, or an older devx wrote it), so it is not resumed, run or followed: ${named.join('; ')}. Remove it: ${REMOVE_SET_ASIDE}${adopt}`;
}

/** Removes what is set aside; the paths removed, relative to `root`. */
export function removeSetAside(root: string): string[] {
  const removed: string[] = [];
  for (const i of findSetAside(root, { all: true })) {
    for (const rel of i.remove) {
      const abs = path.join(root, rel);
      // Through a linked folder above it, the path names something outside the project: never removed.
      if (linkOnTheWay(root, path.posix.dirname(rel)) || !fs.lstatSync(abs, { throwIfNoEntry: false })) continue;
      // rm does not follow a link it is given: a linked folder is unlinked, not emptied.
      fs.rmSync(abs, { recursive: true, force: true });
      removed.push(rel);
    }
  }
  return removed;
}
