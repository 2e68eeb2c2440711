// The bubblewrap sandbox every command runs in when no person approved it. Its limits are the policy's
// claim (policy/types.ts SandboxClaim): `read-only` mounts everything read-only, the project included;
// `write` makes only the folders of the judged write targets writable; `build` the whole project. In all
// three, what decides what runs later stays read-only (all of .git, a core.hooksPath folder, .devx, the
// editors' and agents' configuration: sandboxPaths.ts), the home folder is an empty tmpfs (tool chains
// bound back read-only), only the system's program folders are mounted (no other homes, no /var, no
// /run), the files the policy denies are masked, and there is no network. @anthropic-ai/sandbox-runtime
// was measured against this and not adopted (it needs Node 22, ripgrep and socat, and was slower per
// command): see docs/security.md.
import fs from 'node:fs';
import crypto from 'node:crypto';
import os from 'node:os';
import { runProcessSync } from '../util/runSync.js';
import path from 'node:path';
import { findExecutable } from '../util/findExecutable.js';
import { isAlive } from '../util/processAlive.js';
import type { SandboxClaim } from './claim.js';
import { missingProtected, protectedPaths, writableFolders } from './sandboxPaths.js';
import { mkdirOwnedSync, writeNewOwnedSync } from '../util/ownedFile.js';
import { scanProject } from './projectScan.js';
import { watchCreations } from './creationGuard.js';
import { foldersAbove, nestedGitPaths, sanitizedConfigs } from './gitDirs.js';
import { replaceFileSync } from '../util/replaceFileSync.js';
import { withAnchored } from '../util/guardedPath.js';

export interface SandboxSpec {
  bin: string;
  root: string;
  home: string;
  /** Paths inside the project the policy denies reading (sensitive files, settings deny rules). */
  hidden?: () => string[];
  /** Folders outside the project the user lets the model read (additionalDirectories): mounted read-only. */
  readable?: string[];
  /** Where the placeholders of a running command are listed, so a kill -9 leaves none behind (swept at the next start). */
  journalDir?: string;
  /** devx's folder of package-manager caches for builds, one per project (packageCaches). */
  cacheDir?: string;
}

/** A sandbox as one call runs in it: the spec and what the policy claimed for the call. */
export interface SandboxRun extends SandboxSpec {
  claim: SandboxClaim;
}

export interface BwrapProbe {
  bin: string | null;
  /** Why there is no sandbox, in words a person can act on. */
  why?: string;
}

let probed: BwrapProbe | undefined;

const PROBE_TTL_MS = 24 * 3600 * 1000;
/** The one command that installs the sandbox, for the start-up line. */
export const INSTALL_HINT =
  process.platform === 'darwin'
    ? 'devx sandboxes only on Linux (bubblewrap); on macOS commands beyond the small read-only list ask'
    : 'install it with: sudo apt-get install bubblewrap (Fedora: sudo dnf install bubblewrap)';

/**
 * What decides whether bwrap works here: the binary itself and the kernel's user-namespace settings.
 * A cached verdict holds only while all of them are unchanged (and for a day at most).
 */
function probeKey(bin: string): string {
  const read = (f: string) => {
    try {
      return fs.readFileSync(f, 'utf8').trim();
    } catch {
      return '-';
    }
  };
  const st = fs.statSync(bin);
  return [
    bin,
    st.size,
    st.mtimeMs,
    st.ino,
    os.release(),
    process.getuid?.() ?? '-',
    read('/proc/sys/user/max_user_namespaces'),
    read('/proc/sys/kernel/unprivileged_userns_clone'),
    read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
  ].join('|');
}

/** Finds a working bwrap, or says why there is none. */
export function probeBwrap(env: NodeJS.ProcessEnv = process.env): BwrapProbe {
  // Asked before the kept answer: one process can run agents with and without the sandbox.
  if (env.DEVX_SANDBOX === 'off') return { bin: null, why: 'DEVX_SANDBOX=off turned the sandbox off' };
  if (probed !== undefined) return probed;
  if (process.platform !== 'linux') return (probed = { bin: null, why: `no sandbox on ${process.platform}` });
  const bin = findExecutable('bwrap', env);
  if (!bin) return (probed = { bin: null, why: 'bubblewrap (bwrap) is not installed' });
  // Per user, outside any home (tests and sessions with temp homes share it); a wrong entry only fails closed.
  const cacheFile = path.join(os.tmpdir(), `devx-${process.getuid?.() ?? 'u'}`, 'sandbox-probe.json');
  let key = '';
  try {
    key = probeKey(bin);
    const c = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { key: string; works: boolean; at: number; why?: string };
    if (c.key === key && Date.now() - c.at < PROBE_TTL_MS) return (probed = c.works ? { bin } : { bin: null, why: c.why ?? 'bubblewrap does not start here' });
  } catch {
    // no cache yet, or unreadable: probe
  }
  const r = runProcessSync(bin, ['--ro-bind', '/', '/', '--tmpfs', '/tmp', '--unshare-net', '--die-with-parent', 'true'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 5000,
  });
  const err = (r.stderr ?? '').trim().split('\n')[0] ?? '';
  probed =
    r.status === 0
      ? { bin }
      : {
          bin: null,
          why: `bubblewrap does not start here (${err || r.error?.message || `exit ${r.status}`}${/namespace|permission/i.test(err) ? '; the kernel does not allow unprivileged user namespaces' : ''})`,
        };
  try {
    mkdirOwnedSync(path.dirname(cacheFile), 0o700);
    replaceFileSync(cacheFile, JSON.stringify({ key, works: probed.bin !== null, why: probed.why, at: Date.now() }));
  } catch {
    // a read-only temp folder: probe again next time
  }
  return probed;
}

/** A working bwrap, or null (see probeBwrap for why). */
export function detectBwrap(env: NodeJS.ProcessEnv = process.env): string | null {
  return probeBwrap(env).bin;
}

/** Folders under $HOME that tool chains run from; bound back read-only over the empty home. */
export const TOOLCHAIN_DIRS = [
  '.nvm',
  '.volta',
  '.fnm',
  '.bun',
  '.deno',
  '.local/bin',
  '.local/lib',
  '.local/share/pnpm',
  '.cargo/bin',
  '.rustup',
  'go/bin',
  'go/pkg/mod',
  '.pyenv',
  '.rbenv',
  '.sdkman',
  '.asdf',
  '.m2/repository',
  '.gradle/caches',
];

/** The system's own folders, mounted read-only: programs, libraries and their configuration. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/snap'];
/** Credentials in /etc that a program never needs to run: masked. */
const ETC_SECRETS = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssh',
  '/etc/ssl/private',
  '/etc/security/opasswd',
];

/** A program to run in the sandbox: bwrap's argv, and the clean-up after it. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  /**
   * Call when the command ended: removes the placeholder files bwrap made as mount points and the
   * configuration copies it mounted, and moves aside what the command created that runs later (one line each).
   */
  cleanup(): string[];
  /** Folders of the project opened for bwrap's fd binds: the runner passes them as the child's fds 3, 4… (cleanup closes them). */
  fds: number[];
}

/** Runs `argv` inside the sandbox, limited to what the claim allows. */
export function sandboxCommand(spec: SandboxRun, cwd: string, argv: string[]): SandboxedCommand {
  const placeholders: string[] = [];
  const temps: string[] = [];
  const fds: number[] = [];
  const args = sandboxArgs(spec, cwd, placeholders, temps, fds);
  const journal = placeholders.length && spec.journalDir ? writeJournal(spec.journalDir, placeholders) : null;
  const watch = spec.claim.profile === 'read-only' ? null : watchCreations(spec.root, writtenFolders(spec));
  return {
    file: spec.bin,
    args: [...args, ...argv],
    fds,
    cleanup: () => {
      for (const fd of fds.splice(0)) fs.closeSync(fd);
      removePlaceholders(placeholders);
      for (const t of temps) fs.rmSync(t, { force: true });
      if (journal) fs.rmSync(journal, { force: true });
      return watch?.settle() ?? [];
    },
  };
}

/** The folders a command with this claim can write in (walked before and after it for what it made). */
function writtenFolders(spec: SandboxRun): string[] {
  if (spec.claim.profile === 'build') return [spec.root];
  const scoped = (spec.claim.scopeBinds ?? []).filter((p) => isRealDir(p));
  return [...writableFolders(spec.root, unscopedWrites(spec.claim)), ...scoped];
}

/**
 * A write claim's targets other than the task scope's own paths, which are bound themselves (claim.scopeBinds):
 * the folder around a scope folder would make its neighbours writable, the whole project for `docs/`.
 */
function unscopedWrites(claim: SandboxClaim): string[] {
  const scope = claim.scopeBinds ?? [];
  return claim.writes.filter((w) => !scope.includes(w));
}

/** Removes what bwrap left as mount points: empty regular files only (anything else was made by someone else). */
function removePlaceholders(paths: string[]): void {
  for (const p of paths) {
    try {
      const st = fs.lstatSync(p);
      if (st.isFile() && st.size === 0) fs.unlinkSync(p);
    } catch {
      // gone already
    }
  }
}

function writeJournal(dir: string, paths: string[]): string | null {
  try {
    mkdirOwnedSync(dir, 0o700);
    const file = path.join(dir, `placeholders-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    writeNewOwnedSync(file, JSON.stringify(paths));
    return file;
  } catch {
    return null; // only the sweep after a crash depends on it
  }
}

/** At start: the placeholders a killed devx left (their journals), removed if they are still empty files. */
export function sweepPlaceholders(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => /^placeholders-\d+-/.test(n));
  } catch {
    return;
  }
  for (const n of names) {
    const pid = Number(n.split('-')[1]);
    if (pid !== process.pid && isAlive(pid)) continue; // a running devx still needs them
    const file = path.join(dir, n);
    try {
      const list = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      if (Array.isArray(list)) removePlaceholders(list.filter((p): p is string => typeof p === 'string' && path.isAbsolute(p)));
    } catch {
      // unreadable: dropped
    }
    fs.rmSync(file, { force: true });
  }
}

/** Where package managers keep their caches under the home (npm, yarn, pip, pnpm's metadata and the rest of ~/.cache). */
const PACKAGE_CACHES = ['.npm', '.cache', '.yarn'];

/**
 * A build's package caches: folders of devx's own, one set per project, bound where npm, pnpm, yarn and pip
 * look under the (otherwise empty) home, so a sandboxed install or test run does not start cold every time.
 * Per project, because what one project's build writes there only that project's later builds read.
 */
export function packageCaches(cacheDir: string, root: string, home: string): [string, string][] {
  const base = path.join(cacheDir, crypto.createHash('sha256').update(root).digest('hex').slice(0, 16));
  return PACKAGE_CACHES.map((rel) => {
    const from = path.join(base, rel.replace(/\//g, '_'));
    mkdirOwnedSync(from, 0o700);
    return [from, path.join(home, rel)];
  });
}

/** The argv prefix that runs a program inside the sandbox, limited to what `claim` allows. */
export function sandboxArgs(spec: SandboxRun, cwd: string, placeholders: string[] = [], temps: string[] = [], fds: number[] = []): string[] {
  const scan = scanProject(spec.root);
  if (scan.unmaskable.length) throw new SandboxStartError(unmaskableWhy(spec.root, scan.unmaskable));
  const r = spec.root;
  const home = spec.home;
  const args: string[] = [];
  for (const d of SYSTEM_DIRS) if (fs.existsSync(d)) args.push('--ro-bind', d, d);
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/var', '--dir', '/var/tmp', '--tmpfs', '/run');
  for (const p of ETC_SECRETS) maskArgs(args, p);
  // Tool chains outside the system folders (a PATH entry, node itself): read-only, never the home or above it.
  for (const dir of new Set([...(process.env.PATH ?? '').split(':'), path.dirname(process.execPath)])) {
    if (!dir || !path.isAbsolute(dir) || isInsideOrSame(dir, home) || isInsideOrSame(dir, r) || SYSTEM_DIRS.some((s) => isInsideOrSame(s, dir))) continue;
    if (home && isInsideOrSame(home, dir) && !TOOLCHAIN_DIRS.some((t) => isInsideOrSame(path.join(home, t), dir))) continue;
    if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir);
  }
  if (home && home !== '/' && !isInsideOrSame(r, home)) {
    args.push('--tmpfs', home);
    for (const d of TOOLCHAIN_DIRS) {
      const p = path.join(home, d);
      if (fs.existsSync(p)) args.push('--ro-bind', p, p);
    }
  }
  for (const d of spec.readable ?? []) if (fs.existsSync(d) && !isInsideOrSame(d, r)) args.push('--ro-bind', d, d);
  if (spec.claim.profile === 'build' && spec.cacheDir && home && home !== '/' && !isInsideOrSame(r, home))
    for (const [from, to] of packageCaches(spec.cacheDir, r, home)) args.push('--bind', from, to);
  if (spec.claim.git) {
    // git add/commit need the user's identity and settings (read-only); the policy keeps `git config` from printing them.
    for (const f of ['.gitconfig', '.config/git'])
      if (home && fs.existsSync(path.join(home, f))) args.push('--ro-bind', path.join(home, f), path.join(home, f));
  }
  const claim = spec.claim;
  args.push(claim.profile === 'build' ? '--bind' : '--ro-bind', r, r);
  const writable = claim.profile === 'write' ? writableFolders(r, unscopedWrites(claim)) : [];
  for (const f of writable) bindInProject(args, fds, '--bind', r, f);
  const topWritable = claim.profile === 'build' || writable.includes(r);
  // devx's own folder is devx's to make (a placeholder file there would stop devx's next start); held read-only below.
  if (topWritable && !fs.existsSync(path.join(r, '.devx'))) mkdirOwnedSync(path.join(r, '.devx'), 0o700);
  // What this sandbox holds read-only or hides inside the project, found before any of it is mounted.
  const gitConfig = path.join(r, '.git', 'config');
  const readOnly = [...protectedPaths(r, { gitWritable: claim.git === true }), ...nestedGitPaths(r, scan.gitEntries)];
  const masked = [...(spec.hidden?.() ?? []).filter((p) => p !== gitConfig), ...scan.multiLinked];
  // In a build, each folder above one of them becomes a mount point of its own, which no process of the build
  // can rename or exchange (EBUSY): a build left running (in the background, say) cannot swap a folder while
  // another sandbox starts, so every mask and read-only bind lands where its path says; nor can it move a
  // submodule aside to put a git directory of its own where it was. (A write claim runs one modelled command.)
  const pins = claim.profile === 'build' ? foldersAbove(r, [...scan.gitEntries, ...readOnly, ...masked]) : [];
  if (pins.length > MAX_PINNED) throw new SandboxStartError(tooManyPinsWhy(pins.length));
  for (const d of pins) bindInProject(args, fds, '--bind', r, d);
  // A writable top could create .vscode/tasks.json or .git anew: a read-only empty file holds each
  // missing name (bwrap makes it as the mount point; cleanup() removes it).
  if (topWritable) {
    for (const p of missingProtected(r)) {
      args.push('--ro-bind', '/dev/null', p);
      placeholders.push(p);
    }
  }
  if (claim.git) {
    const gitDir = path.join(r, '.git');
    if (isRealDir(gitDir)) bindInProject(args, fds, '--bind', r, gitDir);
  }
  // What decides what runs later stays read-only in every profile; with claim.git, .git's own parts that do.
  // Nested repositories and submodules: their git directories (and a `.git` file's target) read-only.
  for (const p of readOnly) bindInProject(args, fds, '--ro-bind', r, p);
  // Editors' and agents' folders in packages too (a new one is moved to quarantine by the creation guard). Not
  // pinned: a build that moves a package aside and makes the folder anew has made it, which the guard sees.
  for (const p of scan.nestedConfig.slice(0, MAX_NESTED_HELD)) bindInProject(args, fds, '--ro-bind', r, p);
  // A configuration that names a program no neutral value switches off is replaced by a copy without it.
  for (const [file, copy] of sanitizedConfigs(r, scan.gitEntries, temps)) args.push('--ro-bind', copy, file);
  for (const p of claim.scopeBinds ?? []) bindInProject(args, fds, '--bind', r, p);
  // Denied files, and files with several links (one may be a file from outside under another name). git
  // cannot run without reading .git/config: it stays readable (read-only, above) while the policy keeps
  // refusing it as a path argument and denies `git config`.
  for (const p of masked) maskArgs(args, p);
  // A pid namespace of its own: /proc shows only the sandbox's processes (not devx's, whose environment holds its keys).
  args.push('--unshare-net', '--unshare-ipc', '--unshare-pid', '--die-with-parent', '--new-session', '--chdir', cwd, '--');
  return args;
}

/**
 * Binds a folder or file of the project at itself, by its real path and only when that is inside the project.
 * bwrap follows links in a bind's source when it starts, so a folder that is (or by then has been swapped
 * for) a link into the home would be mounted into the sandbox: the source is opened here, folder by folder
 * without links (util/guardedPath.ts), and handed to bwrap as a descriptor (--bind-fd), which no later swap
 * changes. What leads out is not bound; inside the sandbox it leads to the empty home.
 */
function bindInProject(args: string[], fds: number[], flag: '--bind' | '--ro-bind', root: string, p: string): void {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return;
  }
  if (!isInsideOrSame(root, real)) return;
  let fd: number;
  try {
    fd = withAnchored(real, (q) => fs.openSync(q, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK));
  } catch {
    return; // swapped for a link (or gone) since the realpath: nothing of it is bound
  }
  // The child's descriptors 0-2 are its stdio; ours follow in the order opened.
  args.push(flag === '--bind' ? '--bind-fd' : '--ro-bind-fd', String(3 + fds.length), real);
  fds.push(fd);
}

/** The most editors' and agents' folders below the top a sandbox holds read-only (each is a descriptor too). */
const MAX_NESTED_HELD = 200;

/** The most folders a build's sandbox makes mount points of (each is a descriptor handed to bwrap). */
const MAX_PINNED = 400;

function tooManyPinsWhy(n: number): string {
  return `the project has ${n} folders above files the sandbox hides or holds read-only (over ${MAX_PINNED}), too many to hold in place while a build runs`;
}

/** Why a project with entries no mount can name cannot be sandboxed, and what the person can do. */
function unmaskableWhy(root: string, found: string[]): string {
  const shown = path.relative(root, found[0]) || found[0];
  return `the project holds ${found.length} git folder(s) or hard-linked file(s) under names that are not UTF-8 (e.g. ${shown}), which the sandbox can neither hide nor hold read-only; rename them to run commands in the sandbox`;
}

/** Hides a file (by /dev/null) or a folder (by an empty read-only tmpfs); a link is left to where it leads. */
function maskArgs(args: string[], p: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(p);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) return; // a link is resolved by bwrap: its target outside the project is judged there
  if (st.isDirectory()) args.push('--tmpfs', p, '--remount-ro', p);
  else args.push('--ro-bind', '/dev/null', p);
}

function isRealDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** True when `root` is `dir` or inside it (a home inside the project is not replaced). */
function isInsideOrSame(dir: string, root: string): boolean {
  const rel = path.relative(dir, root);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel) && rel.split(path.sep)[0] !== '..');
}

/** The sandbox itself did not start (bwrap reported an error before running anything): the call must not run unsandboxed on its own. */
export class SandboxStartError extends Error {
  constructor(readonly why: string) {
    super(`the sandbox did not start: ${why}`);
  }
}

/** Throws SandboxStartError when bwrap failed before the command ran (its own "bwrap: ..." error and exit 1, nothing printed). */
export function sandboxFailure(sb: SandboxedCommand | null, r: { exitCode: number | null; stdout: string; stderr: string }): void {
  if (!sb || r.exitCode !== 1 || r.stdout !== '') return;
  const first = r.stderr.trimStart().split('\n')[0] ?? '';
  if (first.startsWith('bwrap: ')) throw new SandboxStartError(first.slice(7));
}
