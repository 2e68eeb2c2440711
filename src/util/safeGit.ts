// Every git process devx starts, for itself or for the model, gets its environment here. A repository's
// configuration is untrusted input: `.git/config` (or a `.git` file's target, a worktree's config.worktree,
// or a file either includes) can name programs git runs at a plain `git status` — an fsmonitor, hooks, a
// pager, an external diff, a textconv, filter and merge drivers, ssh, credential helpers, an editor, gpg.
// Entries given as GIT_CONFIG_COUNT rank above every config file, so each such key the repository sets
// is given back a neutral value (or, when the user's own config sets it, the user's value). Two keys
// have no neutral value (diff.external and diff.<driver>.command): devx's own diffs pass --no-ext-diff,
// the sandbox mounts a copy of the config without them, and unsandboxed they make git ask.
import fs from 'node:fs';
import path from 'node:path';
import { runProcessSync } from './runSync.js';

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
  /** Repository-set keys nothing neutralises (diff.external, diff.<driver>.command), with the file each is in. */
  unneutralized: { key: string; origin: string }[];
}

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

/** The entries of one config file alone (no includes followed); [] when git cannot read it. */
export function readConfigFileSync(file: string, env: NodeJS.ProcessEnv = process.env): ConfigEntry[] {
  const r = runProcessSync('git', ['config', '--file', file, '--list', '--show-scope', '--show-origin', '-z'], {
    cwd: path.dirname(file),
    env: listingEnv(env),
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 10_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return r.status === 0 && typeof r.stdout === 'string' ? parseConfigList(r.stdout) : [];
}

/** The configuration git sees in `cwd`, every scope, includes followed; [] when git cannot list it. */
export function readConfigSync(cwd: string, env: NodeJS.ProcessEnv = process.env): ConfigEntry[] {
  const r = runProcessSync('git', ['config', '--list', '--show-scope', '--show-origin', '--includes', '-z'], {
    cwd,
    env: listingEnv(env),
    stdio: ['ignore', 'pipe', 'ignore'],
    timeout: 10_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return r.status === 0 && typeof r.stdout === 'string' ? parseConfigList(r.stdout) : [];
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
  const entries = readConfigSync(cwd, env);
  const risk = assessConfig(entries);
  const origins = [...new Set(entries.map((e) => e.origin).filter(Boolean))];
  assessed.set(cwd, { at: Date.now(), origins, stamp: stampOf(origins, cwd), risk });
  return risk;
}

/**
 * The environment for a git process in `cwd`: the inherited git variables dropped, devx's own (`extra`,
 * e.g. GIT_INDEX_FILE) added, and every program the repository's configuration names switched off.
 * `risks` from other repositories (nested ones a command may reach) are neutralised too.
 */
export function safeGitEnvSync(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  extra: Record<string, string> = {},
  risks: RepoConfigRisk[] = [],
): Record<string, string> {
  const own = repoConfigRiskSync(cwd, env);
  return gitEnvFor(env, [own, ...risks], extra);
}

/** The environment for git given the risks already assessed (no git process). */
export function gitEnvFor(env: NodeJS.ProcessEnv, risks: RepoConfigRisk[], extra: Record<string, string> = {}): Record<string, string> {
  const entries = [...FIXED, ...risks.flatMap((r) => r.overrides)];
  return withConfigEntries({ ...withoutGitEnv(env), ...FIXED_ENV, ...extra }, entries);
}

/** Subcommands that print diffs, and so would run diff.external or a driver's command. */
const DIFFING = new Set(['diff', 'log', 'show', 'format-patch', 'stash', 'range-diff']);

/** devx's own git arguments with --no-ext-diff and --no-textconv after a diffing subcommand (neither key has a neutral value). */
export function ownGitArgs(args: string[]): string[] {
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) i += args[i] === '-c' || args[i] === '-C' ? 2 : 1;
  if (i >= args.length || !DIFFING.has(args[i]) || args[i] === 'stash') return args;
  return [...args.slice(0, i + 1), '--no-ext-diff', '--no-textconv', ...args.slice(i + 1)];
}

/** Runs git for devx itself, synchronously, with the safe environment; never throws for a failing git. */
export function runGitSync(
  cwd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; extra?: Record<string, string>; timeout?: number; maxBuffer?: number; input?: string } = {},
) {
  return runProcessSync('git', ownGitArgs(args), {
    cwd,
    env: safeGitEnvSync(cwd, opts.env ?? process.env, opts.extra),
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    input: opts.input,
    timeout: opts.timeout ?? 10_000,
    maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
  });
}
