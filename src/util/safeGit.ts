// Every git process devx starts, for itself or for the model, gets its environment here. A repository's
// configuration is untrusted input: `.git/config` (or a `.git` file's target, a worktree's config.worktree,
// or a file either includes) can name programs git runs at a plain `git status` — an fsmonitor, hooks, a
// pager, an external diff, a textconv, filter and merge drivers, ssh, credential helpers, an editor, gpg.
// Entries given as GIT_CONFIG_COUNT rank above every config file, so each such key the repository sets
// is given back a neutral value (or, when the user's own config sets it, the user's value). Two keys
// have no neutral value (diff.external and diff.<driver>.command): devx's own diffs pass --no-ext-diff,
// the sandbox mounts a copy of the config without them, and unsandboxed they make git ask.
// core.worktree has no neutral value either (git reads it before any override): devx's own git is given
// GIT_WORK_TREE (the folder holding .git), and the model's unsandboxed git asks when it points elsewhere.
// A configuration that cannot be listed (too large, too slow) is unknown: devx's own git refuses to run
// on it, and the model's unsandboxed git asks. Nested repositories (submodules, which `git status`
// recurses into) are assessed with the repository.
import fs from 'node:fs';
import path from 'node:path';
import { runProcessSync } from './runSync.js';
import { realOrAsGiven } from './realPath.js';

/** Inherited variables git may keep: identity and which user-level config files to read. */
const KEEP_ENV = /^GIT_(CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_NOSYSTEM|(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE))$/;

/** Keys whose program never runs, whatever any config file says. */
const FIXED: [string, string][] = [
  ['safe.bareRepository', 'explicit'],
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  ['core.askPass', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['tag.forceSignAnnotated', 'false'],
  ['push.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['protocol.ext.allow', 'never'],
  ['maintenance.auto', 'false'],
  ['gc.auto', '0'],
];

/** Variables set for every git: no pager, no editor, no prompt, no opportunistic index lock. */
const FIXED_ENV: Record<string, string> = {
  GIT_PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_ASKPASS: '',
  // Set, even empty, it is read instead of core.gitProxy, whose first value (the repository's) would win.
  GIT_PROXY_COMMAND: '',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
};

/** A repository-set key and what neutralises it: a value, the user's own value, or a reset of a list. */
interface Neutral {
  re: RegExp;
  /** The value git uses when the user's config does not set the key either. */
  value: (key: string) => string;
  /** A list key (credential helpers): an empty entry resets it, then the user's entries are given again. */
  list?: boolean;
}

const NEUTRAL: Neutral[] = [
  { re: /^filter\..+\.(clean|smudge|process)$/, value: () => '' },
  { re: /^filter\..+\.required$/, value: () => 'false' },
  { re: /^diff\..+\.textconv$/, value: () => 'cat' },
  { re: /^merge\..+\.driver$/, value: () => '' },
  { re: /^remote\..+\.uploadpack$/, value: () => 'git-upload-pack' },
  { re: /^remote\..+\.receivepack$/, value: () => 'git-receive-pack' },
  { re: /^credential\.(.+\.)?helper$/, value: () => '', list: true },
  { re: /^core\.sshcommand$/, value: () => 'ssh' },
  { re: /^ssh\.variant$/, value: () => 'auto' },
  { re: /^gpg\.program$/, value: () => 'gpg' },
  { re: /^gpg\.openpgp\.program$/, value: () => 'gpg' },
  { re: /^gpg\.x509\.program$/, value: () => 'gpgsm' },
  { re: /^gpg\.ssh\.program$/, value: () => 'ssh-keygen' },
  { re: /^gpg\.ssh\.defaultkeycommand$/, value: () => 'true' },
  { re: /^core\.alternaterefscommand$/, value: () => 'true' },
  { re: /^tar\..+\.command$/, value: () => 'gzip -cn' },
  { re: /^(mailmap\.(file|blob)|blame\.ignorerevsfile|commit\.template)$/, value: () => '' },
];

/** Keys no value switches off: git runs whatever they name. */
const NO_NEUTRAL = /^diff\.(external|.+\.command)$/;

/** Keys that name a program git runs, or pull in another file: left out of a sanitised copy of a repository's config. */
export function runsProgram(key: string): boolean {
  const k = key.toLowerCase();
  return (
    NO_NEUTRAL.test(k) ||
    NEUTRAL.some((n) => n.re.test(k)) ||
    FIXED.some(([f]) => f.toLowerCase() === k) ||
    /^(include|includeif\..*)\.path$/.test(k) ||
    /^core\.(gitproxy|worktree)$/.test(k) ||
    /^(pager|alias|difftool|mergetool|man|browser|sendemail|web|instaweb|uploadpack|receive)\./.test(k)
  );
}

/** Scopes whose files come with the repository (an included file counts as its includer). */
const UNTRUSTED_SCOPES = new Set(['local', 'worktree']);

export interface ConfigEntry {
  scope: string;
  key: string;
  value: string;
  /** The file it was read from (`file:` stripped); '' for the command line. */
  origin: string;
}

export interface RepoConfigRisk {
  /** GIT_CONFIG_COUNT entries that neutralise the repository's program-running keys. */
  overrides: [string, string][];
  /** Repository-set keys nothing neutralises (diff.external, diff.<driver>.command, core.worktree pointing elsewhere), with the file each is in. */
  unneutralized: { key: string; origin: string }[];
  /** Why the configuration is not known (its listing failed, timed out or was too large): devx's own git does not run on it. */
  unknown?: string;
}

/** devx's own git refused to run: the repository's configuration could not be judged. */
export class GitRefusedError extends Error {}

/** Parses `git config --list --show-scope --show-origin -z`: scope NUL origin NUL key LF value NUL … */
export function parseConfigList(out: string): ConfigEntry[] {
  const parts = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const [scope, origin, kv] = [parts[i], parts[i + 1], parts[i + 2]];
    const nl = kv.indexOf('\n');
    const key = nl < 0 ? kv : kv.slice(0, nl);
    entries.push({ scope, origin: origin.replace(/^file:/, ''), key, value: nl < 0 ? 'true' : kv.slice(nl + 1) });
  }
  return entries;
}

/** What neutralises the program-running keys the repository's own config files set. */
export function assessConfig(entries: ConfigEntry[]): RepoConfigRisk {
  const overrides: [string, string][] = [];
  const unneutralized: { key: string; origin: string }[] = [];
  const done = new Set<string>();
  for (const e of entries) {
    if (!UNTRUSTED_SCOPES.has(e.scope) || done.has(e.key)) continue;
    if (NO_NEUTRAL.test(e.key)) {
      unneutralized.push({ key: e.key, origin: e.origin });
      continue;
    }
    const n = NEUTRAL.find((x) => x.re.test(e.key));
    if (!n) continue;
    done.add(e.key);
    const mine = entries.filter((x) => x.key === e.key && !UNTRUSTED_SCOPES.has(x.scope)).map((x) => x.value);
    if (n.list) overrides.push([e.key, ''], ...mine.map((v): [string, string] => [e.key, v]));
    else overrides.push([e.key, mine.length ? mine[mine.length - 1] : n.value(e.key)]);
  }
  return { overrides, unneutralized };
}

/** `env` without the git variables it inherited (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND …). */
export function withoutGitEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && (!k.startsWith('GIT_') || KEEP_ENV.test(k))) out[k] = v;
  return out;
}

/** `env` with `entries` given as GIT_CONFIG_COUNT entries (replacing any it had). */
function withConfigEntries(env: Record<string, string>, entries: [string, string][]): Record<string, string> {
  const out = { ...env };
  entries.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${i}`] = k;
    out[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  out.GIT_CONFIG_COUNT = String(entries.length);
  return out;
}

/** The environment that reads the configuration without obeying it (listing runs nothing). */
function listingEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return withConfigEntries({ ...withoutGitEnv(env), ...FIXED_ENV }, FIXED);
}

/** Largest listing read; a configuration larger than this is not judged (and so not obeyed). */
const LIST_MAX = 32 * 1024 * 1024;
const LIST_TIMEOUT = 20_000;

/** A listing's entries, or why there are none to trust (it failed, timed out, or was larger than LIST_MAX). */
type Listing = { entries: ConfigEntry[]; why?: undefined } | { entries?: undefined; why: string };

function listConfig(args: string[], cwd: string, env: NodeJS.ProcessEnv): Listing {
  const r = runProcessSync('git', ['config', ...args, '--list', '--show-scope', '--show-origin', '-z'], {
    cwd,
    env: listingEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: LIST_TIMEOUT,
    maxBuffer: LIST_MAX,
  });
  if (r.status === 0 && typeof r.stdout === 'string') return { entries: parseConfigList(r.stdout) };
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOBUFS') return { why: `its git configuration lists more than ${LIST_MAX / 1024 / 1024} MB` };
  if (code === 'ETIMEDOUT' || r.signal) return { why: `listing its git configuration took over ${LIST_TIMEOUT / 1000} s` };
  const msg = (typeof r.stderr === 'string' ? r.stderr : '').trim().split('\n')[0];
  return { why: `git could not list its configuration${msg ? ` (${msg})` : r.error ? ` (${r.error.message})` : ''}` };
}

/** The entries of one config file alone (no includes followed); null when git cannot list it (or it is too large). */
export function readConfigFileSync(file: string, env: NodeJS.ProcessEnv = process.env): ConfigEntry[] | null {
  return listConfig(['--file', file], path.dirname(file), env).entries ?? null;
}

/** The configuration git sees in `cwd`, every scope, includes followed; `why` when it cannot be listed (never a silent []). */
export function readConfigSync(cwd: string, env: NodeJS.ProcessEnv = process.env): Listing {
  return listConfig(['--includes'], cwd, env);
}

/** The folder holding the `.git` entry git would find from `cwd` (cwd itself or a parent); null outside a repository. */
export function repoTopOf(cwd: string): string | null {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The git directory of the repository whose `.git` entry is in `top` (the folder, or where a `gitdir:` file points). */
function gitDirIn(top: string): string | null {
  const entry = path.join(top, '.git');
  try {
    if (fs.statSync(entry).isDirectory()) return entry;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(entry, 'utf8').slice(0, 4096));
    return m ? path.resolve(top, m[1]) : null;
  } catch {
    return null;
  }
}

/** A core.worktree the repository sets that is not the folder holding its .git (git reads it before any override). */
function foreignWorktree(entries: ConfigEntry[], cwd: string): { key: string; origin: string } | null {
  const set = entries.filter((e) => e.key === 'core.worktree' && UNTRUSTED_SCOPES.has(e.scope));
  if (!set.length) return null;
  const last = set[set.length - 1];
  const top = repoTopOf(cwd);
  const gitDir = top && gitDirIn(top);
  if (top && gitDir && realOrAsGiven(path.resolve(gitDir, last.value)) === realOrAsGiven(top)) return null;
  return { key: 'core.worktree', origin: last.origin };
}

/** How long an assessment is reused while none of the files it came from changed. */
const REUSE_MS = 1000;
const assessed = new Map<string, { at: number; origins: string[]; stamp: string; risk: RepoConfigRisk }>();

/** Each file's identity and change time: a new stamp means the configuration may have changed. */
function stampOf(files: string[], cwd: string): string {
  return files
    .map((f) => {
      try {
        const st = fs.statSync(path.resolve(cwd, f));
        return `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** What the repository at `cwd` would make git run, and its neutral values (reused for a second while its files are unchanged). */
export function repoConfigRiskSync(cwd: string, env: NodeJS.ProcessEnv = process.env): RepoConfigRisk {
  const hit = assessed.get(cwd);
  if (hit && Date.now() - hit.at < REUSE_MS && stampOf(hit.origins, cwd) === hit.stamp) return hit.risk;
  const listed = readConfigSync(cwd, env);
  const entries = listed.entries ?? [];
  const risk: RepoConfigRisk = listed.why !== undefined ? { overrides: [], unneutralized: [], unknown: listed.why } : assessConfig(entries);
  const worktree = foreignWorktree(entries, cwd);
  if (worktree) risk.unneutralized.push(worktree);
  const origins = [...new Set(entries.map((e) => e.origin).filter(Boolean))];
  // An unknown configuration is listed again next time (its file may have been fixed).
  if (!risk.unknown) assessed.set(cwd, { at: Date.now(), origins, stamp: stampOf(origins, cwd), risk });
  return risk;
}

/** Folders below `top` holding a `.git` entry of their own (nested repositories, submodules); a walk is reused for 10 s. */
const nestedCache = new Map<string, { at: number; found: string[] }>();
function nestedRepos(top: string): string[] {
  const hit = nestedCache.get(top);
  if (hit && Date.now() - hit.at < 10_000) return hit.found;
  const found: string[] = [];
  let seen = 0;
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > 500_000) return;
      if (e.name === '.git') {
        if (dir !== top) found.push(dir);
      } else if (e.isDirectory()) walk(path.join(dir, e.name));
    }
  };
  walk(top);
  nestedCache.set(top, { at: Date.now(), found });
  return found;
}

/** What a configuration's risk means for devx's own git: a line saying why it does not run, or null. */
function refusalOf(risk: RepoConfigRisk, dir: string, nested: boolean): string | null {
  const where = nested ? `the repository in ${dir}` : dir;
  if (risk.unknown)
    return `devx will not run git in ${where}: ${risk.unknown}, so what it would make git run is not known (see its .git/config and the files it includes)`;
  // The top's core.worktree is replaced by GIT_WORK_TREE; a nested repository's, which git uses when it recurses, is not.
  const wt = nested ? risk.unneutralized.find((u) => u.key === 'core.worktree') : undefined;
  if (wt) return `devx will not run git in ${where}: core.worktree in ${wt.origin} points outside that repository's folder`;
  return null;
}

/**
 * The environment for devx's own git process in `cwd`: the inherited git variables dropped, devx's own
 * (`extra`, e.g. GIT_INDEX_FILE) added, every program the configuration of the repository and of the
 * repositories nested in it names switched off, and the work tree fixed to the folder holding .git.
 * `risks` from other repositories are neutralised too. Throws GitRefusedError (one line saying why) when
 * a configuration cannot be judged.
 */
export function safeGitEnvSync(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  extra: Record<string, string> = {},
  risks: RepoConfigRisk[] = [],
): Record<string, string> {
  const top = repoTopOf(cwd);
  const own = repoConfigRiskSync(cwd, env);
  const why = refusalOf(own, top ?? cwd, false);
  if (why) throw new GitRefusedError(why);
  const nested: RepoConfigRisk[] = [];
  if (top) {
    for (const dir of nestedRepos(top)) {
      const risk = repoConfigRiskSync(dir, env);
      const no = refusalOf(risk, path.relative(top, dir) || dir, true);
      if (no) throw new GitRefusedError(no);
      nested.push(risk);
    }
  }
  return gitEnvFor(env, [own, ...nested, ...risks], { ...(top ? { GIT_WORK_TREE: top } : {}), ...extra });
}

/** The environment for git given the risks already assessed (no git process). */
export function gitEnvFor(env: NodeJS.ProcessEnv, risks: RepoConfigRisk[], extra: Record<string, string> = {}): Record<string, string> {
  const entries = [...FIXED, ...risks.flatMap((r) => r.overrides)];
  return withConfigEntries({ ...withoutGitEnv(env), ...FIXED_ENV, ...extra }, entries);
}

/** Where the subcommand is in git's arguments (after its global options). */
function subcommandAt(args: string[]): number {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) i += args[i] === '-c' || args[i] === '-C' ? 2 : 1;
  return i;
}

/** Subcommands that print diffs, and so would run diff.external or a driver's command. */
const DIFFING = new Set(['diff', 'log', 'show', 'format-patch', 'stash', 'range-diff']);

/** devx's own git arguments with --no-ext-diff and --no-textconv after a diffing subcommand (neither key has a neutral value). */
export function ownGitArgs(args: string[]): string[] {
  const i = subcommandAt(args);
  if (i >= args.length || !DIFFING.has(args[i]) || args[i] === 'stash') return args;
  return [...args.slice(0, i + 1), '--no-ext-diff', '--no-textconv', ...args.slice(i + 1)];
}

/** Runs git for devx itself, synchronously, with the safe environment; never throws for a failing git (nor a refused one: status 128, why on stderr). */
export function runGitSync(
  cwd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; extra?: Record<string, string>; timeout?: number; maxBuffer?: number; input?: string } = {},
) {
  let env: Record<string, string>;
  try {
    env = safeGitEnvSync(cwd, opts.env ?? process.env, opts.extra);
  } catch (err) {
    if (!(err instanceof GitRefusedError)) throw err;
    return { pid: 0, output: [null, '', err.message], stdout: '', stderr: err.message, status: 128, signal: null, error: err };
  }
  // A clone makes a new repository: a work tree given for the one it starts in would be the clone's.
  if (args[subcommandAt(args)] === 'clone') delete env.GIT_WORK_TREE;
  return runProcessSync('git', ownGitArgs(args), {
    cwd,
    env,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    input: opts.input,
    timeout: opts.timeout ?? 10_000,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
  });
}
