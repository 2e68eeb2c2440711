// How the command policy judges the words of a command line as paths: from every directory the shell
// may be in, globs by what they match, settings rules applied, recursive reads by the denied files below,
// and untracked files as git lists them. decideCommand walks the line; these check what it finds.
import fs from 'node:fs';
import { runProcessSyncBytes } from '../util/runSync.js';
import { decodedName } from '../util/fileNames.js';
import { bashArgs } from '../util/bashLine.js';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Word } from './shellWords.js';
import { decidePath, type PathIntent, type PathPolicyContext } from './pathPolicy.js';
import { deniedUnder } from './deniedPaths.js';
import { untrackedPaths } from './trackedDenied.js';
import { isInside } from '../sandbox/resolvePath.js';
import type { WordResolver } from './writeTargets.js';
import { matchesDotEntry } from './bashQuirks.js';
import { ALLOW, ASK, DENY, settingsDecision, strictest, type PolicyDecision } from './types.js';
import { matchPathRules, type PermissionRules } from './permissions.js';
import type { Parser } from 'web-tree-sitter';

const MAX_GLOB_MATCHES = 500;

/** What judging one command line needs and collects. */
export interface CommandPolicyContext {
  parser: Parser;
  paths: PathPolicyContext;
  headless: boolean;
  sandboxed: boolean;
  /** The user trusted the project (`devx trust`): its git data outside it (a worktree's) is theirs. */
  trusted?: boolean;
  permissions?: PermissionRules;
  /** Plan mode: only read-only commands may run. */
  readOnly?: boolean;
  /** Filled while judging: what the line was found to write and whether it runs project code (the claim). */
  effects?: Effects;
}

export interface Effects {
  writes: Set<string>;
  build: boolean;
  git: boolean;
}

export interface WalkState {
  cwd: string;
  /** A variable was set earlier in this command line: later expansions carry model-chosen text. */
  assigned?: boolean;
  /** pushd's stack: the directories popd returns to (each entry: every directory the shell may have been in). */
  dirs?: string[][];
  /** Other directories the shell may be in (a cd into a folder that does not exist yet may fail). */
  alt?: string[];
}

let fgSync: ((p: string, o: object) => string[]) | null = null;

/** What a glob matched, and whether a match has a name that is not UTF-8 (no path the policy can judge names it). */
interface GlobMatches {
  paths: string[];
  undecodable: boolean;
}

/**
 * What bash makes of a glob: bash itself expands it (`compgen -G`), since the command runs in bash and a
 * library's matcher differs at the edges (fast-glob finds nothing for `~/.ss?/id_rsa`). fast-glob only
 * where bash cannot be run. The matches are read as bytes: a name that is not UTF-8, read as text, would
 * be judged as a path that does not exist.
 */
function expandGlob(pattern: string, cwd: string): GlobMatches {
  const r = runProcessSyncBytes('bash', [...bashArgs('compgen -G "$1"'), '_', pattern], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 5000,
    maxBuffer: 8 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  if (r.status === 0 || (r.status === 1 && !r.stdout?.length)) return matchesOf(r.stdout ?? Buffer.alloc(0), cwd);
  if (!fgSync) fgSync = (createRequire(import.meta.url)('fast-glob') as { sync: (p: string, o: object) => string[] }).sync;
  const found = fgSync(pattern, { cwd, dot: false, onlyFiles: false, followSymbolicLinks: false, absolute: true, suppressErrors: true });
  return { paths: found.filter((p) => !p.includes('\uFFFD')), undecodable: found.some((p) => p.includes('\uFFFD')) };
}

/** compgen's lines as paths; a line that is not UTF-8 is counted, not judged. */
function matchesOf(out: Buffer, cwd: string): GlobMatches {
  const m: GlobMatches = { paths: [], undecodable: false };
  for (let i = 0; i < out.length;) {
    const end = out.indexOf(0x0a, i) === -1 ? out.length : out.indexOf(0x0a, i);
    const line = out.subarray(i, end);
    i = end + 1;
    if (!line.length) continue;
    const text = decodedName(line);
    if (text === null) m.undecodable = true;
    else m.paths.push(path.resolve(cwd, text));
  }
  return m;
}

/** Every directory the shell may be in at this point: a cd that may have failed leaves the old one possible. */
export const cwdsOf = (state: WalkState): string[] => [state.cwd, ...(state.alt ?? [])];

/** Path-checks a word from every directory the shell may be in. */
export function checkWord(w: Word, intent: PathIntent, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  return cwdsOf(state)
    .map((cwd) => checkWordAt(w, intent, cwd, ctx))
    .reduce(strictest);
}

/** Path-checks a word: literal paths directly, globs by their matches, unknown values ask. */
function checkWordAt(w: Word, intent: PathIntent, cwd: string, ctx: CommandPolicyContext): PolicyDecision {
  const pctx: PathPolicyContext = { ...ctx.paths, cwd, outside: 'ask-read' };
  if (w.unknownKinds.length) return DENY(`unsupported shell syntax (${w.unknownKinds.join(', ')})`, 'command:unsupported-syntax');
  if (/^\/dev\/(tcp|udp)\//.test(w.text)) return DENY(`${w.text} opens a network connection`, 'command:network:dev-tcp');
  if (!w.literal) return ASK(`the argument ${w.text} expands at run time and cannot be checked in advance`, 'command:expansion');
  if (!w.glob) return noteWrite(withSettings(decidePath(w.text, intent, pctx), intent, ctx), intent, ctx);
  // bash expands a leading ~ before the glob (`~/.ss[h]/id_rsa`): the pattern is matched from the home folder.
  if (w.text === '~' || w.text.startsWith('~/')) w = { ...w, text: path.join(ctx.paths.home, w.text.slice(1)) };
  // bash before 5.2 (macOS ships 3.2) lets `.*` match `.` and `..`: `./.*/x` can be `../x`, which the glob expansion here never lists.
  const dots = w.text.split('/').find((seg) => /[*?[]/.test(seg) && matchesDotEntry(seg));
  const dir = w.text.slice(0, w.text.search(/[*?[]/)).replace(/[^/]*$/, '') || '.';
  let d = decidePath(dir, 'list', pctx);
  if (dots)
    d = strictest(
      d,
      ASK(
        `${w.text}: the pattern ${dots} can match . or .. in bash before 5.2, which leads out of where it points; write the path without that glob`,
        'command:computed-argument',
      ),
    );
  const { paths: matches, undecodable } = expandGlob(w.text, cwd);
  if (undecodable) d = strictest(d, undecodableMatch(w.text));
  if (matches.length > MAX_GLOB_MATCHES) return strictest(d, ASK(`${w.text} matches more than ${MAX_GLOB_MATCHES} files`, 'command:glob-large'));
  for (const m of matches) d = strictest(d, noteWrite(withSettings(decidePath(m, intent, pctx), intent, ctx), intent, ctx));
  return d;
}

/** A glob matching a name that is not UTF-8: what that file is (a link out, a hard link) cannot be checked. */
function undecodableMatch(pattern: string): PolicyDecision {
  return ASK(
    `${pattern} matches a file whose name is not UTF-8, which devx cannot check (a link out of the project would look like a missing file); rename it, or name the other files without a glob`,
    'command:undecodable-name',
  );
}

/** Records a path judged as a write target: the sandbox makes its folder writable and nothing else. */
function noteWrite<D extends PolicyDecision & { real?: string }>(d: D, intent: PathIntent, ctx: CommandPolicyContext): D {
  if (intent === 'write' && d.real && d.decision !== 'deny' && d.path !== 'null-device') ctx.effects?.writes.add(d.real);
  return d;
}

/** Settings Read(...)/Edit(...)/Write(...) rules hold for command arguments as for file tools. */
function withSettings(d: PolicyDecision & { real?: string }, intent: PathIntent, ctx: CommandPolicyContext): PolicyDecision & { real?: string } {
  if (!ctx.permissions || !d.real || d.decision === 'deny') return d;
  const m = matchPathRules(d.real, intent === 'list' ? 'list' : intent, ctx.permissions);
  if (m?.kind === 'deny') return settingsDecision('deny', m.source, m.rule, `denied by your settings rule ${m.rule}`);
  if (m?.kind === 'ask') return { ...strictest(d, settingsDecision('ask', m.source, m.rule, `your settings rule ${m.rule} asks first`)), real: d.real };
  return d;
}

/** A tree read recursively: denied paths below it can only be hidden by the sandbox. With `linksOut`
 * (a listing that follows symlinks), only the symlinks below that lead out of the project count. */
export function checkRecursive(w: Word, opts: { hidden: boolean; linksOut: boolean }, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  return cwdsOf(state)
    .map((cwd) => checkRecursiveAt(w, opts, cwd, ctx))
    .reduce(strictest);
}

function checkRecursiveAt(w: Word, opts: { hidden: boolean; linksOut: boolean }, cwd: string, ctx: CommandPolicyContext): PolicyDecision {
  if (!w.literal || w.glob) return ALLOW('checked as a path', 'command:paths');
  const pd = decidePath(w.text, opts.linksOut ? 'list' : 'read', { ...ctx.paths, cwd, outside: 'ask-read' });
  if (pd.decision === 'deny' || !pd.real) return pd;
  const scan = deniedUnder(
    pd.real,
    { root: ctx.paths.root, home: ctx.paths.home, devxHome: ctx.paths.devxHome, permissions: ctx.permissions },
    { hidden: opts.hidden },
  );
  const what = opts.linksOut ? 'symlinks' : 'denied files';
  if (scan.undecodable.length)
    return ASK(
      `${w.text} holds names that are not UTF-8 (e.g. ${path.relative(ctx.paths.root, scan.undecodable[0]) || scan.undecodable[0]}), which devx cannot check for ${what} before a recursive ${opts.linksOut ? 'listing' : 'read'}; rename them, or read the other files by name`,
      'command:undecodable-name',
    );
  if (scan.capped)
    return ASK(`${w.text} is too large to check for ${what} before a recursive ${opts.linksOut ? 'listing' : 'read'}`, 'command:recursive-denied');
  const found = opts.linksOut ? scan.paths.filter((p) => leadsOutside(p, ctx.paths.root)) : scan.paths;
  if (!found.length) return ALLOW(opts.linksOut ? 'no symlinks below lead out of the project' : 'no denied files below', 'command:paths');
  const example = path.relative(ctx.paths.root, found[0]) || found[0];
  if (opts.linksOut) {
    if (ctx.sandboxed)
      return ALLOW(
        `lists ${w.text} inside the sandbox, where its ${found.length} symlink(s) out of the project reach only what the sandbox shows (no home folder)`,
        'command:recursive-sandboxed',
      );
    return ASK(
      `${w.text} holds ${found.length} symlink(s) leading out of the project (e.g. ${example}), and this listing follows them; without bubblewrap they cannot be hidden`,
      'command:recursive-denied',
    );
  }
  if (ctx.sandboxed)
    return ALLOW(`reads ${w.text} recursively inside the sandbox, with its ${found.length} denied path(s) hidden`, 'command:recursive-sandboxed');
  return ASK(
    `${w.text} holds ${found.length} path(s) the policy denies (e.g. ${example}); without bubblewrap they cannot be hidden from a recursive read`,
    'command:recursive-denied',
  );
}

/** How the write-target checks see words here: from every directory the shell may be in, globs expanded, writes judged with settings. */
export function wordsHere(state: WalkState, ctx: CommandPolicyContext): WordResolver {
  return {
    cwds: cwdsOf(state),
    home: ctx.paths.home,
    // null: not known in advance (checkWordAt asked about the word already).
    expand: (pattern, cwd) => {
      const found = expandGlob(pattern, cwd);
      return found.undecodable || found.paths.length > MAX_GLOB_MATCHES ? null : found.paths;
    },
    judgeWrite: (abs, cwd) => noteWrite(withSettings(decidePath(abs, 'write', { ...ctx.paths, cwd, outside: 'ask-read' }), 'write', ctx), 'write', ctx),
  };
}

/** A symlink whose target is outside the project (dangling ones lead nowhere a listing can follow). */
function leadsOutside(p: string, root: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink() && !isInside(root, fs.realpathSync(p));
  } catch {
    return false;
  }
}

/** Untracked files under the pathspecs, as git lists them from every directory the shell may be in; null when git cannot tell. */
export function gitUntrackedHere(specs: Word[], o: { ignored: 'no' | 'also' | 'only'; excludes: string[] }, state: WalkState): string[] | null {
  const all: string[] = [];
  const texts = specs.map((w) => w.text);
  for (const cwd of cwdsOf(state)) {
    const found = untrackedPaths(cwd, texts, o);
    if (!found) return null;
    all.push(...found);
  }
  return all;
}
