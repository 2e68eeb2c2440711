// The session lifecycle: a PID lock, a record and transcript persisted after every message, the
// task checkpoint kept by the `todo` tool, crash detection and resume, and the handoff at the end.
// It subscribes to loop events like every other sink.
import crypto from 'node:crypto';
import type { AgentEvent } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import type { ModelBackend } from '../providers/types.js';
import type { SessionHooks } from '../tools/types.js';
import { acquireLock, reapChildren, SessionLock, type LockInfo } from './sessionLock.js';
import {
  listRecords,
  newestRecord,
  loadRecord,
  loadTranscript,
  newSessionId,
  saveRecord,
  saveTranscript,
  type Checkpoint,
  type SessionRecord,
} from './sessionRecord.js';
import { remember } from './memoryFile.js';
import { bullets, readHandoff, sectionsFromDraft, writeHandoff, type Turn } from './handoff.js';
import { readPrompt } from '../util/packageRoot.js';
import type { ChildObserver } from '../util/processRunner.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import { renderCheckpoint } from '../tools/todo.js';

export class SessionBusyError extends Error {
  constructor(public readonly holder: LockInfo) {
    super(
      `another devx session (pid ${holder.pid}, session ${holder.session}, started ${holder.startedAt}) is active in this project; finish it first, or run from another checkout`,
    );
    this.name = 'SessionBusyError';
  }
}

export interface StartOptions {
  root: string;
  now?: () => Date;
}

export class Session implements SessionHooks {
  readonly record: SessionRecord;
  /** The session that ended abruptly before this one started, if any. */
  readonly crashed: SessionRecord | null;
  /** Orphaned processes of the crashed session that were killed at start. */
  readonly reaped: number;
  private readonly lock: SessionLock;
  private readonly transcript: Message[] = [];
  private readonly now: () => Date;
  private ended = false;
  /** Turns that ended with an answer (a failed or cancelled turn is not work to hand over). */
  private answered = 0;
  /** Pass to the runs of this session: their child process groups go into the lock for crash recovery. */
  readonly childObserver: ChildObserver = {
    started: (pgid) => this.lock.childStarted(pgid),
    ended: (pgid) => this.lock.childEnded(pgid),
  };

  private constructor(
    private readonly root: string,
    record: SessionRecord,
    crashed: SessionRecord | null,
    reaped: number,
    now: () => Date,
  ) {
    this.record = record;
    this.crashed = crashed;
    this.reaped = reaped;
    this.now = now;
    this.lock = new SessionLock(root, { session: record.id, startedAt: record.startedAt });
  }

  static start(opts: StartOptions): Session {
    const now = opts.now ?? (() => new Date());
    const started = now();
    const id = newSessionId(started, crypto.randomBytes(2).toString('hex'));
    const got = acquireLock(opts.root, id, started);
    if (got.status === 'busy') throw new SessionBusyError(got.holder);
    let crashed: SessionRecord | null = null;
    let reaped = 0;
    if (got.stale) {
      reaped = reapChildren(got.stale);
      crashed = loadRecord(opts.root, got.stale.session);
      if (crashed && crashed.status === 'live') {
        crashed = { ...crashed, status: 'crashed', endedAt: crashed.endedAt ?? got.stale.startedAt };
        saveRecord(opts.root, crashed);
      }
    }
    const record: SessionRecord = {
      id,
      pid: process.pid,
      startedAt: started.toISOString(),
      status: 'live',
      turns: 0,
      checkpoint: { todos: [], updatedAt: started.toISOString() },
      filesTouched: [],
      storeIds: [],
    };
    const s = new Session(opts.root, record, crashed, reaped, now);
    saveRecord(opts.root, record);
    return s;
  }

  /** Restores a past session's checkpoint; returns its transcript and a note for the model. */
  resume(from: SessionRecord): { transcript: Message[]; note: string } {
    this.record.checkpoint = { ...from.checkpoint, updatedAt: this.now().toISOString() };
    this.record.resumedFrom = from.id;
    this.save();
    const how = from.status === 'crashed' ? 'ended abruptly' : 'ended';
    const note = [
      `Resumed session ${from.id}, which ${how}${from.lastInput ? ` while working on: "${from.lastInput.slice(0, 200)}"` : ''}.`,
      `Checkpoint restored:\n${renderCheckpoint(from.checkpoint)}`,
      'Continue from the checkpoint; re-read files before editing them, as the last changes may be incomplete.',
    ].join('\n');
    return { transcript: loadTranscript(this.root, from.id), note };
  }

  getCheckpoint(): Checkpoint {
    return this.record.checkpoint;
  }

  setCheckpoint(c: { objective?: string; todos: { text: string; done: boolean }[] }): Checkpoint {
    this.record.checkpoint = { objective: c.objective, todos: c.todos, updatedAt: this.now().toISOString() };
    this.save();
    return this.record.checkpoint;
  }

  remember(fact: string) {
    return remember(this.root, fact, this.now());
  }

  private save(): void {
    saveRecord(this.root, this.record);
  }

  /** Whether the session did work to hand over: it changed a file, or a turn ended with an answer. */
  get worked(): boolean {
    return this.answered > 0 || this.record.filesTouched.length > 0;
  }

  readonly onEvent = (e: AgentEvent): void => {
    if (e.type === 'message') {
      this.transcript.push(e.message);
      saveTranscript(this.root, this.record.id, this.transcript);
      if (e.message.role === 'user') {
        this.record.lastInput = e.message.content;
        this.save();
      }
    } else if (e.type === 'tool_end' && e.outcome.status === 'ok') {
      // What a call changed comes from the tool's own description of it, not from its name.
      const shown = e.outcome.meta?.path;
      for (const loc of e.outcome.locations ?? []) {
        const p = loc.intent === 'write' ? (typeof shown === 'string' ? shown : loc.path) : null;
        if (p && !this.record.filesTouched.includes(p)) this.record.filesTouched.push(p);
      }
      for (const a of e.outcome.artifacts ?? []) if (a.startsWith('knowledge:')) this.record.storeIds.push(a.slice('knowledge:'.length));
    } else if (e.type === 'turn_end') {
      if (e.status === 'answered') this.answered++;
      this.record.turns++;
      if (e.answer) this.record.lastAnswer = e.answer;
      this.save();
    }
  };

  /**
   * Ends the session: writes HANDOFF.md (drafted by the model when it can be, else a plain summary
   * from the record, so a handoff is never lost), marks the record ended and releases the lock.
   */
  async end(opts: {
    handoff: 'model' | 'plain' | 'off';
    turn?: Turn;
    backend?: ModelBackend;
    systemPrompt?: string;
    history?: Message[];
    signal?: AbortSignal;
  }): Promise<{ handoff: 'model' | 'plain' | 'none'; error?: string }> {
    if (this.ended) return { handoff: 'none' };
    this.ended = true;
    let result: { handoff: 'model' | 'plain' | 'none'; error?: string } = { handoff: 'none' };
    try {
      // A session that changed no file and answered nothing has nothing to hand over: the baton stays as it
      // is (a GEMINI_TURN handoff from Claude is replaced only by a session that worked on it).
      if (opts.handoff !== 'off' && (this.worked || opts.turn)) {
        let sections = null;
        if (opts.handoff === 'model' && opts.backend && (this.record.turns > 0 || (opts.history?.length ?? 0) > 0)) {
          try {
            const facts = this.facts();
            const convo = (opts.history ?? [])
              .slice(-40)
              .map((m) => `[${m.role}] ${m.content.slice(0, 2000)}`)
              .join('\n\n');
            const reply = await opts.backend.complete({
              prompt: `# Conversation (latest part)\n${convo}\n\n# Task\n${readPrompt('handoff.md').replace('{{FACTS}}', facts)}`,
              systemPrompt: opts.systemPrompt ?? 'You write concise engineering handoff notes.',
              signal: opts.signal,
            });
            sections = sectionsFromDraft(reply.text);
            if (!sections) result.error = 'the model reply had no "## Summary" section';
          } catch (err) {
            result.error = (err as Error).message;
          }
        }
        const used = sections ? 'model' : 'plain';
        writeHandoff(this.root, {
          turn: opts.turn ?? 'CLAUDE_TURN',
          session: this.record.id,
          now: this.now(),
          sections: { ...(sections ?? this.plainSections()), Artifacts: this.artifacts() },
        });
        result = { ...result, handoff: used };
      }
    } finally {
      this.record.status = 'ended';
      this.record.endedAt = this.now().toISOString();
      this.save();
      // A model CLI that already answered may still be exiting (util/settleOnAnswer): the lock keeps
      // naming its group until it is gone, so a kill -9 in that window still has it reaped at the next start.
      await this.lock.releaseAfter(awaitLingering());
    }
    return result;
  }

  /** Releases the lock without a handoff (used when startup fails after the lock was taken). */
  /** Records the persona (an ACP mode) the session is in, for session/load. */
  setPersona(name: string | undefined): void {
    if (name) this.record.persona = name;
    else delete this.record.persona;
    this.save();
  }

  /** Records the model chosen in the session (ACP's model option), for session/load. */
  setModel(model: string | undefined): void {
    if (model) this.record.model = model;
    else delete this.record.model;
    this.save();
  }

  /** Stops now, even while end() is drafting the handoff (a second Ctrl-C): the record is closed and the lock released. */
  stopNow(): void {
    this.ended = true;
    this.record.status = 'ended';
    this.record.endedAt = this.now().toISOString();
    this.save();
    this.lock.release();
  }

  abandon(): void {
    if (this.ended) return;
    this.ended = true;
    this.record.status = 'ended';
    this.record.endedAt = this.now().toISOString();
    this.save();
    this.lock.release();
  }

  private facts(): string {
    const r = this.record;
    return [
      `- session: ${r.id}, ${r.turns} turns, started ${r.startedAt}`,
      `- last request: ${r.lastInput ?? '(none)'}`,
      `- files changed: ${r.filesTouched.join(', ') || 'none'}`,
      `- checkpoint:\n${renderCheckpoint(r.checkpoint).replace(/^/gm, '  ')}`,
    ].join('\n');
  }

  private plainSections() {
    const r = this.record;
    const open = r.checkpoint.todos.filter((t) => !t.done).map((t) => `- ${t.text}`);
    const done = r.checkpoint.todos.filter((t) => t.done).map((t) => `- ${t.text}`);
    return {
      Summary: `Session ${r.id} ran ${r.turns} turn${r.turns === 1 ? '' : 's'}. Last request: "${(r.lastInput ?? '').slice(0, 300)}".${r.lastAnswer ? ` Last answer: "${r.lastAnswer.slice(0, 300)}"` : ''} (Written by devx from the session record: the model could not draft this handoff.)`,
      Done: done.join('\n') || (r.filesTouched.length ? r.filesTouched.map((f) => `- Changed ${f}`).join('\n') : '- None recorded.'),
      Next: open.join('\n') || '- Review the last answer and decide the next step.',
      Blockers: '- None recorded.',
      'Open questions': '- None recorded.',
    };
  }

  private artifacts(): string {
    const r = this.record;
    const lines = r.filesTouched.map((f) => `- file: ${f}`);
    for (const id of r.storeIds) lines.push(`- knowledge: ${id} (agent: gemini)`);
    lines.push(`- session record: .devx/sessions/${r.id}.json`);
    return lines.join('\n');
  }
}

/** The short orientation shown at start: the last session, its open todos, the handoff's next items. */
export function orientation(root: string, current: Session): string {
  const lines: string[] = [];
  // A session that ran no turn (started and left) is not where work stopped: the one before it is.
  const last = current.crashed ?? newestRecord(root, (r) => r.id !== current.record.id && r.turns > 0) ?? undefined;
  if (current.crashed) {
    lines.push(
      `! The last session (${current.crashed.id}) ended abruptly${current.crashed.lastInput ? ` while working on "${current.crashed.lastInput.slice(0, 80)}"` : ''}. Resume it with /resume or devx --resume.${current.reaped ? ` (${current.reaped} orphaned process group(s) were stopped.)` : ''}`,
    );
  } else if (last) {
    lines.push(`Last session ${last.id}: ${last.turns} turn(s)${last.lastInput ? `, last request "${last.lastInput.slice(0, 80)}"` : ''}.`);
  }
  const open = last?.checkpoint.todos.filter((t) => !t.done) ?? [];
  if (open.length)
    lines.push(`Open todos${last?.checkpoint.objective ? ` (${last.checkpoint.objective})` : ''}:`, ...open.slice(0, 8).map((t) => `  - [ ] ${t.text}`));
  const next = bullets(readHandoff(root)?.sections.Next).filter((b) => b !== 'None.');
  if (next.length) lines.push('Handoff says next:', ...next.slice(0, 5).map((b) => `  - ${b}`));
  return lines.join('\n');
}

/**
 * The session to resume: the given id, else where work last stopped (the newest that ran a turn, as the start line
 * names it, whether it ended or crashed), else the newest. An older crashed session is not preferred to newer work.
 */
export function pickResume(root: string, id: string | undefined, exclude: string): SessionRecord | null {
  if (id) return listRecords(root).find((r) => r.id !== exclude && (r.id === id || r.id.endsWith(id))) ?? null;
  return newestRecord(root, (r) => r.id !== exclude && r.turns > 0) ?? newestRecord(root, (r) => r.id !== exclude);
}
