// The one place devx spawns processes. Each child leads its own process group so a timeout or a
// cancel kills the whole tree (gemini re-launches itself as a child node process).
import fs from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import type { execa as Execa } from 'execa';
import { OWNER_ENV } from './reapGroups.js';
import { settleOnAnswer, type AnswerCheck } from './settleOnAnswer.js';
import { openOwnedForWriteSync } from './ownedFile.js';
import { openStdoutFile, tailFile, type FileTail } from './fileOutput.js';
import type { RunResult } from './runResult.js';
import { expectStrays, groupAlive, installExitHook, killGroup, liveGroups, reportGroupsTo, stopGroup } from './processGroups.js';
import { WATCHDOG_SOURCE } from './groupWatchdog.js';

export interface RunOptions {
  cwd: string;
  /** Written to stdin, which is then closed. */
  input?: string;
  env?: Record<string, string | undefined>;
  /** When false, only `env` is passed (no inheritance from process.env). Default true. */
  extendEnv?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Per-stream cap in bytes; output past it is cut and the child is stopped. */
  maxBuffer?: number;
  /** Told when the child's process group starts and ends (crash recovery records them). */
  observer?: ChildObserver;
  /** Told each chunk of stdout as it arrives (streaming providers); stdout is still returned whole. */
  onStdout?: (chunk: string) => void;
  /** Told each chunk of stderr as it arrives (a provider watching for its CLI's own retries). */
  onStderr?: (chunk: string) => void;
  /** This launch may be started ahead by the next run of the same one-shot command (see util/prestart). */
  launch?: LaunchInfo;
  /** Settle as soon as stdout holds a successful answer, while the process exits (util/settleOnAnswer). */
  answered?: AnswerCheck;
  /** When the child exits, stop what it left running in its process group (`cmd &`, nohup): a command's processes end with it. */
  reapGroup?: boolean;
  /**
   * stdout goes to this file (created, devx's own) instead of a pipe, and is read from it (util/fileOutput):
   * a CLI that exits right after printing loses what a pipe had not yet taken. The result's stdout,
   * onStdout, `answered` and maxBuffer work as with a pipe; the file is removed once the child has exited.
   */
  stdoutFile?: string;
  /** Also give stdout and stderr interleaved as they came (`all` in the result): a test run's log. */
  all?: boolean;
  /** Descriptors the child gets as its fds 3, 4… (bwrap's --bind-fd sources). */
  passFds?: number[];
  /**
   * A program no sandbox holds (a command a person approved): what it starts may leave its group (`setsid`, a
   * daemon), so devx's exit looks for processes carrying its marker (util/processGroups.ts).
   */
  mayLeaveGroup?: boolean;
  /**
   * False: the output is only told to onStdout and onStderr, never kept for the result (a command that runs in
   * the background keeps its own bounded tail); maxBuffer then does not apply. Default true.
   */
  keepOutput?: boolean;
}

/** What a pre-started copy of a launch needs, and how to tell it started before devx was ready. */
export interface LaunchInfo {
  dirs: string[];
  files: Record<string, string>;
  /** stderr of a run that made no model call because its system prompt or stdin came too late. */
  tooEarly: RegExp;
}

export type { RunResult } from './runResult.js';

export class BinaryMissingError extends Error {
  constructor(public readonly file: string) {
    super(`${file}: command not found`);
    this.name = 'BinaryMissingError';
  }
}

/** Injected wherever devx runs a process, so tests can substitute a fake. */
export type ProcessRunner = (file: string, args: string[], opts: RunOptions) => Promise<RunResult>;

/** Told about child process groups (the session lock and the task queue record them for crash recovery). */
export interface ChildObserver {
  started(pgid: number): void;
  ended(pgid: number): void;
}

/** A runner that also tells `observer` about every child it starts; observers of wrapped runners chain. */
export function observeChildren(runner: ProcessRunner, observer: ChildObserver): ProcessRunner {
  return (file, args, opts) => {
    const inner = opts.observer;
    const both: ChildObserver = inner
      ? { started: (g) => (inner.started(g), observer.started(g)), ended: (g) => (inner.ended(g), observer.ended(g)) }
      : observer;
    return runner(file, args, { ...opts, observer: both });
  };
}

let watchdogStarted = false;

/** Before devx's first child: the exit hook that stops its groups, and the watchdog that does if devx dies without it. */
export function ownChildren(): void {
  installExitHook();
  if (watchdogStarted) return;
  watchdogStarted = true;
  try {
    // Its own group (a Ctrl-C to devx's is not for it), no environment of devx's, and nothing that keeps devx running.
    const w = spawn(process.execPath, ['-e', WATCHDOG_SOURCE, String(process.pid)], {
      cwd: '/',
      env: { ELECTRON_RUN_AS_NODE: '1' },
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    w.on('error', () => undefined);
    w.stdin!.on('error', () => undefined);
    w.unref();
    (w.stdin as unknown as { unref?(): void }).unref?.();
    reportGroupsTo((line) => w.stdin!.write(line));
    // It mostly waits: its start-up yields to devx's own and the model CLI's, yet on a loaded machine it still
    // gets the few milliseconds it needs once devx is gone (at 19 it waited seconds behind six busy processes).
    if (w.pid) os.setPriority(w.pid, 10);
  } catch {
    // No watchdog: the exit hook, and crash recovery at the next start, still stop devx's children.
  }
}

// execa (with its dependencies, a sizeable load) loads on the first process devx spawns: a one-shot run
// whose model CLI was started ahead (runStarted) makes its model call without it.
let execaFn: typeof Execa | undefined;

/** What happened to a child on its way out, as its result tells. */
interface ExitFlags {
  timedOut: boolean;
  cancelled: boolean;
  /** What it left running in its group was killed (reapGroup). */
  reaped: boolean;
  /** Its stdout file passed maxBuffer. */
  fileCapped: boolean;
}

export const runProcess: ProcessRunner = async (file, args, opts) => {
  ownChildren();
  const started = Date.now();
  const execa = (execaFn ??= (await import('execa')).execa);
  const cap = opts.maxBuffer ?? 64 * 1024 * 1024;
  const flags: ExitFlags = { timedOut: false, cancelled: false, reaped: false, fileCapped: false };
  const outFd = opts.stdoutFile ? openStdoutFile(opts.stdoutFile) : undefined;
  if (opts.mayLeaveGroup) expectStrays();
  const child = spawnWithExeca(execa, file, args, opts, cap, outFd);
  releaseHeldPipes(child);
  let tail: FileTail | undefined;
  if (outFd !== undefined) {
    // The child holds its own copy of the descriptor now.
    fs.closeSync(outFd);
    tail = tailFile(opts.stdoutFile!, cap, () => {
      flags.fileCapped = true;
      killGroup(child.pid);
    });
  }
  const stdoutStream = tail?.stream ?? child.stdout;
  if (opts.onStdout) stdoutStream?.on('data', (d: Buffer | string) => opts.onStdout!(String(d)));
  if (opts.onStderr) child.stderr?.on('data', (d: Buffer | string) => opts.onStderr!(String(d)));
  const pid = child.pid;
  if (pid) {
    liveGroups.add(pid);
    opts.observer?.started(pid);
  }
  const stops = stopOnTimeoutOrAbort(pid, opts, flags);
  if (opts.reapGroup && pid) reapWhenLeaderExits(child, pid, flags);
  const exited = (async (): Promise<RunResult> => {
    try {
      return await resultOf(child, file, opts, { flags, tail, pid, started });
    } finally {
      tail?.close();
      stops.release();
      if (pid) {
        liveGroups.delete(pid);
        opts.observer?.ended(pid);
      }
    }
  })();
  return settleOnAnswer(exited, { stdout: stdoutStream, stderr: child.stderr }, opts.answered, started, {
    settled: () => clearTimeout(stops.timer),
    stop: () => stopGroup(pid),
  });
};

type ExecaChild = ReturnType<typeof spawnWithExeca>;

function spawnWithExeca(execa: typeof Execa, file: string, args: string[], opts: RunOptions, cap: number, outFd: number | undefined) {
  return execa(file, args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    // The marker lets crash recovery tell our orphans from a process group whose id was recycled.
    env: { ...opts.env, [OWNER_ENV]: String(process.pid) },
    extendEnv: opts.extendEnv ?? true,
    reject: false,
    detached: true,
    cleanup: true,
    stripFinalNewline: false,
    maxBuffer: cap,
    encoding: 'utf8',
    all: Boolean(opts.all),
    ...(opts.keepOutput === false ? { buffer: false } : {}),
    // A descriptor passed alone goes to spawn() as it is (execa's types list only 3-9, its runtime takes any).
    ...(opts.passFds?.length ? { stdio: ['pipe', outFd ?? 'pipe', 'pipe', ...opts.passFds] as never } : outFd !== undefined ? { stdout: outFd as 3 } : {}),
  });
}

/** A timeout and an abort both stop the child's group (and say so in `flags`); release() undoes both once it has exited. */
function stopOnTimeoutOrAbort(
  pid: number | undefined,
  opts: RunOptions,
  flags: { timedOut: boolean; cancelled: boolean },
): { timer: NodeJS.Timeout | undefined; release(): void } {
  const timer = opts.timeoutMs
    ? setTimeout(() => {
        flags.timedOut = true;
        stopGroup(pid);
      }, opts.timeoutMs)
    : undefined;
  const onAbort = () => {
    flags.cancelled = true;
    stopGroup(pid);
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    timer,
    release: () => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * The child has exited but its output stays open: a process that left its group (`setsid`, a daemon) holds the
 * pipe, and the call, a background command's stop, and devx's own exit would wait for it. After a moment for
 * what is still buffered, devx stops reading. (That process is stopped when devx exits: it carries the marker.)
 */
function releaseHeldPipes(child: ExecaChild, graceMs = 1000): void {
  child.once('exit', () => {
    const timer = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, graceMs);
    timer.unref();
    child.once('close', () => clearTimeout(timer));
  });
}

/**
 * The leader has exited: whatever is still in its group was started in the background and would outlive
 * the call (and devx). A background job holding the output pipe would also keep the call open until its timeout.
 */
function reapWhenLeaderExits(child: import('node:child_process').ChildProcess, pid: number, flags: ExitFlags): void {
  child.once('exit', () => {
    setTimeout(() => {
      if (groupAlive(pid)) {
        flags.reaped = true;
        killGroup(pid);
      }
    }, 50).unref();
  });
}

/** Waits for the child and makes its result; a program that is not there is BinaryMissingError. */
async function resultOf(
  child: ExecaChild,
  file: string,
  opts: RunOptions,
  o: { flags: ExitFlags; tail: FileTail | undefined; pid: number | undefined; started: number },
): Promise<RunResult> {
  const { flags, pid } = o;
  const r = await child;
  const cause = (r as { cause?: NodeJS.ErrnoException }).cause;
  if (cause?.code === 'ENOENT' || (r.failed && /ENOENT/.test(String(r.message)) && r.exitCode === undefined)) {
    throw new BinaryMissingError(file);
  }
  const stdout = o.tail ? o.tail.finish() : String(r.stdout ?? '');
  // Reap anything the child left behind in its group (grandchildren holding pipes).
  if (flags.timedOut || flags.cancelled || r.isMaxBuffer || flags.fileCapped) killGroup(pid);
  else if (opts.reapGroup && pid && !flags.reaped && groupAlive(pid)) {
    flags.reaped = true;
    killGroup(pid);
  }
  return {
    exitCode: r.exitCode ?? null,
    signal: r.signal ?? null,
    stdout,
    stderr: String(r.stderr ?? ''),
    ...(opts.all ? { all: String((r as { all?: string }).all ?? '') } : {}),
    timedOut: flags.timedOut,
    cancelled: flags.cancelled,
    outputCapped: Boolean(r.isMaxBuffer) || flags.fileCapped,
    durationMs: Date.now() - o.started,
    ...(flags.reaped ? { reaped: flags.reaped } : {}),
  };
}

/** A child some other code spawned (in its own process group), with the output it wrote so far. */
export interface StartedChild {
  child: import('node:child_process').ChildProcess;
  pid: number;
  stdout: string[];
  stderr: string[];
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its stdout goes to this file (see RunOptions.stdoutFile), not a pipe. */
  stdoutFile?: string;
}

/** runProcess for a child that is already running: same input, limits, cancelling and result. */
export async function runStarted(p: StartedChild, opts: RunOptions): Promise<RunResult> {
  ownChildren();
  const started = Date.now();
  const cap = opts.maxBuffer ?? 64 * 1024 * 1024;
  liveGroups.add(p.pid);
  opts.observer?.started(p.pid);
  const flags = { timedOut: false, cancelled: false };
  let outputCapped = false;
  const watch = (chunks: string[], stream: NodeJS.ReadableStream | null, tell?: (chunk: string) => void) => {
    for (const c of chunks) tell?.(c);
    let size = chunks.reduce((n, c) => n + c.length, 0);
    stream?.on('data', (d: string) => {
      tell?.(d);
      size += d.length;
      if (size > cap && !outputCapped) {
        outputCapped = true;
        killGroup(p.pid);
      }
    });
  };
  // A child writing its stdout to a file is read from the file's start: what it wrote before adoption comes first.
  const tail = p.stdoutFile
    ? tailFile(p.stdoutFile, cap, () => {
        outputCapped = true;
        killGroup(p.pid);
      })
    : undefined;
  const stdoutStream = tail?.stream ?? p.child.stdout;
  const before = { stdout: tail ? [] : [...p.stdout], stderr: [...p.stderr] };
  watch(tail ? [] : p.stdout, stdoutStream, opts.onStdout);
  watch(p.stderr, p.child.stderr, opts.onStderr);
  const stops = stopOnTimeoutOrAbort(p.pid, opts, flags);
  p.child.stdin?.end(opts.input ?? '');
  const exited = (async (): Promise<RunResult> => {
    try {
      const { code, signal } = await p.closed;
      const stdout = tail ? tail.finish() : undefined;
      if (flags.timedOut || flags.cancelled || outputCapped) killGroup(p.pid);
      const text = (chunks: string[]) => chunks.join('').slice(0, cap);
      return {
        exitCode: code,
        signal,
        stdout: stdout ?? text(p.stdout),
        stderr: text(p.stderr),
        timedOut: flags.timedOut,
        cancelled: flags.cancelled,
        outputCapped,
        durationMs: Date.now() - started,
      };
    } finally {
      tail?.close();
      stops.release();
      liveGroups.delete(p.pid);
      opts.observer?.ended(p.pid);
    }
  })();
  return settleOnAnswer(exited, { stdout: stdoutStream, stderr: p.child.stderr, before }, opts.answered, started, {
    settled: () => clearTimeout(stops.timer),
    stop: () => stopGroup(p.pid),
  });
}

export interface LongLived {
  child: import('node:child_process').ChildProcess;
  pid: number | undefined;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Kills the whole process group at once (SIGKILL): a warm model process holds nothing of devx's to save. */
  kill(): void;
}

/**
 * Starts a process that outlives one call (a warm model server). Like runProcess it leads its own
 * process group, carries the owner marker for crash recovery, is reported to the observer and is
 * killed when devx exits.
 */
export function startProcess(
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; observer?: ChildObserver; stderrFile?: string },
): LongLived {
  // stderr into a file when asked: gemini --acp writes its retry log only to a file or a terminal.
  const errFd = opts.stderrFile ? openOwnedForWriteSync(opts.stderrFile) : 'pipe';
  const child = spawn(file, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env, [OWNER_ENV]: String(process.pid) },
    detached: true,
    stdio: ['pipe', 'pipe', errFd],
  });
  if (typeof errFd === 'number') fs.closeSync(errFd);
  return keepLongLived(child, opts.observer);
}

/** A long-lived child devx owns from now on, whether it started it or adopts one started ahead (util/prestart). */
export function keepLongLived(child: import('node:child_process').ChildProcess, observer?: ChildObserver): LongLived {
  ownChildren();
  const pid = child.pid;
  if (pid) {
    liveGroups.add(pid);
    observer?.started(pid);
  }
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      if (pid && liveGroups.delete(pid)) observer?.ended(pid);
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) done();
    child.once('exit', done);
    child.once('error', done);
  });
  // No SIGTERM grace: devx would wait for gemini to shut down before it could exit. It still waits for the
  // kernel to reap it: when devx has exited, no process of its own is left, not even one being torn down.
  return { child, pid, exited, kill: () => killGroup(pid) };
}
