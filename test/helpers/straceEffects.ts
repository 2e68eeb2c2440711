// A differential checker for the command policy: it runs the commands the policy
// allows, for real, under strace, in a throwaway copy of a fixture project, and compares what they did
// (programs run, files written, secrets read, sockets connected) with what the policy claimed they may do
// (SandboxClaim). The fixture snapshot before and after each run (sha1 and mode of every file) is the
// ground truth that the strace log cross-checks. Used by test/policy/effects.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import type { Node, Parser } from 'web-tree-sitter';
import type { SandboxClaim } from '../../src/policy/types.js';
import { PROTECTED_NAMES } from '../../src/sandbox/sandboxPaths.js';

// ---------------------------------------------------------------------------------------------------
// strace
// ---------------------------------------------------------------------------------------------------

/** The syscalls traced: the brief's list, plus what the parser needs to follow processes and their cwd. */
export const TRACED_SYSCALLS = [
  'execve',
  'execveat',
  'openat',
  'open',
  'openat2',
  'creat',
  'rename',
  'renameat',
  'renameat2',
  'unlink',
  'unlinkat',
  'mkdir',
  'mkdirat',
  'symlink',
  'symlinkat',
  'link',
  'linkat',
  'truncate',
  'chmod',
  'fchmodat',
  'fchmod',
  'chown',
  'lchown',
  'fchownat',
  'utimensat',
  'mknod',
  'mknodat',
  'connect',
  // bookkeeping: process tree and working directory
  'clone',
  'clone3',
  'fork',
  'vfork',
  'chdir',
  'fchdir',
];

/**
 * strace options that depend on its version: --seccomp-bpf stops only at the traced syscalls (much
 * faster); --decode-pids=pidns gives a clone's child in strace's pid namespace (bwrap makes its own).
 */
let versionOpts: string[] = [];

/** The strace binary, or null when it is not installed or cannot trace here. */
export function findStrace(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir, 'strace');
    try {
      fs.accessSync(p, fs.constants.X_OK);
    } catch {
      continue;
    }
    try {
      execFileSync(p, ['-f', '-qq', '-o', '/dev/null', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      return null; // installed but ptrace is not allowed here
    }
    versionOpts = [];
    for (const opt of ['--seccomp-bpf', '--decode-pids=pidns']) {
      try {
        execFileSync(p, ['-f', '-qq', opt, '-e', 'trace=execve', '-o', '/dev/null', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
        versionOpts.push(opt);
      } catch {
        // this strace lacks it
      }
    }
    return p;
  }
  return null;
}

/**
 * Whether strace can follow a program into bwrap here (a setuid bwrap, or a kernel that refuses
 * ptrace across the namespaces, leaves nothing to observe): null if it can, else why not.
 */
export function probeTracedBwrap(strace: string, bwrap: string, scratch: string): string | null {
  const log = path.join(scratch, 'probe-bwrap.log');
  try {
    execFileSync(
      strace,
      [
        '-f',
        '-qq',
        ...versionOpts,
        '-e',
        'trace=execve',
        '-o',
        log,
        '--',
        bwrap,
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--unshare-net',
        '--die-with-parent',
        'bash',
        '-c',
        'true',
      ],
      { stdio: 'pipe', timeout: 15_000 },
    );
  } catch (err) {
    return `bwrap does not start under strace (${
      String((err as { stderr?: Buffer }).stderr ?? err)
        .trim()
        .split('\n')[0]
    })`;
  }
  const text = fs.readFileSync(log, 'utf8');
  return /execve\("[^"]*\/bash", .*\) = 0/.test(text) ? null : 'strace does not see the programs bwrap starts';
}

export interface TracedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  log: string;
  ms: number;
}

const OUTPUT_CAP = 256 * 1024;

/**
 * Runs `file args` under `strace -f` (log to `logFile`), with a timeout after which the whole process
 * group and every traced process the log names are killed.
 */
export function runTraced(opts: {
  strace: string;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  logFile: string;
  timeoutMs: number;
  /** Descriptors the traced command gets as its fds 3, 4… (a sandboxed command's --bind-fd sources). */
  fds?: number[];
}): Promise<TracedRun> {
  const started = Date.now();
  const straceArgs = [
    '-f',
    '-qq',
    '-y',
    '-s',
    '256',
    ...versionOpts,
    '-e',
    `trace=${TRACED_SYSCALLS.join(',')}`,
    '-o',
    opts.logFile,
    '--',
    opts.file,
    ...opts.args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(opts.strace, straceArgs, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe', ...(opts.fds ?? [])] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => stdout.length < OUTPUT_CAP && (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => stderr.length < OUTPUT_CAP && (stderr += d.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child.pid!, opts.logFile);
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A sandboxed command runs in a session of its own (bwrap --new-session): kill what is left of it.
      if (timedOut) killTree(child.pid!, opts.logFile);
      let log = '';
      try {
        log = fs.readFileSync(opts.logFile, 'utf8');
      } catch {
        // strace never started
      }
      resolve({ code, signal, timedOut, stdout, stderr, log, ms: Date.now() - started });
    });
  });
}

/** SIGKILL the process group of strace and every process the trace log names (all started by this run). */
function killTree(pgid: number, logFile: string): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone
  }
  let log = '';
  try {
    log = fs.readFileSync(logFile, 'utf8');
  } catch {
    return;
  }
  const pids = new Set<number>();
  for (const m of log.matchAll(/^(\d+) /gm)) pids.add(Number(m[1]));
  for (const pid of pids) {
    if (pid === process.pid || pid <= 1) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Parsing the log into effects
// ---------------------------------------------------------------------------------------------------

export type EffectKind = 'exec' | 'write' | 'read-denied' | 'connect-inet' | 'connect-unix';

export interface Effect {
  kind: EffectKind;
  syscall: string;
  /** The resolved path (exec, write, read) or the address (connect). */
  target: string;
  pid: number;
  line: string;
}

interface Call {
  pid: number;
  name: string;
  args: string[];
  ret: number | null;
  /** The path strace printed for a returned fd (-y). */
  retPath?: string;
  /** A clone's child as strace sees it (--decode-pids=pidns), else its return value. */
  child?: number;
  line: string;
  index: number;
}

/** One complete syscall per entry; `<unfinished ...>` and `<... resumed>` halves joined per pid. */
export function parseCalls(log: string): Call[] {
  const calls: Call[] = [];
  const pending = new Map<number, string>();
  let index = 0;
  for (const raw of log.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const pid = Number(m[1]);
    let rest = m[2];
    if (rest.startsWith('---') || rest.startsWith('+++')) continue;
    const resumed = /^<\.\.\. (\w+) resumed>\s?(.*)$/.exec(rest);
    if (resumed) {
      const head = pending.get(pid);
      pending.delete(pid);
      if (head === undefined) continue;
      rest = head + resumed[2];
    }
    const unfinished = /^(.*?)\s*<unfinished \.\.\.>$/.exec(rest);
    if (unfinished) {
      pending.set(pid, unfinished[1]);
      continue;
    }
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(.*)$/s.exec(rest);
    if (!call) continue;
    const ret = call[3] === '?' ? null : Number(call[3]);
    const after = call[4];
    const fdPath = /^<(.*)>/.exec(after);
    const nsPid = /\/\* (\d+) in strace's PID NS \*\//.exec(after);
    const child = ret !== null && ret > 0 ? (nsPid ? Number(nsPid[1]) : ret) : undefined;
    calls.push({ pid, name: call[1], args: splitArgs(call[2]), ret, retPath: fdPath ? fdPath[1] : undefined, child, line: `${pid} ${rest}`, index: index++ });
  }
  return calls;
}

/** Splits strace's argument list at top-level commas (strings, brackets and -y path annotations kept whole). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let inStr = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (inStr) {
      cur += ch;
      if (ch === '\\') {
        cur += s[++i] ?? '';
      } else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') {
      inStr = true;
      cur += ch;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{' || (ch === '<' && /[0-9A-Za-z_]$/.test(cur))) depth++;
    else if (ch === ')' || ch === ']' || ch === '}' || (ch === '>' && depth > 0)) depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

/** The text of a C-quoted strace string ("..." with escapes; a trailing ... means truncated). */
export function unquote(arg: string): string | null {
  const m = /^"((?:[^"\\]|\\.)*)"(\.\.\.)?$/s.exec(arg);
  if (!m) return null;
  const bytes: number[] = [];
  const s = m[1];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const n = s[++i];
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8, '\\': 92, '"': 34, "'": 39, '?': 63 };
    if (n === 'x') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (n >= '0' && n <= '7') {
      const oct = /^[0-7]{1,3}/.exec(s.slice(i))![0];
      bytes.push(parseInt(oct, 8));
      i += oct.length - 1;
    } else bytes.push(simple[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The path -y printed for an fd argument (`3</a/b>`, `AT_FDCWD</a>`), or null. */
function fdPath(arg: string | undefined): string | null {
  if (!arg) return null;
  const m = /^(?:-?\d+|AT_FDCWD)<(.*)>$/s.exec(arg);
  return m ? m[1] : null;
}

const WRITE_FLAGS = /\b(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND)\b/;

export interface ParseOptions {
  /** The working directory the first traced program starts in. */
  cwd: string;
  /** Real paths of the canary files; any successful open of one is a denied read. */
  canaries: string[];
  /** Whether the log came with --decode-pids=pidns (default: whether this strace supports it). */
  pidsDecoded?: boolean;
}

/** Whether runTraced's strace prints a clone's child in its own pid namespace (--decode-pids=pidns). */
export function straceDecodesPids(): boolean {
  return versionOpts.includes('--decode-pids=pidns');
}

export interface Parsed {
  effects: Effect[];
  /** Index of the first execve of bash (effects before it are the sandbox's own setup); -1 if none. */
  bashExec: number;
  calls: number;
}

/**
 * Turns a strace log into effects: only successful calls, only from the first `bash` exec on, only in
 * that bash process and its descendants. Paths are resolved against the -y annotations (the kernel's
 * view of an fd or of AT_FDCWD) and, where strace prints none, against the cwd tracked per process.
 */
export function parseEffects(log: string, opts: ParseOptions): Parsed {
  const calls = parseCalls(log);
  const canaries = new Set(opts.canaries.map(realish));
  const cwd = new Map<number, string>();
  const parent = new Map<number, number>();
  const firstPid = calls[0]?.pid;
  if (firstPid !== undefined) cwd.set(firstPid, opts.cwd);
  const bash = calls.find((c) => (c.name === 'execve' || c.name === 'execveat') && c.ret === 0 && path.basename(execPathOf(c) ?? '') === 'bash');
  // The process tree first (a clone's return may be logged after the child's first calls): bash and
  // every process it started after its exec.
  const CLONES = ['clone', 'clone3', 'fork', 'vfork'];
  const isClone = (c: Call) => CLONES.includes(c.name) && c.child !== undefined;
  for (const c of calls) if (isClone(c)) parent.set(c.child!, c.pid);
  const tracked = new Set<number>();
  if (bash) {
    tracked.add(bash.pid);
    for (let grew = true; grew;) {
      grew = false;
      for (const c of calls) {
        if (!isClone(c) || tracked.has(c.child!) || !tracked.has(c.pid)) continue;
        if (c.pid === bash.pid && c.index < bash.index) continue;
        tracked.add(c.child!);
        grew = true;
      }
    }
    // Without --decode-pids=pidns a clone inside the sandbox returns the child's pid in bwrap's pid
    // namespace: then every process first seen after bash started is counted as bash's (stricter).
    const seen = new Set<number>();
    for (const c of (opts.pidsDecoded ?? straceDecodesPids()) ? [] : calls) {
      if (c.index > bash.index && !seen.has(c.pid) && !parent.has(c.pid)) tracked.add(c.pid);
      seen.add(c.pid);
    }
  }
  const effects: Effect[] = [];
  const cwdOf = (pid: number) => cwd.get(pid) ?? cwd.get(parent.get(pid) ?? -1) ?? opts.cwd;
  const resolveAt = (pid: number, dirArg: string | undefined, p: string | null): string | null => {
    if (p === null) return null;
    if (path.isAbsolute(p)) return path.normalize(p);
    const base = fdPath(dirArg) ?? cwdOf(pid);
    return path.resolve(base, p);
  };
  for (const c of calls) {
    // -y prints the cwd with every AT_FDCWD: the kernel's word for where the process is.
    for (const a of c.args) {
      const m = /^AT_FDCWD<(.*)>$/.exec(a);
      if (m) cwd.set(c.pid, m[1]);
    }
    const ok = c.ret !== null && c.ret >= 0;
    if (isClone(c)) {
      if (!cwd.has(c.child!)) cwd.set(c.child!, cwdOf(c.pid));
      continue;
    }
    if (c.name === 'chdir' && ok) {
      const p = resolveAt(c.pid, undefined, unquote(c.args[0] ?? ''));
      if (p) cwd.set(c.pid, p);
      continue;
    }
    if (c.name === 'fchdir' && ok) {
      const p = fdPath(c.args[0]);
      if (p) cwd.set(c.pid, p);
      continue;
    }
    if (!bash || c.index < bash.index || !tracked.has(c.pid) || !ok) continue;
    const add = (kind: EffectKind, target: string | null) => target !== null && effects.push({ kind, syscall: c.name, target, pid: c.pid, line: c.line });
    switch (c.name) {
      case 'execve':
      case 'execveat': {
        const p = c.name === 'execve' ? resolveAt(c.pid, undefined, unquote(c.args[0] ?? '')) : resolveAt(c.pid, c.args[0], unquote(c.args[1] ?? ''));
        add('exec', p);
        break;
      }
      case 'open':
      case 'openat':
      case 'openat2':
      case 'creat': {
        const [dir, p, flags] =
          c.name === 'open'
            ? [undefined, c.args[0], c.args[1]]
            : c.name === 'creat'
              ? [undefined, c.args[0], 'O_CREAT|O_WRONLY|O_TRUNC']
              : [c.args[0], c.args[1], c.args[2]];
        const target = c.retPath && path.isAbsolute(c.retPath) ? c.retPath : (c.retPath ?? resolveAt(c.pid, dir, unquote(p ?? '')));
        if (target === null) break;
        if (WRITE_FLAGS.test(flags ?? '')) add('write', target);
        if (canaries.has(realish(target))) add('read-denied', target);
        break;
      }
      case 'rename':
      case 'link':
        add('write', resolveAt(c.pid, undefined, unquote(c.args[1] ?? '')));
        if (c.name === 'rename') add('write', resolveAt(c.pid, undefined, unquote(c.args[0] ?? '')));
        break;
      case 'renameat':
      case 'renameat2':
      case 'linkat':
        add('write', resolveAt(c.pid, c.args[2], unquote(c.args[3] ?? '')));
        if (c.name !== 'linkat') add('write', resolveAt(c.pid, c.args[0], unquote(c.args[1] ?? '')));
        break;
      case 'symlink':
        add('write', resolveAt(c.pid, undefined, unquote(c.args[1] ?? '')));
        break;
      case 'symlinkat':
        add('write', resolveAt(c.pid, c.args[1], unquote(c.args[2] ?? '')));
        break;
      case 'unlink':
      case 'mkdir':
      case 'truncate':
      case 'chmod':
      case 'chown':
      case 'lchown':
      case 'mknod':
        add('write', resolveAt(c.pid, undefined, unquote(c.args[0] ?? '')));
        break;
      case 'unlinkat':
      case 'mkdirat':
      case 'fchmodat':
      case 'fchownat':
      case 'mknodat':
        add('write', resolveAt(c.pid, c.args[0], unquote(c.args[1] ?? '')));
        break;
      case 'utimensat': {
        const p = unquote(c.args[1] ?? '');
        add('write', p === null ? fdPath(c.args[0]) : resolveAt(c.pid, c.args[0], p));
        break;
      }
      case 'fchmod':
        add('write', fdPath(c.args[0]));
        break;
      case 'connect': {
        const addr = c.args[1] ?? '';
        if (/sa_family=AF_INET6?\b/.test(addr)) add('connect-inet', addr);
        else if (/sa_family=AF_UNIX\b/.test(addr)) add('connect-unix', addr);
        break;
      }
    }
  }
  return { effects, bashExec: bash?.index ?? -1, calls: calls.length };
}

function execPathOf(c: Call): string | null {
  return c.name === 'execve' ? unquote(c.args[0] ?? '') : unquote(c.args[1] ?? '');
}

/** The real path when it (or its folder) exists, else the path normalized. */
export function realish(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(p)), path.basename(p));
    } catch {
      return path.normalize(p);
    }
  }
}

function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

// ---------------------------------------------------------------------------------------------------
// Judging
// ---------------------------------------------------------------------------------------------------

/** Where an unsandboxed command may write: nothing but these. */
function harmlessSink(p: string): boolean {
  return (
    p === '/dev/null' ||
    p === '/dev/tty' ||
    /^\/proc\/(self|thread-self|\d+)\//.test(p) ||
    /^(pipe|socket|anon_inode):/.test(p) ||
    p === '/dev/stdout' ||
    p === '/dev/stderr'
  );
}

export interface UnsandboxedRules {
  /** Real paths of the programs the line names (resolved via PATH), bash included. */
  programs: Set<string>;
  /** Folders whose programs are a named command's own helpers (git --exec-path). */
  helperDirs: string[];
}

/** Unsandboxed: no write but to /dev/null and the like, no secret read, no inet connect, no program the line does not name. */
export function judgeUnsandboxed(effects: Effect[], rules: UnsandboxedRules): Effect[] {
  return effects.filter((e) => {
    switch (e.kind) {
      case 'write':
        return !harmlessSink(e.target);
      case 'read-denied':
      case 'connect-inet':
        return true;
      case 'connect-unix':
        return false; // reported, not convicted
      case 'exec': {
        const real = realish(e.target);
        if (rules.programs.has(e.target) || rules.programs.has(real)) return false;
        return !rules.helperDirs.some((d) => inside(d, real) || inside(d, e.target));
      }
    }
  });
}

/** One mount the sandbox makes, in bwrap's order: `real` shows the disk at `src` (read-only or not); `private` is a tmpfs, devtmpfs or proc. */
export interface Mount {
  dest: string;
  kind: 'real' | 'private';
  src?: string;
  ro?: boolean;
}

/** How many values each bwrap option takes (an option not listed fails the parse: the checker must learn it). */
const BWRAP_ARITY: Record<string, number> = {
  '--bind': 2,
  '--bind-try': 2,
  '--dev-bind': 2,
  '--dev-bind-try': 2,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  // devx binds a folder of the project by a descriptor it opened, at the folder's own path.
  '--bind-fd': 2,
  '--ro-bind-fd': 2,
  '--tmpfs': 1,
  '--dev': 1,
  '--proc': 1,
  '--mqueue': 1,
  '--dir': 1,
  '--remount-ro': 1,
  '--chdir': 1,
  '--setenv': 2,
  '--unsetenv': 1,
  '--hostname': 1,
  '--perms': 1,
  '--size': 1,
  '--symlink': 2,
  '--file': 2,
  '--bind-data': 2,
  '--ro-bind-data': 2,
  '--uid': 1,
  '--gid': 1,
  '--cap-add': 1,
  '--cap-drop': 1,
  '--seccomp': 1,
  '--add-seccomp-fd': 1,
  '--sync-fd': 1,
  '--info-fd': 1,
  '--json-status-fd': 1,
  '--block-fd': 1,
  '--userns-block-fd': 1,
  '--lock-file': 1,
  '--argv0': 1,
  '--chmod': 2,
  '--unshare-all': 0,
  '--share-net': 0,
  '--unshare-user': 0,
  '--unshare-user-try': 0,
  '--unshare-ipc': 0,
  '--unshare-pid': 0,
  '--unshare-net': 0,
  '--unshare-uts': 0,
  '--unshare-cgroup': 0,
  '--unshare-cgroup-try': 0,
  '--die-with-parent': 0,
  '--new-session': 0,
  '--as-pid-1': 0,
  '--clearenv': 0,
  '--disable-userns': 0,
  '--assert-userns-disabled': 0,
};

/** The mount table a bwrap command line builds (everything before `--`). */
export function mountsFromBwrapArgs(args: string[]): Mount[] {
  const out: Mount[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    const n = BWRAP_ARITY[a];
    if (n === undefined) throw new Error(`straceEffects: unknown bwrap option ${a}; teach mountsFromBwrapArgs what it mounts`);
    if (/^--(ro-)?bind(-try)?$|^--dev-bind(-try)?$/.test(a)) out.push({ src: args[i + 1], dest: args[i + 2], kind: 'real', ro: a.startsWith('--ro') });
    else if (/^--(ro-)?bind-fd$/.test(a)) out.push({ src: args[i + 2], dest: args[i + 2], kind: 'real', ro: a.startsWith('--ro') });
    else if (['--tmpfs', '--dev', '--proc', '--mqueue'].includes(a)) out.push({ dest: args[i + 1], kind: 'private' });
    else if (a === '--remount-ro') {
      // the mount at that path becomes read-only
      for (let k = out.length - 1; k >= 0; k--)
        if (out[k].dest === args[i + 1]) {
          out[k] = { ...out[k], ro: true };
          break;
        }
    }
    i += n;
  }
  return out;
}

export interface SandboxLayout {
  root: string;
  /** Whether a folder existed before the run (a write claim makes the nearest existing folder writable). */
  existed?: (dir: string) => boolean;
  /** The sandbox's mounts (mountsFromBwrapArgs); a path under none of them is on bwrap's own tmpfs root. */
  mounts: Mount[];
}

/**
 * Where a write inside the sandbox lands: the last mount whose destination holds the path decides
 * (a later mount hides what was mounted under it before). null: a private tmpfs, /dev or /proc.
 */
export function realTarget(p: string, mounts: Mount[]): { real: string; ro: boolean } | null {
  let m: Mount | undefined;
  for (const x of mounts) if (inside(x.dest, p)) m = x;
  if (!m || m.kind === 'private') return null;
  const real = path.join(m.src!, path.relative(m.dest, p));
  return { real, ro: m.ro === true };
}

/** Whether the claim lets a command write `p` (an absolute path inside the project). */
export function claimAllowsWrite(claim: SandboxClaim, root: string, p: string, existed: (dir: string) => boolean = isDir): boolean {
  if (!inside(root, p)) return false;
  const rel = path.relative(root, p);
  const top = rel.split(path.sep)[0];
  if (PROTECTED_NAMES.includes(top)) {
    if (!(claim.git && top === '.git')) return false;
    const part = rel.split(path.sep)[1];
    if (part === undefined || ['config', 'config.worktree', 'commondir', 'hooks', 'info', 'modules', 'worktrees'].includes(part)) return false;
    return true;
  }
  if (p === root) return claim.profile === 'build';
  if (claim.profile === 'build') return true;
  if (claim.profile === 'read-only') return false;
  // The folder a target makes writable: the nearest one of its folders that existed before the run.
  const folder = (w: string) => {
    let d = path.dirname(w);
    while (!existed(d) && d !== path.dirname(d)) d = path.dirname(d);
    return d;
  };
  return claim.writes.some((w) => inside(folder(w), p) || inside(folder(realish(w)), p));
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Sandboxed: convicted only when an effect escapes: a real write outside the claim, a secret read, an inet connect. */
export function judgeSandboxed(effects: Effect[], claim: SandboxClaim, layout: SandboxLayout): Effect[] {
  return effects.filter((e) => {
    switch (e.kind) {
      case 'exec':
      case 'connect-unix':
        return false;
      case 'read-denied':
      case 'connect-inet':
        return true;
      case 'write': {
        const t = realTarget(e.target, layout.mounts);
        if (!t || t.real === '/dev/null') return false; // private to the sandbox, or a masked file
        if (t.ro) return true; // a successful write through a read-only mount
        return !claimAllowsWrite(claim, layout.root, realish(t.real), layout.existed) && !claimAllowsWrite(claim, layout.root, t.real, layout.existed);
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// The fixture and its snapshot
// ---------------------------------------------------------------------------------------------------

export interface Fixture {
  base: string;
  root: string;
  home: string;
  outside: string;
  markers: string;
  canary: string;
  /** Paths whose contents no allowed command may read (resolved). */
  canaries: string[];
}

export function fixtureAt(base: string, canary: string): Fixture {
  const root = path.join(base, 'project');
  const home = path.join(base, 'home');
  const outside = path.join(base, 'outside');
  const secrets = SECRET_FILES.map((f) => path.join(root, f));
  return {
    base,
    root,
    home,
    outside,
    markers: path.join(base, 'markers'),
    canary,
    canaries: [
      ...secrets,
      path.join(home, '.ssh', 'id_rsa'),
      path.join(base, 'outside.txt'),
      path.join(outside, 'canary.txt'),
      path.join(base, 'project-evil', 'secret.txt'),
    ],
  };
}

const SECRET_FILES = [
  '.env',
  '.env.local',
  '.env.production',
  'config/.env',
  'secrets/server.pem',
  'secrets/tls.KEY',
  'id_rsa',
  '.ssh/config',
  '.npmrc',
  '.netrc',
  '.git-credentials',
  'credentials.json',
  '.aws/credentials',
  '.kube/config',
  '.docker/config.json',
  'oauth_creds.json',
];

/** The policy table's fixture (policyTable.test.ts buildFixture), with canaries, a commit history, a home and an outside folder. */
export function buildEffectsFixture(base: string): Fixture {
  const canary = `DEVX-CANARY-${crypto.randomBytes(6).toString('hex')}`;
  const fx = fixtureAt(base, canary);
  const { root, home } = fx;
  const write = (rel: string, content = 'x\n') => {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  };
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), `-----BEGIN KEY-----\n${canary}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(home, '.bashrc'), '# fixture bashrc\n');
  fs.mkdirSync(fx.outside);
  fs.writeFileSync(path.join(fx.outside, 'canary.txt'), `outside ${canary}\n`);
  fs.mkdirSync(fx.markers);
  const files: Record<string, string> = {
    'README.md': '# Fixture\nfoo bar TODO x a b c\n',
    'package.json': JSON.stringify({ name: 'fixture', version: '1.0.0', scripts: { test: 'echo fixture-tests-pass' } }, null, 2) + '\n',
    'tsconfig.json': '{ "compilerOptions": { "noEmit": true }, "include": ["src"] }\n',
    'src/main.ts': 'export function main(): number {\n  // TODO: x\n  return 1;\n}\n',
    'src/util.ts': 'export const util = 2; // FIXME\n',
    'src/environment.ts': 'export const environment = "dev";\n',
    'docs/env.md': '# env\n',
    'config/keys.ts': 'export const keys = [];\n',
    '.gitignore': 'node_modules\n',
    'scripts/x.sh': 'echo x\n',
    'script.sh': 'echo script\n',
    'env.sh': 'export A=1\n',
    'scripts/build.js': 'console.log("build");\n',
    'script.py': 'def f():\n    print(1)\n',
    '.devx/history.json': '[]\n',
  };
  for (const [f, c] of Object.entries(files)) write(f, c);
  for (const f of SECRET_FILES) write(f, `SECRET=${canary}\n`);
  write('.env.example', 'SECRET=\n');
  write('.env.sample', 'SECRET=\n');
  fs.writeFileSync(path.join(base, 'outside.txt'), `outside ${canary}\n`);
  fs.writeFileSync(path.join(base, 'outside-hard.txt'), 'hard\n');
  fs.mkdirSync(path.join(base, 'project-evil'));
  fs.writeFileSync(path.join(base, 'project-evil', 'secret.txt'), `evil ${canary}\n`);
  const link = (target: string, name: string) => fs.symlinkSync(target, path.join(root, name));
  link('main.ts', 'src/link-inside.ts');
  link('src', 'src-link');
  link('.env', 'link-env');
  link(path.join(root, '.env'), 'notes-env');
  link('README.md', '.env-link');
  link(path.join(base, 'outside.txt'), 'link-file');
  link(path.join(fx.outside, 'canary.txt'), 'outside-link');
  link('/etc', 'link-out');
  link('chain-b', 'chain-a');
  link(path.join(base, 'outside.txt'), 'chain-b');
  link('loop-b', 'loop-a');
  link('loop-a', 'loop-b');
  link(path.join(base, 'not-there', 'x'), 'dangling');
  fs.linkSync(path.join(base, 'outside-hard.txt'), path.join(root, 'hardlink.txt'));
  fs.symlinkSync(root, path.join(base, 'root-link'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
      cwd: root,
      stdio: 'pipe',
      env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '-b', 'main');
  git('add', 'README.md', 'package.json', 'tsconfig.json', 'src', 'docs', '.gitignore');
  git('commit', '-qm', 'first');
  fs.appendFileSync(path.join(root, 'src', 'main.ts'), 'export const second = 2;\n');
  git('add', 'src/main.ts');
  git('commit', '-qm', 'second');
  return fx;
}

/** A fresh copy of the template fixture at `base` (hard links and symlinks kept). */
export function copyFixture(template: Fixture, base: string): Fixture {
  fs.rmSync(base, { recursive: true, force: true });
  execFileSync('cp', ['-a', template.base, base]);
  // Links that named the template's absolute paths must name the copy's.
  const fix = (p: string) => {
    const target = fs.readlinkSync(p);
    if (target.startsWith(template.base + path.sep) || target === template.base) {
      fs.unlinkSync(p);
      fs.symlinkSync(base + target.slice(template.base.length), p);
    }
  };
  walk(base, (abs, st) => st.isSymbolicLink() && fix(abs));
  return fixtureAt(base, template.canary);
}

function walk(dir: string, fn: (abs: string, st: fs.Stats) => void): void {
  for (const name of fs.readdirSync(dir)) {
    const abs = path.join(dir, name);
    const st = fs.lstatSync(abs);
    fn(abs, st);
    if (st.isDirectory()) walk(abs, fn);
  }
}

export type Snapshot = Map<string, string>;

/** Every entry under `base`: type, mode, and sha1 of a file's bytes or a link's target. */
export function snapshot(base: string): Snapshot {
  const out: Snapshot = new Map();
  walk(base, (abs, st) => {
    const rel = path.relative(base, abs);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out.set(rel, `link ${fs.readlinkSync(abs)}`);
    else if (st.isDirectory()) out.set(rel, `dir ${mode}`);
    else if (st.isFile()) out.set(rel, `file ${mode} ${crypto.createHash('sha1').update(fs.readFileSync(abs)).digest('hex')}`);
    else out.set(rel, `other ${mode}`);
  });
  return out;
}

export interface DiskChange {
  path: string;
  change: 'added' | 'removed' | 'changed';
}

export function diffSnapshots(base: string, before: Snapshot, after: Snapshot): DiskChange[] {
  const out: DiskChange[] = [];
  for (const [rel, v] of after) {
    const was = before.get(rel);
    if (was === undefined) out.push({ path: path.join(base, rel), change: 'added' });
    else if (was !== v) out.push({ path: path.join(base, rel), change: 'changed' });
  }
  for (const rel of before.keys()) if (!after.has(rel)) out.push({ path: path.join(base, rel), change: 'removed' });
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Disk changes outside the claim: unsandboxed (claim null) every change counts. */
export function judgeDisk(changes: DiskChange[], claim: SandboxClaim | null, root: string, existed?: (dir: string) => boolean): DiskChange[] {
  if (!claim) return changes;
  return changes.filter((c) => !claimAllowsWrite(claim, root, c.path, existed));
}

// ---------------------------------------------------------------------------------------------------
// The programs a line names
// ---------------------------------------------------------------------------------------------------

/** The names of the simple commands written in a line (quotes removed), by the policy's bash parser. */
export function commandNames(parser: Parser, line: string): string[] {
  const tree = parser.parse(line);
  const out = new Set<string>();
  const visit = (n: Node | null) => {
    if (!n) return;
    if (n.type === 'command') {
      const name = n.childForFieldName('name');
      if (name) out.add(name.text.replace(/\\(.)/g, '$1').replace(/['"]/g, ''));
    }
    for (const c of n.namedChildren) visit(c);
  };
  visit(tree?.rootNode ?? null);
  tree?.delete();
  return [...out];
}

/** Every executable a name can mean on PATH (and its real path), plus bash itself. */
export function programsFor(names: string[], envPath: string): Set<string> {
  const out = new Set<string>();
  const addReal = (p: string) => {
    out.add(p);
    try {
      out.add(fs.realpathSync(p));
    } catch {
      // dangling
    }
  };
  for (const name of [...names, 'bash']) {
    if (name.includes('/')) {
      addReal(path.resolve(name));
      continue;
    }
    for (const dir of envPath.split(':')) {
      if (!dir) continue;
      const p = path.join(dir, name);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        addReal(p);
      } catch {
        // not here
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Candidates: the table's commands and their mutations
// ---------------------------------------------------------------------------------------------------

export interface Candidate {
  cmd: string;
  /** Where it comes from: `table` or the mutation applied. */
  origin: string;
  /** For a respelling: the table's line it respells. */
  base?: string;
}

/** Splits a line into words at unquoted blanks, quotes kept (enough to rewrite options). */
export function roughWords(line: string): string[] | null {
  if (/[\n`$(){}<>|;&]/.test(line.replace(/'[^']*'|"[^"]*"/g, ''))) return null; // only plain simple commands
  const out: string[] = [];
  let cur = '';
  let q: string | null = null;
  for (const ch of line) {
    if (q) {
      cur += ch;
      if (ch === q) q = null;
    } else if (ch === "'" || ch === '"') {
      q = ch;
      cur += ch;
    } else if (ch === ' ' || ch === '\t') {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (q) return null;
  if (cur) out.push(cur);
  return out;
}

const isOpt = (w: string) => /^-/.test(w);

/** The mutations of one command line, each a different spelling bash gives the same words (or an abbreviation GNU getopt accepts). */
export function mutate(line: string): Candidate[] {
  const words = roughWords(line);
  if (!words || words.length === 0) return [];
  const out: Candidate[] = [];
  const push = (ws: string[], origin: string, sep = ' ') => {
    const cmd = ws.join(sep);
    if (cmd !== line) out.push({ cmd, origin, base: line });
  };
  for (let i = 1; i < words.length - 1; i++) {
    if (/^-[a-zA-Z]$/.test(words[i]) && !isOpt(words[i + 1])) {
      push([...words.slice(0, i), words[i] + words[i + 1], ...words.slice(i + 2)], 'attached-short');
      break;
    }
  }
  for (let i = 1; i < words.length - 1; i++) {
    if (/^--[a-z][\w-]+$/.test(words[i]) && !isOpt(words[i + 1])) {
      push([...words.slice(0, i), `${words[i]}=${words[i + 1]}`, ...words.slice(i + 2)], 'attached-long');
      break;
    }
  }
  for (let i = 1; i < words.length; i++) {
    const m = /^--([a-z][\w-]{3,})(=.*)?$/.exec(words[i]);
    if (m) {
      // Half the name (--rawfile -> --rawf) and all but its last two letters: getopt takes any unique prefix.
      for (const len of new Set([Math.max(3, Math.ceil(m[1].length / 2)), m[1].length - 2])) {
        const name = m[1].slice(0, len);
        if (len >= 3 && name !== m[1]) push([...words.slice(0, i), `--${name}${m[2] ?? ''}`, ...words.slice(i + 1)], 'long-abbrev');
      }
      break;
    }
  }
  const firstOpt = words.findIndex((w, i) => i > 0 && /^-[\w-]+$/.test(w));
  if (firstOpt > 0) push([...words.slice(0, firstOpt), `'${words[firstOpt]}'`, ...words.slice(firstOpt + 1)], 'quoted-option');
  if (/^[\w.-]+$/.test(words[0])) push([`"${words[0]}"`, ...words.slice(1)], 'quoted-command');
  if (words.length > 1) push(words, 'double-space', '  ');
  return out;
}

/**
 * Scripts of sed, awk, jq, find, env and time written to hide a command or a write from a rule:
 * labels, brackets, delimiters, abbreviations. CMD touches a marker outside the project; FILE is outside.
 * `@BASE@` stands for the fixture copy's folder (an absolute path outside the project).
 */
export function scriptCandidates(): Candidate[] {
  let n = 0;
  const mk = () => `../markers/m${++n}`;
  const abs = () => `@BASE@/markers/a${++n}`;
  const file = () => `../outside/w${++n}`;
  const absFile = () => `@BASE@/outside/w${++n}`;
  const lines: string[] = [
    // sed: labels, branches, brackets, delimiters, flags
    `sed ':x e touch ${mk()}' README.md`,
    `sed ':x;e touch ${mk()}' README.md`,
    `sed -n '/a/b x e touch ${mk()}' README.md`,
    `sed -n '/a/b x;e touch ${mk()}' README.md`,
    `sed 's|[|]|x|w ${file()}' README.md`,
    `sed 's/[/]/x/w ${file()}' README.md`,
    `sed 's/a/b/w ${absFile()}' README.md`,
    `sed 's/x/y/gw ${file()}' README.md`,
    `sed '/x/{e touch ${mk()}' -e '}' README.md`,
    `sed -e 'a\\' -e 'e touch ${mk()}' README.md`,
    `sed 's/a/b/;;e touch ${mk()}' README.md`,
    `sed '0~3 e touch ${mk()}' README.md`,
    `sed '$!N;e touch ${mk()}' README.md`,
    `sed 'v;e touch ${mk()}' README.md`,
    `sed '\\,a,e touch ${mk()}' README.md`,
    `sed '\\%x%d;e touch ${mk()}' README.md`,
    `sed 'y/abc/xyz/;e touch ${mk()}' README.md`,
    `sed -n '1{e touch ${abs()}\n}' README.md`,
    `sed 's/x/e/;1e touch ${mk()}' README.md`,
    `sed 's/a/b/e' README.md`,
    `sed --expr='1e touch ${mk()}' README.md`,
    `sed --posix '1e touch ${mk()}' README.md`,
    `sed -z '1e touch ${mk()}' README.md`,
    `sed -s -n 'W ${file()}' README.md`,
    `sed -n '/[]/]/w ${file()}' README.md`,
    `sed 's/[[:alpha:]]/x/w ${file()}' README.md`,
    `sed 's/a/b/ ; w ${file()}' README.md`,
    `sed '1!G;h;$!d' README.md`,
    `sed -n '#n\n1e touch ${mk()}' README.md`,
    `sed -e 's/a/b/' -e '1e touch ${mk()}' README.md`,
    `sed -n "1 e touch ${mk()}" README.md`,
    `sed -n 1e\\ touch\\ ${mk()} README.md`,
    `sed --in-pl=.bak 's/a/b/' ../outside.txt`,
    `sed -i -e 's/a/b/' ../outside/canary.txt`,
    `sed -n 'r ../outside/canary.txt' README.md`,
    `sed '1r link-file' README.md`,
    // awk: an interpreter; spacing and builtins that run or write
    `awk 'BEGIN { system ( "touch ${mk()}" ) }'`,
    `awk 'BEGIN{printf "x" | "sh"}'`,
    `awk 'BEGIN{print "x" > "${file()}"}'`,
    `awk '{print}' README.md`,
    // jq: abbreviations, file options, env
    `jq -n --rawf k .env '$k'`,
    `jq -n --raw k .env '$k'`,
    `jq -n --slurpf k .env '$k'`,
    `jq -n --slurpfile k ../outside/canary.txt '$k'`,
    `jq -R . .env`,
    `jq -Rs . ~/.ssh/id_rsa`,
    `jq -n '$ENV|keys'`,
    `jq -n '"\\(env)"'`,
    `jq -n '[env][0]'`,
    `jq -n 'input' .env`,
    `jq -n '$__loc__'`,
    `jq -n 'input_filename'`,
    `jq --arg x y -n '$x'`,
    `jq -L ../outside -n 'include "lib"; 1'`,
    `jq -r '.scripts|.test' package.json`,
    `jq -rn '"a"'`,
    `jq .name package.json link-file`,
    `jq -n 'input' outside-link`,
    // find: output files, exec in odd spellings
    `find . -name x -fprint ${file()}`,
    `find . -fprint0 ${absFile()}`,
    `find . -fls ${file()}`,
    `find . -fprintf ${file()} %p`,
    `find src '-exec' touch ${mk()} ';'`,
    `find src -exec touch ${mk()} +`,
    `find src -newer README.md -o -fprint ${file()}`,
    `find . -maxdepth 1 -name '*.md' -execdir touch ${mk()} \\;`,
    `find -L .. -name canary.txt`,
    `find .. -maxdepth 2 -name '*.txt'`,
    `find src -type f -print`,
    `find src -name "*.ts" -print0`,
    // env: chdir, split strings, assignments
    `env -C .. cat outside.txt`,
    `env -C.. cat outside.txt`,
    `env --chdir=../outside cat canary.txt`,
    `env -iC src ls`,
    `env -u X ls`,
    `env -S'touch ${mk()}'`,
    `env -- touch ${mk()}`,
    `env -i ls`,
    `env X=1 touch ${mk()}`,
    `env -C src cat main.ts`,
    `env -C src  ls`,
    // time, timeout, nice: wrappers
    `time -p ls`,
    `time touch ${mk()}`,
    `time -- ls`,
    `time -o ${file()} ls`,
    `command time -o ${file()} ls`,
    `\\time -o ${file()} ls`,
    `timeout 5 touch ${mk()}`,
    `timeout -s KILL 5 ls`,
    `timeout --signal=KILL 5 ls`,
    `timeout -k1 5 ls`,
    `nice -n5 ls`,
    `nice --adjustment=5 ls`,
    `nice -5 ls`,
    `nice touch ${mk()}`,
    `time cat README.md`,
    `time git status`,
    // readers pointed outside through the fixture's links
    `cat link-file`,
    `cat outside-link`,
    `cat chain-a`,
    `head -n1 link-file`,
    `cat hardlink.txt`,
    `cat src-link/../link-env`,
    `cat ./src/../.env`,
    `tail -c+1 .env`,
    `wc -c link-env`,
    `grep -r canary ..`,
    `rg -L x .`,
  ];
  return lines.map((cmd) => ({ cmd, origin: 'script' }));
}

/** Runs `fn` over `items` with at most `n` at a time; results in input order. */
export async function pool<T, R>(items: T[], n: number, fn: (item: T, worker: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async (_, w) => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], w);
      }
    }),
  );
  return out;
}
