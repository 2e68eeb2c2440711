// git's subcommands that change things. Each one asks, and each is judged by a model of its options
// (gitOptions.ts, as `git <subcommand> -h` lists them) and of its operands: where it writes, which files it
// reads into objects or messages, which program it runs and where it sends the repository. An option outside
// the model, a patch (apply, am) or a push to an unnamed place asks in the class yolo refuses.
import { literalWord, type Word } from '../shellWords.js';
import { GIT_OPTIONS } from './gitOptions.js';
import { EXEC_OPTS, HELP, LOG } from './gitShared.js';
import {
  ASK,
  DENY,
  DOT,
  NOTHING_MORE,
  allOf,
  evaluate,
  options,
  strictest,
  unverifiable as unverifiableAs,
  type Model,
  type Opt,
  type Parsed,
  type PolicyDecision,
  type RuleContext,
  type SimpleCommand,
} from './kit.js';

const change = (sub: string) => ASK(`git ${sub} changes the repository or talks to a remote`, 'command:git-change');
const unverifiable = (sub: string, why: string) => unverifiableAs(`git-${sub}`, why);

/** The strategies git ships; any other name runs the program git-merge-<name> found on PATH. */
const STRATEGIES = new Set(['ort', 'recursive', 'resolve', 'octopus', 'ours', 'subtree']);

/** One subcommand: its options beyond the generated table and the effects of some, and what its operands do. */
interface Change {
  /** Options by any of their names, merged over the generated ones (an effect, or an option git -h does not list). */
  opts?: Record<string, Opt>;
  /** Options of other families it also takes (format-patch takes the diff options). */
  family?: Record<string, Opt>;
  check?: (p: Parsed, ctx: RuleContext, cmd: SimpleCommand) => PolicyDecision | null;
}

/** Effects beyond EXEC_OPTS that hold wherever the option exists. */
const EVERYWHERE: Record<string, Opt> = { '--separate-git-dir': { v: true, e: 'write', why: '--separate-git-dir puts the repository there' } };

const READ_FILE: Opt = { v: true, e: 'read', why: 'reads a file into the message' };

/** Is this word a remote's name rather than a URL or a path? */
const isRemoteName = (t: string) => /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(t) && t !== '.' && t !== '..';
/** URLs and scp-like addresses (`host:path`) name another machine; anything else may be a local path. */
const isRemoteAddress = (t: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(t) || /^[^/:]+:/.test(t);

/**
 * Where fetch, pull, clone and ls-remote read from. A remote's name is the user's; a local repository is
 * read like any folder; a URL reaches any machine (curl is denied for that) and brings in any tree,
 * whose files a merge or checkout then writes: it asks in the class yolo refuses.
 */
function source(sub: string, w: Word | undefined, ctx: RuleContext): PolicyDecision {
  if (!w || isRemoteName(w.text)) return NOTHING_MORE;
  if (isRemoteAddress(w.text))
    return unverifiable(sub, `git ${sub} reaches ${w.text}, which is not a remote's name: what it brings in cannot be checked in advance`);
  return ctx.checkPath(w, 'read');
}

/** Where push sends the repository: a configured remote by its name, or else anywhere at all. */
function pushTarget(w: Word | undefined): PolicyDecision {
  if (!w || isRemoteName(w.text)) return NOTHING_MORE;
  return unverifiable(
    'push',
    `git push sends this repository's commits to ${w.text}, which is not a remote's name; add the remote yourself, or push to one you have`,
  );
}

const writes = (ws: Word[], ctx: RuleContext) => allOf(ws.map((w) => ctx.checkPath(w, 'write')));
const reads = (ws: Word[], ctx: RuleContext) => allOf(ws.map((w) => ctx.checkPath(w, 'read')));

/**
 * What `git add`, `git stash -u` and `git clean` take from the untracked files below `specs`: each is
 * judged with `intent` (read into git's objects, or removed). Denied files there are refused by name.
 */
function untracked(
  sub: string,
  specs: Word[],
  ctx: RuleContext,
  o: { ignored: 'no' | 'also' | 'only'; excludes: string[]; intent: 'read' | 'write' },
): PolicyDecision {
  if (specs.some((w) => !w.literal)) return NOTHING_MORE; // the expansion itself asks
  const files = ctx.gitUntracked(specs, { ignored: o.ignored, excludes: o.excludes });
  if (!files) return unverifiable(sub, `git ${sub}: devx could not list the untracked files it would take (too many, or git failed); name them`);
  for (const f of files) {
    const d = ctx.checkPath(literalWord(f), o.intent);
    // devx's own files are refused to the model's reads so that it cannot learn or edit its policy, not
    // because they are secret: .devx/settings.json is meant to be committed. Deleting them is refused.
    if (o.intent === 'read' && d.path === 'devx-own') continue;
    if (d.decision === 'deny') {
      const hint = sub === 'clean' ? '; leave it out with -e <path>, or name what to clean' : '; name the files to take instead';
      return DENY(`git ${sub} would ${o.intent === 'read' ? 'store' : 'delete'} ${f}: ${d.reason}${hint}`, d.rule);
    }
  }
  return NOTHING_MORE;
}

/** A merge strategy git does not ship is a program from PATH. */
function strategy(sub: string, p: Parsed): PolicyDecision {
  const bad = (p.values.get('-s') ?? p.values.get('--strategy') ?? []).find((w) => !STRATEGIES.has(w.text));
  return bad ? unverifiable(sub, `git ${sub} --strategy ${bad.text} runs the program git-merge-${bad.text}, which devx cannot see in advance`) : NOTHING_MORE;
}

/** Pathspecs in a file: which files they name cannot be seen in advance. */
function pathspecFile(sub: string, p: Parsed): PolicyDecision {
  return p.opts.has('--pathspec-from-file')
    ? unverifiable(sub, `git ${sub} --pathspec-from-file takes its paths from a file, which cannot be checked in advance`)
    : NOTHING_MORE;
}

const CHANGES: Record<string, Change> = {
  clone: {
    opts: options('--reference=read --reference-if-able=read'),
    check: (p, ctx) => allOf([source('clone', p.operands[0], ctx), writes(p.operands.slice(1), ctx)]),
  },
  init: { check: (p, ctx) => writes(p.operands, ctx) },
  // With --multiple every operand is a repository; otherwise the first is, and the rest are refspecs.
  fetch: { check: (p, ctx) => allOf((p.opts.has('-m') ? p.operands : p.operands.slice(0, 1)).map((w) => source('fetch', w, ctx))) },
  'ls-remote': { check: (p, ctx) => source('ls-remote', p.operands[0], ctx) },
  pull: { check: (p, ctx) => allOf([source('pull', p.operands[0], ctx), strategy('pull', p)]) },
  push: { check: (p) => allOf([pushTarget(p.operands[0]), ...(p.values.get('--repo') ?? []).map((w) => pushTarget(w))]) },
  add: {
    check: (p, ctx) => {
      const specs = p.operands.length ? p.operands : p.opts.has('-A') ? [DOT] : [];
      const d = allOf([reads(p.operands, ctx), pathspecFile('add', p)]);
      if (p.opts.has('-u') || !specs.length) return d;
      return strictest(d, untracked('add', specs, ctx, { ignored: p.opts.has('-f') ? 'also' : 'no', excludes: [], intent: 'read' }));
    },
  },
  // --allow-empty and --allow-empty-message are hidden from `git commit -h`.
  commit: {
    opts: { '--template': READ_FILE, '-F': READ_FILE, '--allow-empty': {}, '--allow-empty-message': {} },
    check: (p, ctx) => allOf([reads(p.operands, ctx), pathspecFile('commit', p)]),
  },
  'stash push': {
    check: (p, ctx) => {
      const d = allOf([reads(p.operands, ctx), pathspecFile('stash', p)]);
      if (!p.opts.has('-u') && !p.opts.has('-a')) return d;
      const specs = p.operands.length ? p.operands : [DOT];
      return strictest(d, untracked('stash', specs, ctx, { ignored: p.opts.has('-a') ? 'also' : 'no', excludes: [], intent: 'read' }));
    },
  },
  rm: { check: (p, ctx) => allOf([p.opts.has('--cached') ? NOTHING_MORE : writes(p.operands, ctx), pathspecFile('rm', p)]) },
  mv: {
    check: (p, ctx) => {
      if (p.operands.length < 2) return NOTHING_MORE;
      const sources = p.operands.slice(0, -1);
      // Like mv: every operand is written (the sources go away), each source is judged where it lands, a folder takes what it protects along.
      return allOf([
        writes(p.operands, ctx),
        ctx.checkPlacement(sources, p.operands[p.operands.length - 1], { into: 'auto', moves: true }),
        ...sources.map((w) => ctx.checkTree(w, 'moving')),
      ]);
    },
  },
  checkout: { check: (p, ctx) => allOf([writes(p.operands, ctx), pathspecFile('checkout', p)]) },
  restore: { check: (p, ctx) => allOf([writes(p.operands, ctx), pathspecFile('restore', p)]) },
  reset: { check: (p, ctx) => allOf([writes(p.operands, ctx), pathspecFile('reset', p)]) },
  clean: {
    check: (p, ctx) => {
      if (p.opts.has('-n')) return NOTHING_MORE;
      const specs = p.operands.length ? p.operands : [DOT];
      const ignored = p.opts.has('-x') ? 'also' : p.opts.has('-X') ? 'only' : 'no';
      return untracked('clean', specs, ctx, { ignored, excludes: (p.values.get('-e') ?? []).map((w) => w.text), intent: 'write' });
    },
  },
  merge: { opts: { '-F': READ_FILE }, check: (p) => strategy('merge', p) },
  rebase: { check: (p) => strategy('rebase', p) },
  'cherry-pick': { check: (p) => strategy('cherry-pick', p) },
  revert: { check: (p) => strategy('revert', p) },
  'format-patch': {
    family: LOG,
    opts: {
      '-o': { v: true, e: 'write', why: '--output-directory writes the patches' },
      '--signature-file': { v: true, e: 'read' },
      '--description-file': { v: true, e: 'read' },
    },
  },
  apply: {
    opts: { '--build-fake-ancestor': { v: true, e: 'write' } },
    check: (p, ctx) => {
      const reads_ = reads(p.operands, ctx);
      const onlyReports = ['--stat', '--numstat', '--summary', '--check'].some((o) => p.opts.has(o)) && !p.opts.has('--apply');
      if (onlyReports) return reads_;
      return strictest(
        reads_,
        unverifiable('apply', 'git apply writes the files the patch names, which devx does not read in advance; use edit_file, or run it yourself'),
      );
    },
  },
  am: {
    check: (p) =>
      ['--abort', '--quit', '--show-current-patch'].some((o) => p.opts.has(o))
        ? NOTHING_MORE
        : unverifiable('am', 'git am applies patches that name their own files, which devx does not read in advance'),
  },
  'worktree add': { check: (p, ctx) => writes(p.operands.slice(0, 1), ctx) },
  'worktree move': { check: (p, ctx) => allOf([writes(p.operands.slice(1, 2), ctx), ...p.operands.slice(0, 1).map((w) => ctx.checkTree(w, 'moving'))]) },
  'worktree remove': { check: (p, ctx) => allOf([writes(p.operands, ctx), ...p.operands.map((w) => ctx.checkTree(w, 'removing'))]) },
  'worktree repair': { check: (p, ctx) => writes(p.operands, ctx) },
  'notes add': { opts: { '-F': READ_FILE }, check: (p) => reuse('notes', p) },
  'notes append': { opts: { '-F': READ_FILE }, check: (p) => reuse('notes', p) },
  'notes edit': { check: () => NOTHING_MORE },
  'remote add': { check: () => unverifiable('remote', 'git remote add names a place pushes and fetches may go') },
  'remote set-url': { check: () => unverifiable('remote', 'git remote set-url changes where pushes and fetches go') },
  'stash branch': {},
  'stash pop': {},
  'stash apply': {},
  'stash drop': {},
  whatchanged: { family: LOG },
  tag: { opts: { '-F': READ_FILE, '-n': { v: 'attached' } } },
};

/** notes -C/-c copy any blob, whose id `git ls-tree` prints for every tracked file, denied ones included. */
function reuse(sub: string, p: Parsed): PolicyDecision {
  return p.opts.has('-C') || p.opts.has('-c')
    ? unverifiable(sub, `git ${sub} -C/-c copies a blob given by id, whose content devx cannot see in advance`)
    : NOTHING_MORE;
}

/** The generated options of a subcommand, with git's negations (`--no-x` for `--x`, `--x` for `--no-x`). */
function generated(key: string): Record<string, Opt> {
  const out: Record<string, Opt> = {};
  for (const spec of (GIT_OPTIONS[key] ?? '').split(' ').filter(Boolean)) {
    const m = /^(.*?)(=\??)?$/.exec(spec)!;
    const names = m[1].split('|');
    out[names.join('|')] = m[2] === '=' ? { v: true } : m[2] === '=?' ? { v: 'attached' } : {};
    for (const n of names.filter((x) => x.startsWith('--'))) {
      const neg = n.startsWith('--no-') ? `--${n.slice(5)}` : `--no-${n.slice(2)}`;
      if (!(neg in out)) out[neg] = {};
    }
  }
  return out;
}

/** Puts `spec` on the option named `name`, whichever alias group holds it (or as a new option). */
function mark(opts: Record<string, Opt>, name: string, spec: Opt): void {
  const key = Object.keys(opts).find((k) => k.split('|').includes(name)) ?? name;
  opts[key] = { ...opts[key], ...spec };
}

const models = new Map<string, Model>();

/** The model of one subcommand (`clone`, `worktree add`): generated options, then the effects that hold in every subcommand, then its own. */
function modelOf(key: string): Model {
  let m = models.get(key);
  if (m) return m;
  const c = CHANGES[key] ?? {};
  const opts: Record<string, Opt> = { ...HELP, ...(c.family ?? {}), ...generated(key) };
  for (const [name, spec] of Object.entries({ ...EXEC_OPTS, ...EVERYWHERE })) for (const n of name.split('|')) mark(opts, n, spec);
  // In clone, -u is --upload-pack and -c is --config (in the table already as aliases); elsewhere they are harmless.
  for (const [name, spec] of Object.entries(c.opts ?? {})) mark(opts, name, spec);
  const sub = key.split(' ')[0];
  m = {
    id: `git-${key.replace(' ', '-')}`,
    opts,
    operands: 'none',
    numeric: true,
    check: c.check ? (p, cmd, ctx) => c.check!(p, ctx, cmd) : undefined,
    base: () => change(sub),
  };
  models.set(key, m);
  return m;
}

/** Subcommands with subcommands of their own: the word that picks one, and the one taken when none is given. */
const NESTED: Record<string, { default?: string }> = {
  stash: { default: 'push' },
  worktree: {},
  notes: { default: 'list' },
  remote: {},
  'sparse-checkout': {},
};

/**
 * The decision for a changing git subcommand (`args` after the subcommand's name), or null when devx
 * has no model of it. Always at least an ask.
 */
export function gitChangeRule(subName: string, args: Word[], cmd: SimpleCommand, ctx: RuleContext): PolicyDecision | null {
  if (subName === 'bisect') {
    if (args[0]?.text === 'run') return DENY('git bisect run runs a program at every step', 'command:exec:git');
    if (/^(visualize|view)$/.test(args[0]?.text ?? '')) return DENY(`git bisect ${args[0].text} opens gitk or a pager`, 'command:exec:git');
    return change('bisect');
  }
  if (subName === 'maintenance') {
    if (/^(start|stop|register|unregister)$/.test(args[0]?.text ?? ''))
      return DENY(`git maintenance ${args[0].text} schedules jobs in cron or systemd and edits your global git config`, 'command:system:git');
    return unverifiable('maintenance', 'git maintenance runs tasks devx does not model');
  }
  if (subName === 'help') {
    if (args.some((a) => /^-(w|i|m)$|^--(web|info|man)$/.test(a.text))) return DENY('git help opens a browser, info or man', 'command:exec:git');
    return change('help');
  }
  let key = subName;
  let rest = args;
  const nested = NESTED[subName];
  if (nested) {
    const first = args[0]?.text;
    if (first && !first.startsWith('-')) {
      key = `${subName} ${first}`;
      rest = args.slice(1);
    } else if (nested.default) key = `${subName} ${nested.default}`;
    // `git stash save` is the old spelling of push.
    if (key === 'stash save') key = 'stash push';
  }
  if (!(key in GIT_OPTIONS) && !(key in CHANGES)) return null;
  return evaluate(modelOf(key), { ...cmd, args: rest }, ctx);
}
