// The session's background commands (run_command with background=true): each started the way run_command
// would run it (authorized, in the claim's sandbox or as approved), given an id, its output kept as a
// bounded tail. command_output reads what arrived since the last look, stop_command and /bg stop end one
// (its whole process group, as the runner stops any child), and all of them end with the session.
// Start, stop and exit are told as events (the audit log records them). The model is told once of each
// that ended without its asking (takeEnded, before its next request; command_output or stop_command
// telling it the end counts). The bookkeeping per chunk of output is one string append; before each model
// request the session looks for an end not yet told, a pass over its few entries.
import { OutputTail } from './outputTail.js';

/** The newest characters of output kept per command; older ones are dropped and counted. */
export const BACKGROUND_KEEP_CHARS = 100_000;

/** The longest stop waits for a command to end after its group was signalled. */
const STOP_WAIT_MS = 3000;

export type BackgroundState = 'running' | 'exited' | 'stopped';

/** Who asked a background command to stop. */
export type StopCause = 'model' | 'person' | 'session';

/** A background command starting, being asked to stop, or ending (the audit log's entries). */
export interface BackgroundEvent {
  type: 'background';
  phase: 'start' | 'stop' | 'exit';
  id: string;
  cmd: string;
  /** The sandbox it runs in (`bwrap:<profile>`), or null when it runs as approved. */
  sandbox: string | null;
  pgid?: number;
  by?: StopCause;
  exitCode?: number | null;
  signal?: string | null;
  durationMs?: number;
  /** Characters it printed in all. */
  outputChars?: number;
}

/** What the launcher is given: the command's own cancel, where its output goes, and where to say its group. */
export interface BackgroundLaunch {
  signal: AbortSignal;
  onOutput(text: string): void;
  onGroup(pgid: number): void;
}

/** How a background command ended, with lines to add (what devx moved aside after a sandboxed run). */
export interface BackgroundExit {
  exitCode: number | null;
  signal: string | null;
  notes: string[];
}

/** One background command as /bg and command_output show it. */
export interface BackgroundView {
  id: string;
  cmd: string;
  sandbox: string | null;
  state: BackgroundState;
  exitCode: number | null;
  signal: string | null;
  startedAt: number;
  endedAt?: number;
  /** Who asked it to stop, when someone did. */
  by?: StopCause;
  /** Characters printed since the model last read its output. */
  unread: number;
  notes: string[];
}

/** A command that ended, as the model is told of it: its view, and the lines of its output it has not read. */
export interface EndedCommand {
  view: BackgroundView;
  /** Lines printed since the model last read its output (of those devx still keeps). */
  unreadLines: number;
  /** Unread characters devx dropped (it keeps the newest output). */
  dropped: number;
}

interface Entry extends BackgroundView {
  tail: OutputTail;
  controller: AbortController;
  done: Promise<void>;
  pgid?: number;
  stopBy?: StopCause;
  /** Told when output arrives or the command ends (command_output waiting). */
  waiters: Set<() => void>;
  /** The model knows it ended (told by a note, command_output or stop_command), or nobody is left to tell. */
  told: boolean;
}

export class BackgroundCommands {
  private readonly entries = new Map<string, Entry>();
  private next = 1;

  constructor(
    private readonly tell: (e: BackgroundEvent) => void = () => {},
    private readonly keepChars = BACKGROUND_KEEP_CHARS,
  ) {}

  /** Starts `launch` as the next background command; returns its view at once. */
  start(cmd: string, sandbox: string | null, launch: (l: BackgroundLaunch) => Promise<BackgroundExit>): BackgroundView {
    const id = `bg${this.next++}`;
    const controller = new AbortController();
    const e: Entry = {
      id,
      cmd,
      sandbox,
      state: 'running',
      exitCode: null,
      signal: null,
      startedAt: Date.now(),
      unread: 0,
      notes: [],
      tail: new OutputTail(this.keepChars),
      controller,
      done: Promise.resolve(),
      waiters: new Set(),
      told: false,
    };
    this.entries.set(id, e);
    const onOutput = (text: string) => {
      e.tail.append(text);
      if (e.waiters.size) for (const w of [...e.waiters]) w();
    };
    const onGroup = (pgid: number) => {
      e.pgid ??= pgid;
    };
    let ended: Promise<BackgroundExit>;
    try {
      ended = launch({ signal: controller.signal, onOutput, onGroup });
    } catch (err) {
      ended = Promise.reject(err);
    }
    e.done = ended.then(
      (x) => this.finish(e, x),
      (err: unknown) => this.finish(e, { exitCode: null, signal: null, notes: [`[it did not run: ${(err as Error).message}]`] }),
    );
    this.tell({ type: 'background', phase: 'start', id, cmd, sandbox, ...(e.pgid ? { pgid: e.pgid } : {}) });
    return this.view(e);
  }

  private finish(e: Entry, x: BackgroundExit): void {
    e.state = e.stopBy ? 'stopped' : 'exited';
    e.exitCode = x.exitCode;
    e.signal = x.signal;
    e.notes.push(...x.notes);
    e.endedAt = Date.now();
    // Stopped with the session: there is no next request to tell.
    if (e.stopBy === 'session') e.told = true;
    this.tell({
      type: 'background',
      phase: 'exit',
      id: e.id,
      cmd: e.cmd,
      sandbox: e.sandbox,
      exitCode: x.exitCode,
      signal: x.signal,
      durationMs: e.endedAt - e.startedAt,
      outputChars: e.tail.size,
      ...(e.stopBy ? { by: e.stopBy } : {}),
    });
    for (const w of [...e.waiters]) w();
  }

  private view(e: Entry): BackgroundView {
    const { id, cmd, sandbox, state, exitCode, signal, startedAt, endedAt, notes, stopBy } = e;
    return {
      id,
      cmd,
      sandbox,
      state,
      exitCode,
      signal,
      startedAt,
      ...(endedAt ? { endedAt } : {}),
      ...(stopBy ? { by: stopBy } : {}),
      unread: e.tail.unread,
      notes: [...notes],
    };
  }

  list(): BackgroundView[] {
    return [...this.entries.values()].map((e) => this.view(e));
  }

  /** How many are still running. */
  get running(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.state === 'running') n++;
    return n;
  }

  /** The output since the last read (marked read now), with the command's state; null for an unknown id. An end read here is told. */
  read(id: string): { view: BackgroundView; text: string; dropped: number } | null {
    const e = this.entries.get(id);
    if (!e) return null;
    const { text, dropped } = e.tail.read();
    if (e.state !== 'running') e.told = true;
    return { view: this.view(e), text, dropped };
  }

  /** What it printed that devx still keeps, read by the model or not, without marking it read (what /bg shows a person); null for an unknown id. */
  output(id: string): string | null {
    return this.entries.get(id)?.tail.text() ?? null;
  }

  /** The model was told how it ended (stop_command's answer): no note about it follows. */
  acknowledge(id: string): void {
    const e = this.entries.get(id);
    if (e && e.state !== 'running') e.told = true;
  }

  /**
   * The commands that ended since the model last heard (by themselves, or stopped by the person), each given
   * once: marked told now. The session asks before each model request (a note in the conversation).
   */
  takeEnded(): EndedCommand[] {
    const ended: EndedCommand[] = [];
    for (const e of this.entries.values()) {
      if (e.state === 'running' || e.told) continue;
      e.told = true;
      ended.push({ view: this.view(e), unreadLines: e.tail.unreadLines(), dropped: e.tail.unread - e.tail.peek().length });
    }
    return ended;
  }

  /**
   * Waits (at most `ms`) until the output not yet read matches `until` (any new output when absent), the
   * command ends, or `signal` aborts. Resolves at once for an unknown or ended command.
   */
  wait(id: string, opts: { until?: RegExp; ms: number; signal?: AbortSignal }): Promise<void> {
    const e = this.entries.get(id);
    if (!e || e.state !== 'running' || opts.ms <= 0) return Promise.resolve();
    const met = () => e.state !== 'running' || (opts.until ? opts.until.test(e.tail.peek()) : e.tail.unread > 0);
    if (met()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        e.waiters.delete(check);
        opts.signal?.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        if (met()) done();
      };
      const timer = setTimeout(done, opts.ms);
      e.waiters.add(check);
      opts.signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Stops one (its whole process group) and waits for it to end; null for an unknown id. */
  async stop(id: string, by: StopCause): Promise<BackgroundView | null> {
    const e = this.entries.get(id);
    if (!e) return null;
    if (e.state === 'running' && !e.stopBy) {
      e.stopBy = by;
      this.tell({ type: 'background', phase: 'stop', id, cmd: e.cmd, sandbox: e.sandbox, by, ...(e.pgid ? { pgid: e.pgid } : {}) });
      e.controller.abort();
    }
    // SIGTERM, then SIGKILL a second later (util/processGroups.ts); a descendant that left the group and holds
    // the output pipe must not hold the session's end too.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([e.done, new Promise((r) => (timer = setTimeout(r, STOP_WAIT_MS)))]);
    clearTimeout(timer);
    // The model that stopped it hears how it ended in stop_command's answer.
    if (by === 'model') this.acknowledge(id);
    return this.view(e);
  }

  /** Stops every one still running and waits for them: the session ends. */
  async stopAll(by: StopCause = 'session'): Promise<void> {
    await Promise.all([...this.entries.values()].filter((e) => e.state === 'running').map((e) => this.stop(e.id, by)));
  }
}

/** A duration as /bg shows it: 850ms, 12s, 3m05s. */
export function shortDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** A view's state in words: running, exited 0, stopped (SIGTERM). */
export function describeState(v: BackgroundView): string {
  if (v.state === 'running') return 'running';
  const how = v.exitCode !== null ? `exit ${v.exitCode}` : v.signal ? v.signal : 'no exit code';
  return `${v.state} (${how})`;
}

/** /bg's table: one line per background command of the session. */
export function renderBackgroundList(views: BackgroundView[], now = Date.now()): string {
  if (!views.length) return 'No background commands in this session.\n';
  return views
    .map((v) => {
      const took = shortDuration((v.endedAt ?? now) - v.startedAt);
      const unread = v.unread ? `, ${v.unread} chars unread` : '';
      return `  ${v.id.padEnd(5)} ${describeState(v).padEnd(20)} ${took.padStart(6)}${unread}  ${v.cmd.split('\n')[0].slice(0, 80)}\n`;
    })
    .join('');
}

/** A command as a note quotes it: its first line, at most 80 characters. */
function quotedCmd(cmd: string): string {
  const first = cmd.split('\n')[0];
  return `\`${first.length > 80 ? `${first.slice(0, 79)}…` : first}${cmd.includes('\n') ? ' …' : ''}\``;
}

/**
 * What the model is told, once, of a background command that ended without its asking: how it ended, how
 * long it ran, and how much of its output it has not read, with the call that reads it.
 */
export function endNotice(ended: EndedCommand): string {
  const v = ended.view;
  const took = shortDuration((v.endedAt ?? v.startedAt) - v.startedAt);
  const sig = v.signal ? ` (${v.signal})` : v.exitCode !== null ? ` (exit code ${v.exitCode})` : '';
  const how =
    v.by === 'person'
      ? `was stopped by the user after ${took}${sig}`
      : v.by
        ? `ended after ${took}, stopped as you asked${sig}`
        : v.exitCode !== null
          ? `exited with code ${v.exitCode} after ${took}`
          : v.signal
            ? `was ended by ${v.signal} after ${took}`
            : `ended without an exit code after ${took}`;
  const notes = v.notes.length ? ` ${v.notes.join(' ')}` : '';
  const lines = ended.unreadLines === 1 ? '1 line' : `${ended.unreadLines} lines`;
  const dropped = ended.dropped ? ` (and ${ended.dropped} earlier characters devx dropped: it keeps the newest output)` : '';
  const unread = ended.unreadLines
    ? ` It printed ${lines} you have not read${dropped}; read them with: TOOL_CALL: command_output | id=${v.id}`
    : ` It printed nothing you have not read.`;
  return `Background command ${v.id} (${quotedCmd(v.cmd)}) ${how}.${notes}${unread}`;
}
