// Session records under .devx/sessions/: one JSON file per session (status, checkpoint, what it
// touched) and its transcript, both replaced atomically after every change.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { writeStateSync } from '../util/atomicWrite.js';
import type { Message } from '../core/messages.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { foreignState, ownerId } from './ownerId.js';
import { readStateText } from '../util/readRegularFileSync.js';

const TodoSchema = z.object({ text: z.string(), done: z.boolean() });
export const CheckpointSchema = z.object({ objective: z.string().optional(), todos: z.array(TodoSchema), updatedAt: z.string() });
const RecordSchema = z.object({
  id: z.string(),
  pid: z.number(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  status: z.enum(['live', 'ended', 'crashed']),
  turns: z.number(),
  lastInput: z.string().optional(),
  lastAnswer: z.string().optional(),
  checkpoint: CheckpointSchema,
  filesTouched: z.array(z.string()),
  storeIds: z.array(z.string()),
  resumedFrom: z.string().optional(),
  /** Who wrote it (session/ownerId.ts): a session that came with a clone is never resumed. */
  owner: z.string().optional(),
  /** The persona the session was in (an agent's name; an ACP mode), restored by session/load. */
  persona: z.string().optional(),
  /** The model chosen in the session (ACP's model option), restored by session/load. */
  model: z.string().optional(),
});

export type Todo = z.infer<typeof TodoSchema>;
export type Checkpoint = z.infer<typeof CheckpointSchema>;
export type SessionRecord = z.infer<typeof RecordSchema>;

export function sessionsDir(root: string): string {
  return path.join(root, '.devx', 'sessions');
}

export function saveRecord(root: string, rec: SessionRecord): void {
  mkdirOwnedSync(sessionsDir(root));
  const owner = rec.owner ?? ownerId() ?? undefined;
  writeStateSync(path.join(sessionsDir(root), `${rec.id}.json`), JSON.stringify({ ...rec, ...(owner ? { owner } : {}) }, null, 1) + '\n');
}

export function saveTranscript(root: string, id: string, messages: Message[]): void {
  mkdirOwnedSync(sessionsDir(root));
  const owner = ownerId();
  writeStateSync(path.join(sessionsDir(root), `${id}.transcript.json`), JSON.stringify({ version: 1, ...(owner ? { owner } : {}), messages }) + '\n');
}

export function loadTranscript(root: string, id: string): Message[] {
  try {
    const file = path.join(sessionsDir(root), `${id}.transcript.json`);
    const t = JSON.parse(readStateText(file)) as { owner?: string; messages: Message[] };
    return foreignState(file, t.owner, sessionsDir(root)) ? [] : t.messages;
  } catch {
    return [];
  }
}

export function loadRecord(root: string, id: string): SessionRecord | null {
  try {
    const file = path.join(sessionsDir(root), `${id}.json`);
    const rec = RecordSchema.parse(JSON.parse(readStateText(file)));
    // Another user's session, or one committed to the repository, is not this user's to resume.
    return foreignState(file, rec.owner, sessionsDir(root)) ? null : rec;
  } catch {
    return null;
  }
}

/** All readable session records, oldest first. Unreadable files are skipped, not deleted. */
export function listRecords(root: string): SessionRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(sessionsDir(root));
  } catch {
    return [];
  }
  return names
    .filter((n) => /^[\w-]+\.json$/.test(n) && !n.endsWith('.transcript.json'))
    .map((n) => loadRecord(root, n.replace(/\.json$/, '')))
    .filter((r): r is SessionRecord => r !== null)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/**
 * The newest readable record that `match` accepts, reading from the newest file back (ids sort by
 * start time), so start-up does not grow with the number of past sessions.
 */
export function newestRecord(root: string, match: (r: SessionRecord) => boolean = () => true): SessionRecord | null {
  let names: string[];
  try {
    names = fs.readdirSync(sessionsDir(root));
  } catch {
    return null;
  }
  const ids = names
    .filter((n) => /^[\w-]+\.json$/.test(n) && !n.endsWith('.transcript.json'))
    .map((n) => n.replace(/\.json$/, ''))
    .sort()
    .reverse();
  for (const id of ids) {
    const r = loadRecord(root, id);
    if (r && match(r)) return r;
  }
  return null;
}

/** Session ids are short, sortable and unique enough for one project: 20261121-221403-ab12. */
export function newSessionId(now: Date, rand: string): string {
  const iso = now.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${rand}`;
}
