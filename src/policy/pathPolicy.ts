// Path policy: where a path may be read, listed or written. Containment is checked on real paths
// (symlinks resolved, segment comparison), and sensitive files are matched, case-insensitively, on
// both the path as given and the real path, so a link cannot launder a secret's name.
import fs from 'node:fs';
import path from 'node:path';
import { isInside, PathError, realpathDeepest } from '../sandbox/resolvePath.js';
import { hooksPathOf } from '../sandbox/sandboxPaths.js';
import { otherToolRunning } from '../sandbox/otherToolsConfig.js';
import { ALLOW, ASK, DENY, type PolicyDecision } from './types.js';

import type { PathIntent } from './types.js';
export type { PathIntent };

export interface PathPolicyContext {
  /** realpath of the project root. */
  root: string;
  /** Directory relative paths are resolved from (the root unless a `cd` moved it). */
  cwd?: string;
  home: string;
  /** devx's own home (~/.devx), never readable or writable by the model. */
  devxHome: string;
  /** Outside-root access: file tools deny it, shell commands may ask for reads. */
  outside: 'deny' | 'ask-read';
  /** Folders outside the project the user lets the model read (permissions.additionalDirectories, --add-dir): real paths. */
  additionalDirs?: string[];
}

/**
 * Files other programs run commands from, inside the project (sandbox/otherToolsConfig.ts), and the git hooks
 * folder core.hooksPath names. A write there runs later, outside devx: a person approves it, no approval mode.
 */
export function execConfig(root: string, real: string): string | null {
  const runs = otherToolRunning(path.relative(root, real).split(path.sep));
  if (runs) return runs;
  const hooks = hooksPathCached(root);
  if (hooks && isInside(hooks, real)) return `git runs the hooks in ${path.relative(root, hooks)} (core.hooksPath)`;
  return null;
}

const hooksCache = new Map<string, { key: string; value: string | null }>();
/** core.hooksPath of the project, read again only when .git/config changes. */
function hooksPathCached(root: string): string | null {
  let key = '-';
  try {
    const st = fs.statSync(path.join(root, '.git', 'config'));
    key = `${st.mtimeMs}:${st.size}:${st.ino}`;
  } catch {
    return null;
  }
  const hit = hooksCache.get(root);
  if (hit?.key === key) return hit.value;
  const value = hooksPathOf(root);
  hooksCache.set(root, { key, value });
  return value;
}

interface SensitiveRule {
  id: string;
  test(segments: string[]): boolean;
  /** Writes only (reading is fine). */
  writeOnly?: boolean;
  /** devx's own state: refused so the model cannot learn or edit its policy, not because it is secret. */
  own?: boolean;
  reason: string;
}

const lower = (s: string) => s.toLowerCase();
const base = (segs: string[]) => segs[segs.length - 1] ?? '';
const hasSeq = (segs: string[], seq: string[]) => segs.some((_, i) => seq.every((s, k) => segs[i + k] === s));

const SENSITIVE: SensitiveRule[] = [
  {
    id: 'sensitive:dotenv',
    test: (s) => s.some((x) => /^\.env/.test(x) && !/^\.env\.(example|sample|template|dist)$/.test(x)),
    reason: '.env files hold secrets',
  },
  { id: 'sensitive:ssh', test: (s) => s.includes('.ssh') || /^id_(rsa|ed25519|ecdsa|dsa)/.test(base(s)), reason: 'SSH keys and config' },
  { id: 'sensitive:key-file', test: (s) => /\.(pem|key|p12|pfx)$/.test(base(s)), reason: 'private keys and certificates' },
  {
    id: 'sensitive:credentials',
    test: (s) => ['.npmrc', '.netrc', '.git-credentials', 'credentials.json', '.pgpass', '.pypirc'].includes(base(s)) || /^oauth_creds.*\.json$/.test(base(s)),
    reason: 'credential files',
  },
  {
    id: 'sensitive:cloud',
    test: (s) => s.includes('.aws') || s.includes('.kube') || s.includes('.gnupg') || hasSeq(s, ['.docker', 'config.json']) || hasSeq(s, ['.config', 'gcloud']),
    reason: 'cloud and cluster credentials',
  },
  // Tokens other tools keep in the home directory: AI and developer CLIs, password stores, browser profiles.
  {
    id: 'sensitive:tokens',
    test: (s) =>
      ['.vault-token', '.boto', '.s3cfg', 'credentials.tfrc.json', '.claude.json', 'rclone.conf'].includes(base(s)) ||
      [
        ['.claude', '.credentials.json'],
        ['.codex', 'auth.json'],
        ['.config', 'gh', 'hosts.yml'],
        ['.config', 'hub'],
        ['.cargo', 'credentials.toml'],
        ['.cargo', 'credentials'],
        ['.gem', 'credentials'],
      ].some((q) => hasSeq(s, q) && base(s) === q[q.length - 1]) ||
      ['.azure', '.password-store', '.mozilla'].some((d) => s.includes(d)) ||
      [
        ['.config', 'op'],
        ['.local', 'share', 'keyrings'],
        ['.config', 'google-chrome'],
        ['.config', 'chromium'],
        ['.config', 'bravesoftware'],
      ].some((q) => hasSeq(s, q)),
    reason: 'tokens and passwords other programs keep (CLI logins, password stores, browser profiles)',
  },
  { id: 'sensitive:history', test: (s) => /^\.([a-z_]+_history|history|zhistory)$/.test(base(s)), reason: 'shell and REPL histories often hold typed secrets' },
  {
    id: 'sensitive:git-config',
    test: (s) => hasSeq(s, ['.git', 'config']) && base(s) === 'config' && s[s.length - 2] === '.git',
    reason: '.git/config can run programs (hooks, pagers, credential helpers)',
  },
  { id: 'sensitive:git-hooks', test: (s) => hasSeq(s, ['.git', 'hooks']), writeOnly: true, reason: 'git hooks run code on the next git command' },
  // Anything else named .git: a `.git` file (gitdir: elsewhere), commondir, config.worktree and modules/*/config
  // or hooks all choose the config and hooks git runs with. git writes there itself; the model's writes may not.
  {
    id: 'sensitive:git-dir',
    test: (s) => s.includes('.git'),
    writeOnly: true,
    reason: "git's own folder: what is written there (a .git file, commondir, modules, config) decides which programs git runs",
  },
  {
    id: 'sensitive:devx-settings',
    test: (s) => hasSeq(s, ['.devx']) && /^(settings(\.local)?\.json|audit\.jsonl|trusted-projects\.json)$/.test(base(s)),
    own: true,
    reason: "devx's own settings and audit log: the model must never edit its policy",
  },
  {
    id: 'sensitive:devx-state',
    // A queued task's run may write its plan file and the queue's workspace; nothing else under .devx/.
    test: (s) => s.includes('.devx') && !hasSeq(s, ['.devx', 'agents', 'plans']) && !hasSeq(s, ['.devx', 'agents', 'workspace']),
    writeOnly: true,
    own: true,
    reason: "devx's own state directory",
  },
  { id: 'sensitive:system', test: (s) => ['shadow', 'gshadow', 'sudoers'].includes(base(s)) && s[1] === 'etc', reason: 'system credential files' },
  {
    id: 'sensitive:proc',
    test: (s) => s[1] === 'proc' && ['environ', 'mem', 'root', 'cwd', 'maps'].some((x) => s.includes(x)),
    reason: 'process memory and environment',
  },
];

/** The sensitive-file rule a path (as given and as resolved) falls under, or null. */
export function sensitiveRule(candidates: string[], intent: PathIntent): SensitiveRule | null {
  for (const c of candidates) {
    const parts = lower(c).split(/[\\/]+/);
    const segs = ['', ...parts.filter(Boolean)];
    for (const rule of SENSITIVE) {
      if (rule.writeOnly && intent !== 'write') continue;
      if (rule.test(segs)) return rule;
    }
  }
  return null;
}

/**
 * Why devx should not read or write `file` itself on a definition's behalf (an agent import, MEMORY.md, a
 * workflow artifact): it resolves outside every one of `roots`, or to a file the path policy protects.
 * Null when it may. The tools' own calls go through decidePath instead.
 */
export function outsideOrProtected(
  file: string,
  roots: string[],
  intent: PathIntent,
  shown = file,
): { why: 'protected' | 'outside' | 'unresolvable'; reason: string } | null {
  let real: string;
  try {
    real = realpathDeepest(path.resolve(file));
  } catch (err) {
    return { why: 'unresolvable', reason: (err as Error).message };
  }
  const realOf = (dir: string) => {
    try {
      return realpathDeepest(dir);
    } catch {
      return dir;
    }
  };
  const rule = sensitiveRule([file, real], intent);
  if (rule) return { why: 'protected', reason: `${shown} is protected (${rule.reason})` };
  if (!roots.some((r) => isInside(realOf(r), real))) return { why: 'outside', reason: `${shown} resolves outside the project (${real})` };
  return null;
}

export interface PathDecision extends PolicyDecision {
  /** The resolved real path (when it could be resolved). */
  real?: string;
}

/** Decides a single path. Never throws on model input. */
export function decidePath(p: string, intent: PathIntent, ctx: PathPolicyContext): PathDecision {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) return DENY('path contains control characters', 'path:control-chars');
  const cwd = ctx.cwd ?? ctx.root;
  const expanded = p === '~' ? ctx.home : p.startsWith('~/') ? path.join(ctx.home, p.slice(2)) : p;
  const given = path.resolve(cwd, expanded === '' ? '.' : expanded);
  let real: string;
  try {
    real = realpathDeepest(given);
  } catch (err) {
    if (err instanceof PathError) return DENY(err.message, 'path:symlink-loop');
    return DENY(`cannot resolve ${p}: ${(err as Error).message}`, 'path:unresolvable');
  }
  if (real === '/dev/null' || (intent !== 'read' && /^\/dev\/(stdout|stderr)$/.test(real))) {
    return { ...ALLOW('the null device', 'path:dev-null'), real, path: 'null-device' };
  }
  // The given name counts too: a link called .env pointing at notes.txt is still refused.
  const sensitive = sensitiveRule([given, real, p], intent);
  if (sensitive) return { ...DENY(`${p} is protected (${sensitive.reason})`, `path:${sensitive.id}`), real, path: sensitive.own ? 'devx-own' : 'protected' };
  if (isInside(ctx.devxHome, real) || isInside(path.join(ctx.home, '.gemini'), real)) {
    return { ...DENY(`${p} is inside devx's or gemini's own configuration`, 'path:agent-config'), real };
  }
  if (!isInside(ctx.root, real)) {
    const shown = real === given ? given : `${given} -> ${real}`;
    const extra = ctx.additionalDirs?.find((d) => isInside(d, real));
    if (extra && intent !== 'write') return { ...ALLOW(`inside ${extra}, a folder your settings add (additionalDirectories)`, 'path:additional-dir'), real };
    if (extra) return { ...ASK(`writes outside the project, in ${extra} (additionalDirectories): ${shown}`, 'path:additional-dir-write'), real };
    if (ctx.outside === 'ask-read' && intent !== 'write') {
      return { ...ASK(`reads outside the project root (${shown})`, 'path:outside-root-read'), real };
    }
    return { ...DENY(`path is outside the project root (${shown}); only files under ${ctx.root} can be used`, 'path:outside-root'), real, path: 'outside' };
  }
  // A hardlink can make a file outside the root appear inside it: let a person decide.
  try {
    const st = fs.lstatSync(real);
    if (st.isFile() && st.nlink > 1)
      return { ...ASK(`${p} has ${st.nlink} hard links; it may be a file from outside the project`, 'path:hardlink'), real, path: 'hardlink' };
  } catch {
    /* does not exist yet */
  }
  if (intent === 'write') {
    const runs = execConfig(ctx.root, real);
    if (runs)
      return { ...ASK(`${p} is configuration another program runs commands from (${runs}); a person must approve this write`, 'path:exec-config'), real };
  }
  return { ...ALLOW('inside the project', 'path:inside-root'), real };
}
