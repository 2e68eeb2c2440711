// The session's background commands (run_command with background=true): each started the way run_command
// would run it (authorized, in the claim's sandbox or as approved), given an id, its output kept as a
// bounded tail. command_output reads what arrived since the last look, stop_command and /bg stop end one
// (its whole process group, as the runner stops any child), and all of them end with the session.
// Start, stop and exit are told as events (the audit log records them). The bookkeeping per chunk of
// output is one string append; nothing runs per turn.
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
  /** Characters printed since the model last read its output. */
  unread: number;
  notes: string[];
}

interface Entry extends BackgroundView {
  tail: OutputTail;
  controller: AbortController;
  done: Promise<void>;
  pgid?: number;
  stopBy?: StopCause;
  /** Told when output arrives or the command ends (command_output waiting). */
  waiters: Set<() => void>;
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
    const { id, cmd, sandbox, state, exitCode, signal, startedAt, endedAt, notes } = e;
    return { id, cmd, sandbox, state, exitCode, signal, startedAt, ...(endedAt ? { endedAt } : {}), unread: e.tail.unread, notes: [...notes] };
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

  /** The output since the last read (marked read now), with the command's state; null for an unknown id. */
  read(id: string): { view: BackgroundView; text: string; dropped: number } | null {
    const e = this.entries.get(id);
    if (!e) return null;
    const { text, dropped } = e.tail.read();
    return { view: this.view(e), text, dropped };
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
    return this.view(e);
  }

  /** Stops every one still running and waits for them: the session ends. */
  async stopAll(by: StopCause = 'session'): Promise<void> {
    await Promise.all([...this.entries.values()].filter((e) => e.state === 'running').map((e) => this.stop(e.id, by)));
  }
}

/** A duration as /bg shows it: 850ms, 12s, 3m05s. */
function shortDuration(ms: number): string {
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
