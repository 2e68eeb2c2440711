// Starting the model CLI while devx itself loads. A one-shot `devx run` loads its modules before it
// spawns gemini (or claude), whose own start-up then comes on top (`npm run bench`, "one-shot process").
// When the same command in the same directory made a model call before, devx recorded how it launched
// the CLI (a "launch plan": program, arguments, environment additions, the static files it needs); the
// next run starts that process at once, and the provider adopts it only if its own launch is exactly the same.
// The plan holds devx's system prompt too, in a file named by its hash: a prompt that changed since
// gives another name, so that launch differs. The process reads its stdin only at the end of its own
// start-up; if it failed before devx was ready (gemini gives up on a stdin silent for 500 ms), it made no
// model call and devx spawns a fresh one. A warm process (`gemini --acp`) is planned the same way: it waits
// for its client, so it cannot be too early; its stdout is left unread for the client that adopts it.
// Only node built-ins are imported: this runs before the rest of devx loads.
// Named imports: the CommonJS binary then uses the builtins as they are, without copying each export
// before the spawn.
import { closeSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath, sep } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { OWNER_ENV } from './reapGroups.js';
import { fill, planFileFor, planOf, readPlan, type LaunchNeeds } from './launchPlan.js';
import { builtin } from './builtin.js';
import { replaceFileSync } from './replaceFileSync.js';
import { mkdirOwnedSync, openOwnedForWriteSync } from './ownedFile.js';

// node:child_process (with net and stream) loads only when a head start is spawned, so
// `devx --version` and commands without a plan do not pay for it here.
const childProcess = () => builtin('node:child_process');

export interface Prestarted {
  child: ChildProcess;
  pid: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Output that arrived before a provider adopted the process. */
  stdout: string[];
  stderr: string[];
  exited: boolean;
  /** Settles when the process has exited and its output streams are closed. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Where its stdout goes, when not to a pipe. */
  stdoutFile?: string;
  protocol?: boolean;
  stderrFile?: string;
}

/** How the caller would launch the process itself: a claim matches only the same kind of launch. */
export interface LaunchKind {
  stdoutToFile?: boolean;
  protocol?: boolean;
  stderrFile?: string;
}

interface State {
  devxHome: string;
  planFile: string;
  /** `<pid>-<hex>`: the run folder name createAgent uses, chosen here so the plan's paths hold. */
  runName: string;
  runDir: string;
  runNameTaken: boolean;
  prestarted: Prestarted | null;
  recorded: boolean;
}

// Kept on globalThis: the `devx` binary (a small CommonJS file that starts quicker than the ES module
// bundle) does the head start with its own copy of this module; the bundle's copy adopts from the same state.
const STATE = Symbol.for('devx.prestart');
const slot = globalThis as unknown as { [STATE]?: State };
const current = (): State | null => slot[STATE] ?? null;

/** prestart, unless this process already did it (the binary did, before loading the bundle). */
export function prestartOnce(argv: string[], cwd: string, env: NodeJS.ProcessEnv, devxHome: string): void {
  if (!slot[STATE]) prestart(argv, cwd, env, devxHome);
}

/** The words naming a one-shot command (`run`, `agent run <name>`), or null for any other command. */
export function oneShotCommand(argv: string[]): string[] | null {
  if (argv.some((a) => a === '--help' || a === '-h' || a === '--dry-run')) return null;
  if (argv[0] === 'run') return ['run'];
  if (argv[0] === 'agent' && argv[1] === 'run' && argv[2] && !argv[2].startsWith('-')) return argv.slice(0, 3);
  return null;
}

/**
 * Called by the entry point of a one-shot command: reserves the run folder and, when a launch plan
 * was recorded for this command here, starts its process. Never throws: any failure only means no head start.
 */
export function prestart(argv: string[], cwd: string, env: NodeJS.ProcessEnv, devxHome: string): void {
  const command = oneShotCommand(argv);
  slot[STATE] = undefined;
  if (env.DEVX_PRESTART === 'off' || !command) return;
  try {
    const runName = `${process.pid}-${Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0')}`;
    const runDir = join(devxHome, 'run', runName);
    const state: State = (slot[STATE] = {
      devxHome,
      planFile: planFileFor(devxHome, cwd, argv, command),
      runName,
      runDir,
      runNameTaken: false,
      prestarted: null,
      recorded: false,
    });
    const plan = readPlan(state.planFile);
    // Everything the plan creates must land in this run's own folder; a plan saying otherwise is not used.
    const inside = (p: string) => resolvePath(fill(p, runDir)).startsWith(runDir + sep);
    if (!plan) return;
    const outputs = [plan.stdoutFile, plan.stderrFile].filter((f): f is string => f !== undefined);
    if (![...plan.dirs, plan.cwd, ...Object.keys(plan.files), ...outputs].every(inside)) return;
    for (const d of [...plan.dirs, plan.cwd]) mkdirOwnedSync(fill(d, runDir), 0o700);
    for (const [f, content] of Object.entries(plan.files)) replaceFileSync(fill(f, runDir), content);
    const launchEnv = Object.fromEntries(Object.entries(plan.env).map(([k, v]) => [k, fill(v, runDir)]));
    const p: Prestarted = {
      child: null as unknown as ChildProcess,
      pid: 0,
      file: plan.file,
      args: plan.args.map((a) => fill(a, runDir)),
      cwd: fill(plan.cwd, runDir),
      env: launchEnv,
      stdout: [],
      stderr: [],
      exited: false,
      closed: Promise.resolve({ code: null, signal: null }),
    };
    // Its own process group, and the owner marker, exactly as the process runner starts children.
    const toFile = (f: string) => {
      mkdirOwnedSync(dirname(f), 0o700);
      return openOwnedForWriteSync(f);
    };
    if (plan.stdoutFile) p.stdoutFile = fill(plan.stdoutFile, runDir);
    if (plan.stderrFile) p.stderrFile = fill(plan.stderrFile, runDir);
    if (plan.protocol) p.protocol = true;
    const outFd = p.stdoutFile ? toFile(p.stdoutFile) : 'pipe';
    const errFd = p.stderrFile ? toFile(p.stderrFile) : 'pipe';
    p.child = childProcess().spawn(p.file, p.args, {
      cwd: p.cwd,
      env: { ...env, ...launchEnv, [OWNER_ENV]: String(process.pid) },
      detached: true,
      stdio: ['pipe', outFd, errFd],
    });
    for (const fd of [outFd, errFd]) if (typeof fd === 'number') closeSync(fd);
    p.child.on('error', () => (p.exited = true));
    if (!p.child.pid) {
      // The recorded program is gone (ENOENT is reported as an event, handled above): this plan is stale.
      rmSync(state.planFile, { force: true });
      return;
    }
    p.pid = p.child.pid;
    p.closed = new Promise((resolve) => {
      p.child.once('close', (code, signal) => resolve({ code, signal }));
      p.child.once('error', () => resolve({ code: null, signal: null }));
    });
    p.child.stdin?.on('error', () => {});
    // A protocol stream stays unread (and undecoded) for the client that adopts it.
    if (!p.protocol) p.child.stdout?.setEncoding('utf8').on('data', (d: string) => p.stdout.push(d));
    p.child.stderr?.setEncoding('utf8').on('data', (d: string) => p.stderr.push(d));
    p.child.once('exit', () => (p.exited = true));
    // Until a call adopts it, it must not keep devx alive: a run that ends without a call (a usage error,
    // no call of this kind) then exits as it would without it, and the exit handler below stops it.
    holdOpen(p, false);
    state.prestarted = p;
    debug(() => `started ${basename(p.file)} ahead from the launch plan ${state.planFile}, ${Math.round(performance.now())} ms after devx started`);
    // Never asked for by the time devx exits (an error, or no call of this kind any more, such as a
    // switch to the warm backend): it goes with devx, and so does the plan, so the next run does not repeat it.
    const planFile = state.planFile;
    process.on('exit', () => {
      if (state.prestarted !== p) return;
      if (!p.exited) killGroup(p.pid);
      removeOutputs(p);
      try {
        unlinkSync(planFile);
      } catch {
        /* already gone */
      }
    });
  } catch {
    /* no head start */
  }
}

/** Whether the child and its pipes keep devx's event loop alive. */
function holdOpen(p: Prestarted, hold: boolean): void {
  for (const h of [p.child, p.child.stdin, p.child.stdout, p.child.stderr] as ({ ref?(): void; unref?(): void } | null)[]) {
    if (hold) h?.ref?.();
    else h?.unref?.();
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/** The run folder name the entry point reserved, given once (to the run itself; sub-agents get their own). */
export function takeReservedRunName(devxHome: string): string | null {
  const state = current();
  if (!state || state.devxHome !== devxHome || state.runNameTaken) return null;
  state.runNameTaken = true;
  return state.runName;
}

/**
 * DEVX_DEBUG=1 says what happened to the head start (adopted, or why not) on stderr. A message that
 * needs work to build is passed as a function: its `performance.now()` loads perf_hooks, which a run
 * without DEVX_DEBUG never needs.
 */
export function debug(message: string | (() => string)): void {
  if (process.env.DEVX_DEBUG) process.stderr.write(`devx: debug: ${typeof message === 'function' ? message() : message}\n`);
}

/**
 * Hands over the pre-started process if it was launched exactly as `file args` in `cwd` with the
 * effective environment `env` (process.env plus the call's own entries); otherwise stops it. One claim per process.
 */
export function claimPrestarted(file: string, args: string[], cwd: string, env: Record<string, string | undefined>, kind: LaunchKind = {}): Prestarted | null {
  const state = current();
  const p = state?.prestarted;
  if (!state || !p) return null;
  state.prestarted = null;
  const expected = { ...process.env, ...env };
  const started = { ...process.env, ...p.env };
  const keys = new Set([...Object.keys(expected), ...Object.keys(started)]);
  const same =
    !p.exited &&
    Boolean(p.stdoutFile) === Boolean(kind.stdoutToFile) &&
    Boolean(p.protocol) === Boolean(kind.protocol) &&
    p.stderrFile === kind.stderrFile &&
    p.file === file &&
    p.cwd === cwd &&
    p.args.length === args.length &&
    p.args.every((a, i) => a === args[i]) &&
    [...keys].every((k) => k === OWNER_ENV || expected[k] === started[k]);
  if (same) {
    holdOpen(p, true);
    debug(() => `the model CLI started ahead was adopted (pid ${p.pid}), ${Math.round(performance.now())} ms after devx started`);
    return p;
  }
  debug(
    p.exited
      ? 'the model CLI started ahead had already exited; starting a fresh one'
      : 'this launch differs from the recorded plan; the model CLI started ahead was stopped',
  );
  killGroup(p.pid);
  removeOutputs(p);
  return null;
}

function removeOutputs(p: Prestarted): void {
  for (const f of [p.stdoutFile, p.stderrFile]) if (f) rmSync(f, { force: true });
}

/**
 * After a call launched the ordinary way succeeded, records its launch for the next run of this
 * command (once per process). `env` is the call's own entries; only those differing from process.env are kept.
 */
export function recordLaunch(file: string, args: string[], cwd: string, env: Record<string, string | undefined>, extra: LaunchNeeds): void {
  const state = current();
  if (!state || state.recorded) return;
  const r = state.runDir;
  // Only the run's own model launch (sub-agents have scratch folders of their own).
  if (!cwd.startsWith(r + sep)) return;
  state.recorded = true;
  const plan = planOf(file, args, cwd, env, extra, r);
  const text = `${JSON.stringify(plan, null, 1)}\n`;
  try {
    if (readFileSync(state.planFile, 'utf8') === text) return;
  } catch {
    /* none yet */
  }
  try {
    mkdirOwnedSync(dirname(state.planFile), 0o700);
    replaceFileSync(state.planFile, text);
    debug(`recorded the launch plan ${state.planFile}`);
  } catch {
    /* the next run starts without a head start */
  }
}
