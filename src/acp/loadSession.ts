// `session/load` from devx's own session records: a session loaded and continued in ACP starts a
// new devx record that `resumedFrom` it, so loading the first id again follows that chain and
// restores the whole conversation.
import { dropOrphanedToolResults, type Message } from '../core/messages.js';
import { saveHistory } from '../session/history.js';
import { listRecords, loadTranscript, type SessionRecord } from '../session/sessionRecord.js';
import type { Started } from '../runtime/startSession.js';

/** The record with this id and every later record continuing it, oldest first; null if there is none. */
export function sessionChain(root: string, id: string, exclude: string): SessionRecord[] | null {
  const all = listRecords(root).filter((r) => r.id !== exclude);
  const first = all.find((r) => r.id === id);
  if (!first) return null;
  const chain: SessionRecord[] = [first];
  let current: SessionRecord = first;
  for (;;) {
    const from: string = current.id;
    const next: SessionRecord | undefined = all.filter((r) => r.resumedFrom === from).pop();
    if (!next || chain.includes(next)) return chain;
    chain.push(next);
    current = next;
  }
}

/** Restores the chain's checkpoint and conversation into the started session; returns the conversation. */
export function resumeChain(s: Started, chain: SessionRecord[]): Message[] {
  const root = s.run.agent.root;
  const { note } = s.session.resume(chain[chain.length - 1]);
  const transcript = chain.flatMap((r) => loadTranscript(root, r.id));
  const history = s.run.history;
  history.splice(0, history.length, ...dropOrphanedToolResults(transcript), { role: 'devx', content: note, at: new Date().toISOString() });
  saveHistory(s.run.agent.historyPath, history);
  return transcript;
}

/** `session/list`: the project's conversations, newest first, one per chain (sessions with no turn left out). */
export function listSessions(root: string): { sessionId: string; cwd: string; title: string | null; updatedAt: string }[] {
  const all = listRecords(root);
  const heads = all.filter((r) => !r.resumedFrom || !all.some((x) => x.id === r.resumedFrom));
  return heads
    .map((head) => {
      const chain = sessionChain(root, head.id, '') ?? [head];
      const last = chain[chain.length - 1];
      const turns = chain.reduce((n, r) => n + r.turns, 0);
      const input = [...chain].reverse().find((r) => r.lastInput)?.lastInput;
      return { sessionId: head.id, cwd: root, title: input ? input.replace(/\s+/g, ' ').slice(0, 80) : null, updatedAt: last.endedAt ?? last.startedAt, turns };
    })
    .filter((s) => s.turns > 0)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .map(({ turns: _turns, ...s }) => s);
}
