// git: global options, then a subcommand. Read-only subcommands have an option model; options that
// run programs (-c, --exec-path, -O/--open-files-in-pager, --upload-pack, --receive-pack, --exec,
// --ext-diff, --textconv) are denied in every subcommand; --output writes a file; `rev:path` and
// --no-index operands are paths. Changes ask; config, hooks and transport plumbing are denied.
import type { Word } from '../shellWords.js';
import { ALLOW, ASK, DENY, decideEffect, evaluate, flags, strictest, values, word, type Effect, type Model, type Opt, type PolicyDecision, type RuleContext, type SimpleCommand } from './kit.js';

const CHANGE = ['add', 'commit', 'push', 'pull', 'fetch', 'reset', 'checkout', 'switch', 'restore', 'merge', 'rebase', 'cherry-pick', 'revert', 'rm', 'mv', 'clean', 'init', 'clone', 'am', 'apply', 'worktree', 'gc', 'prune', 'notes', 'bisect', 'ls-remote', 'maintenance', 'sparse-checkout', 'format-patch', 'request-pull', 'pack-refs', 'repack', 'fsck', 'count-objects', 'check-ignore', 'check-attr', 'var', 'merge-base', 'name-rev', 'range-diff', 'whatchanged', 'cherry', 'help', 'version'];
const DENIED = ['config', 'hook', 'submodule', 'filter-branch', 'filter-repo', 'daemon', 'send-email', 'credential', 'credential-store', 'credential-cache', 'http-backend', 'upload-pack', 'receive-pack', 'upload-archive', 'archive', 'bundle', 'fast-import', 'replace', 'instaweb', 'web--browse', 'difftool', 'mergetool', 'update-ref', 'symbolic-ref', 'remote-ext', 'remote-fd', 'shell', 'p4', 'svn', 'cvsimport', 'cvsserver', 'imap-send', 'quiltimport', 'update-index', 'fast-export', 'lfs'];
/** In every subcommand: options that run programs or reach the network. */
const EXEC_OPTS: Record<string, Opt> = {
  '--upload-pack': { v: true, e: 'exec', why: '--upload-pack runs a program' },
  '--receive-pack': { v: true, e: 'exec', why: '--receive-pack runs a program' },
  '--exec': { v: true, e: 'exec', why: '--exec runs a program' },
  '-O|--open-files-in-pager': { v: 'attached', e: 'exec', why: '-O runs a pager program' },
  '--ext-diff': { e: 'exec', why: '--ext-diff runs the external diff program' },
  '--textconv': { e: 'exec', why: '--textconv runs conversion programs' },
  '--output': { v: true, e: 'write', why: '--output writes a file' },
  '--template': { v: true, e: 'exec', why: '--template installs hooks' },
  '--config': { v: true, e: 'exec', why: '--config sets configuration' },
};

const DIFF: Record<string, Opt> = {
  ...flags('pusRazw', '--patch', '--no-patch', '--raw', '--patch-with-raw', '--patch-with-stat', '--stat', '--numstat', '--shortstat', '--summary', '--name-only', '--name-status', '--compact-summary', '--full-index', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--ignore-space-at-eol', '--ignore-space-change', '--ignore-all-space', '--ignore-blank-lines', '--ignore-cr-at-eol', '--text', '--no-renames', '--check', '--exit-code', '--quiet', '--cached', '--staged', '--merge-base', '--minimal', '--patience', '--histogram', '--no-prefix', '--default-prefix', '--function-context', '--no-index', '--pickaxe-all', '--pickaxe-regex', '--irreversible-delete', '--ita-invisible-in-index', '--ita-visible-in-index', '--no-relative', '--indent-heuristic', '--no-indent-heuristic', '--find-copies-harder', '--follow', '--cc', '--combined-all-paths', '--no-stat', '-W', '-b', '-B', '-M', '-C', '-D', '--ours', '--theirs', '--base', '--word-diff-regex'),
  ...values('-U|--unified', '--inter-hunk-context', '--stat-width', '--stat-name-width', '--stat-count', '--stat-graph-width', '--diff-filter', '-S', '-G', '--find-object', '-l', '--src-prefix', '--dst-prefix', '--line-prefix', '--anchored', '--diff-algorithm', '--ws-error-highlight', '-I|--ignore-matching-lines', '--skip-to', '--rotate-to', '--submodule', '--ignore-submodules', '--color-moved', '--color-moved-ws', '--abbrev', '--word-diff-regex', '--relative', '--dirstat', '--diff-merges', '--find-renames', '--find-copies', '--break-rewrites'),
  '--color': { v: 'attached' }, '--word-diff': { v: 'attached' }, '--color-words': { v: 'attached' }, '--relative': { v: 'attached' }, '--dirstat': { v: 'attached' }, '--abbrev': { v: 'attached' }, '--submodule': { v: 'attached' }, '--ignore-submodules': { v: 'attached' }, '--color-moved': { v: 'attached' }, '--find-renames': { v: 'attached' }, '--find-copies': { v: 'attached' }, '--break-rewrites': { v: 'attached' }, '--stat': { v: 'attached' },
  '-O': { v: 'attached', e: 'read', why: '-O reads an order file' },
  '--orderfile': { v: true, e: 'read' },
};
const LOG: Record<string, Opt> = {
  ...DIFF,
  ...flags('', '--oneline', '--graph', '--all', '--branches', '--tags', '--remotes', '--reverse', '--no-merges', '--merges', '--first-parent', '--decorate', '--no-decorate', '--source', '--abbrev-commit', '--no-abbrev-commit', '--full-history', '--simplify-merges', '--simplify-by-decoration', '--ancestry-path', '--boundary', '--left-right', '--cherry-pick', '--cherry-mark', '--topo-order', '--date-order', '--author-date-order', '--regexp-ignore-case', '--extended-regexp', '--fixed-strings', '--perl-regexp', '--invert-grep', '--all-match', '--no-walk', '--do-walk', '--show-signature', '--log-size', '--use-mailmap', '--mailmap', '--no-mailmap', '--notes', '--no-notes', '--show-notes', '--relative-date', '--parents', '--children', '--left-only', '--right-only', '--walk-reflogs', '-g', '--dense', '--sparse', '--count', '--no-min-parents', '--no-max-parents', '--show-pulls', '--bisect', '--stdin', '--ignore-missing', '--exclude-first-parent-only', '--expand-tabs', '--no-expand-tabs', '-i', '-E', '-F', '-P', '-m', '-c', '-t', '-r'),
  ...values('-n|--max-count', '--skip', '--since|--after', '--until|--before', '--author', '--committer', '--grep', '--grep-reflog', '--format', '--pretty', '--date', '--min-parents', '--max-parents', '--exclude', '--glob', '--decorate-refs', '--decorate-refs-exclude', '--since-as-filter', '-L', '--encoding', '--expand-tabs', '--max-age', '--min-age', '--branches', '--tags', '--remotes', '--notes', '--show-linear-break'),
  '--pretty': { v: 'attached' }, '--format': { v: true }, '--decorate': { v: 'attached' }, '--branches': { v: 'attached' }, '--tags': { v: 'attached' }, '--remotes': { v: 'attached' }, '--notes': { v: 'attached' }, '--expand-tabs': { v: 'attached' }, '--date': { v: true }, '--show-linear-break': { v: 'attached' },
};
const HELP: Record<string, Opt> = { '-h': {}, '--help': { e: 'exec', why: '--help opens the manual in a pager or browser' } };

/** Operands of log-like commands: `rev:path` reads that path; every other operand may be a path (git decides by what exists). */
function revsAndPaths() {
  return (ops: Word[]): { word: Word; effect: Effect; why?: string }[] =>
    ops.flatMap((w) => {
      const t = w.text;
      const colon = t.indexOf(':');
      if (colon >= 0 && !t.startsWith(':/') && !/^[a-z+]+:\/\//.test(t)) {
        const p = t.slice(colon + 1);
        if (p) return [{ word: word(w, p.startsWith('./') || p.startsWith('../') ? p : p), effect: 'read' as Effect, why: `${t} reads a file's content from the repository` }];
        return [];
      }
      // git takes a name that exists in the work tree as a path (`git diff .env`): every operand is judged as one;
      // a revision such as HEAD~1 or main..topic names no file and passes.
      return [{ word: w, effect: 'read' as Effect }];
    });
}

const sub = (id: string, opts: Record<string, Opt>, extra: Partial<Model> = {}): Model => ({ id: `git-${id}`, opts: { ...HELP, ...EXEC_OPTS, ...opts }, operands: revsAndPaths(), numeric: true, ...extra });

const MODELS: Record<string, Model> = {
  status: sub('status', { ...flags('sbvuz', '--short', '--branch', '--porcelain', '--long', '--verbose', '--show-stash', '--ahead-behind', '--no-ahead-behind', '--renames', '--no-renames', '--null', '--column', '--no-column'), '--porcelain': { v: 'attached' }, '--untracked-files': { v: 'attached' }, '-u': { v: 'attached' }, '--ignored': { v: 'attached' }, '--ignore-submodules': { v: 'attached' }, '--find-renames': { v: 'attached' } }, { operands: revsAndPaths() }),
  diff: sub('diff', DIFF, { operands: (ops, p) => (p.opts.has('--no-index') ? ops.map((w) => ({ word: w, effect: 'read' as Effect })) : revsAndPaths()(ops)) }),
  log: sub('log', LOG),
  show: sub('show', LOG),
  shortlog: sub('shortlog', { ...LOG, ...flags('nse', '--numbered', '--summary', '--email'), ...values('-w', '--group') }),
  reflog: sub('reflog', LOG),
  'rev-parse': sub('rev-parse', { ...flags('q', '--verify', '--quiet', '--short', '--abbrev-ref', '--symbolic', '--symbolic-full-name', '--show-toplevel', '--show-prefix', '--show-cdup', '--git-dir', '--absolute-git-dir', '--git-common-dir', '--is-inside-work-tree', '--is-inside-git-dir', '--is-bare-repository', '--is-shallow-repository', '--all', '--branches', '--tags', '--remotes', '--show-object-format', '--show-superproject-working-tree', '--local-env-vars', '--revs-only', '--no-revs', '--flags', '--no-flags', '--default', '--sq', '--not'), '--short': { v: 'attached' }, ...values('--since', '--until', '--prefix', '--path-format', '--git-path') }),
  'ls-files': sub('ls-files', { ...flags('cdmoiskuvfftz', '--cached', '--deleted', '--modified', '--others', '--ignored', '--stage', '--killed', '--unmerged', '--directory', '--no-empty-directory', '--eol', '--deduplicate', '--full-name', '--recurse-submodules', '--error-unmatch', '--exclude-standard', '--debug', '--sparse', '--resolve-undo'), ...values('-x|--exclude', '--with-tree', '--abbrev', '--format'), '-X|--exclude-from': { v: true, e: 'read' }, '--exclude-per-directory': { v: true } }, { operands: revsAndPaths() }),
  'ls-tree': sub('ls-tree', { ...flags('drtlz', '--long', '--name-only', '--name-status', '--object-only', '--full-name', '--full-tree'), ...values('--abbrev', '--format') }),
  blame: sub('blame', { ...flags('bcefhlnpstw', '--root', '--show-stats', '--score-debug', '--show-name', '--show-number', '--show-email', '--porcelain', '--line-porcelain', '--incremental', '--progress', '--minimal'), ...values('-L', '--since', '-M', '-C', '--abbrev', '--ignore-rev', '--date', '--encoding'), '-S': { v: true, e: 'read' }, '--contents': { v: true, e: 'read' }, '--ignore-revs-file': { v: true, e: 'read' }, '-M': { v: 'attached' }, '-C': { v: 'attached' } }, { operands: revsAndPaths() }),
  describe: sub('describe', { ...flags('', '--all', '--tags', '--long', '--always', '--exact-match', '--first-parent', '--contains', '--debug'), ...values('--abbrev', '--candidates', '--match', '--exclude', '--dirty', '--broken') }),
  'show-ref': sub('show-ref', { ...flags('sdq', '--head', '--heads', '--tags', '--branches', '--dereference', '--quiet', '--verify', '--exists', '--exclude-existing'), '--hash': { v: 'attached' }, '--abbrev': { v: 'attached' } }),
  'cat-file': sub('cat-file', { ...flags('tspe', '--batch-all-objects', '--buffer', '--follow-symlinks', '--unordered', '--allow-unknown-type', '--mailmap', '--use-mailmap', '-Z'), '--batch': { v: 'attached' }, '--batch-check': { v: 'attached' }, '--filters': { e: 'exec', why: '--filters runs the configured filter programs' }, '--path': { v: true } }),
  grep: sub('grep', { ...flags('iIvwnlLhHcaqzEGFPe', '--cached', '--untracked', '--no-index', '--recurse-submodules', '--ignore-case', '--word-regexp', '--invert-match', '--full-name', '--line-number', '--column', '--files-with-matches', '--name-only', '--files-without-match', '--count', '--null', '--break', '--heading', '--show-function', '--function-context', '--all-match', '--quiet', '--extended-regexp', '--basic-regexp', '--fixed-strings', '--perl-regexp', '--or', '--and', '--not', '-p', '-W'), ...values('-e', '-A|--after-context', '-B|--before-context', '-C|--context', '-m|--max-count', '--max-depth', '--threads'), '-f': { v: true, e: 'read' }, '--color': { v: 'attached' } }, { operands: () => [] }),
  branch: sub('branch', { ...flags('arvl', '--all', '--remotes', '--verbose', '--list', '--show-current', '--no-color', '--ignore-case', '--omit-empty'), ...values('--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--points-at', '--format', '--abbrev'), '--color': { v: 'attached' }, '--column': { v: 'attached' } }),
  tag: sub('tag', { ...flags('l', '--list', '--ignore-case', '--omit-empty'), '-n': { v: 'attached' }, ...values('--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--points-at', '--format') }),
};

function isListOnly(subName: string, ops: Word[], opts: Map<string, string[]>): boolean {
  if (subName === 'branch') return ops.length === 0 || opts.has('-l') || opts.has('-a') || opts.has('-r');
  if (subName === 'tag') return ops.length === 0 || opts.has('-l');
  return true;
}

export function gitRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args: Word[] = [...c.args];
  let d = ALLOW('git only reads', 'command:read-only:git');
  // Global options come before the subcommand.
  while (args.length && args[0].text.startsWith('-')) {
    const t = args.shift()!.text;
    if (t === '--version' || t === '--help' || t === '-h') return ALLOW('git version or help', 'command:read-only:git');
    if (t === '-c' || t.startsWith('--config-env') || t.startsWith('--exec-path') || t === '--paginate' || t === '-p') {
      return DENY(`git ${t} sets configuration, a pager or the program path: it can run programs`, 'command:exec:git');
    }
    if (t === '-C' || t.startsWith('--git-dir') || t.startsWith('--work-tree') || t.startsWith('--namespace') || t.startsWith('--super-prefix')) {
      return DENY(`git ${t} points git at another repository, whose configuration can run programs`, 'command:exec:git');
    }
    if (/^--(no-pager|no-replace-objects|bare|literal-pathspecs|glob-pathspecs|noglob-pathspecs|icase-pathspecs|no-optional-locks|no-lazy-fetch|no-advice)$/.test(t)) continue;
    return ASK(`git ${t} is not in devx's model of git`, 'command:unknown-option:git');
  }
  const subW = args.shift();
  const subName = subW?.text ?? '';
  if (!subName) return ALLOW('git with no subcommand prints help', 'command:read-only:git');
  if (DENIED.includes(subName)) return DENY(`git ${subName} can change configuration or hooks, run programs or send data`, 'command:exec:git');
  const model = MODELS[subName];
  if (subName === 'remote') {
    if (args.length === 0 || (args.length === 1 && /^(-v|--verbose)$/.test(args[0].text))) return d;
    if (/^(show|get-url)$/.test(args[0].text) && args.slice(1).every((a) => !a.text.startsWith('-') || a.text === '-n' || a.text === '--all' || a.text === '--push')) return args[0].text === 'show' && !args.some((a) => a.text === '-n') ? ASK('git remote show contacts the remote', 'command:network:git-remote') : d;
    return ASK('git remote changes remotes', 'command:git-change');
  }
  if (subName === 'stash') {
    const s = args.shift()?.text;
    if (s === 'list') return strictest(strictest(d, evaluate(MODELS.log, { ...c, args }, ctx)), guardObjects('log', args, ctx));
    if (s === 'show') return strictest(strictest(d, evaluate(MODELS.diff, { ...c, args }, ctx)), guardObjects('log', args, ctx));
    return strictest(ASK('git stash changes the working tree', 'command:git-change'), scanExec(args, ctx));
  }
  if (model) {
    d = strictest(strictest(d, evaluate(model, { ...c, args }, ctx)), guardObjects(subName, args, ctx));
    if (subName === 'grep') {
      // git grep searches the tree (and the index): a tree holding denied files is not searched unasked.
      const dd = args.findIndex((a) => a.text === '--');
      const roots = dd >= 0 ? args.slice(dd + 1) : [];
      for (const r of roots.length ? roots : [word(subW!, '.')]) d = strictest(d, decideEffect('git-grep', 'rread', r, 'searches files', ctx));
      if (d.decision === 'allow' && ctx.sandboxed === false) {
        /* allowed: nothing denied below */
      }
    }
    const parsedOps = args.filter((a) => !a.text.startsWith('-'));
    if ((subName === 'branch' || subName === 'tag') && !isListOnly(subName, parsedOps, new Map(args.filter((a) => a.text.startsWith('-')).map((a) => [a.text, ['']])))) {
      d = strictest(d, ASK(`git ${subName} with these arguments creates, renames or deletes`, 'command:git-change'));
    }
    return d;
  }
  if (subName === 'rebase' && args.some((a) => a.text === '-x' || a.text.startsWith('--exec'))) return DENY('git rebase --exec runs a program', 'command:exec:git');
  if (['fetch', 'clone', 'pull', 'ls-remote', 'archive', 'push'].includes(subName) && args.some((a) => /^-u/.test(a.text))) return DENY(`git ${subName} -u runs an upload-pack program`, 'command:exec:git');
  if (CHANGE.includes(subName)) return strictest(ASK(`git ${subName} changes the repository or talks to a remote`, 'command:git-change'), scanExec(args, ctx));
  // Like any program devx has no model of: an operand naming a denied path is refused (`git hash-object -w .env`
  // copies it into objects that `git cat-file` would then print).
  const denied = args.filter((a) => !a.text.startsWith('-')).map((a) => ctx.checkPath(a, 'read')).find((d) => d.decision === 'deny');
  return denied ?? strictest(ASK(`git ${subName} is not a known git command`, 'command:git-unknown'), scanExec(args, ctx));
}

// What makes a subcommand print file contents from git's objects rather than names or statistics.
const PATCH = /^(-p|-u|--patch|-U\d*|--unified(=.*)?|--cc|--word-diff(=.*)?|--color-words(=.*)?|-L.*|--patch-with-raw|--patch-with-stat|-W|--function-context|--full-diff)$/;
const NAMES_ONLY = /^(--stat(=.*)?|--numstat|--shortstat|--summary|--name-only|--name-status|--raw|--no-patch|-s|--quiet|--dirstat(=.*)?|--compact-summary|--check)$/;

function printsContents(subName: string, t: string[]): boolean {
  const patch = t.some((x) => PATCH.test(x));
  switch (subName) {
    case 'diff':
    case 'show':
      return patch || !t.some((x) => NAMES_ONLY.test(x));
    case 'log':
    case 'reflog':
      return patch;
    case 'cat-file':
      return t.some((x) => x === '-p' || x === '--batch' || x.startsWith('--batch=') || /^(blob|tree|commit|tag)$/.test(x) || (x === '--batch-all-objects' && !t.some((y) => y.startsWith('--batch-check'))));
    case 'grep':
      return t.includes('--cached');
    default:
      return false;
  }
}

/**
 * A command that prints contents from git's objects, in a repository that tracks files the policy
 * denies, asks unless its paths after `--` leave them all out: neither the path check nor the sandbox
 * sees inside git's objects. (The paths themselves are judged with the other operands, by revsAndPaths.)
 * A pathspec narrows only when it is a plain name: git matches `*.ts`, `:(glob)…` and `:!x` itself.
 */
function guardObjects(subName: string, args: Word[], ctx: RuleContext): PolicyDecision {
  const dd = args.findIndex((a) => a.text === '--');
  const specs = dd >= 0 ? args.slice(dd + 1) : [];
  const d = ALLOW('prints no contents from git objects', 'command:paths');
  if (!printsContents(subName, (dd >= 0 ? args.slice(0, dd) : args).map((a) => a.text))) return d;
  const tracked = ctx.trackedDenied();
  if (!tracked.length) return d;
  const narrowed = specs.length > 0 && specs.every((w) => w.literal && !/[*?[]/.test(w.text) && !w.text.startsWith(':')) && !tracked.some((t) => specs.some((w) => covers(w.text, t)));
  if (narrowed) return d;
  const example = tracked[0].split('/').slice(-2).join('/');
  return ASK(`git ${subName} can print the contents of the ${tracked.length} tracked file(s) the policy denies (e.g. ${example}); name the paths you need after -- to leave them out`, 'command:recursive-denied:git');
}

/** Does the pathspec (relative to the project, or absolute) name the tracked file or a folder above it? */
function covers(spec: string, trackedAbs: string): boolean {
  const norm = spec.replace(/\/+$/, '');
  if (norm === '' || norm === '.') return true;
  const tail = `/${trackedAbs}`;
  return tail.endsWith(`/${norm}`) || tail.includes(`/${norm}/`);
}

/** For subcommands that ask anyway: options that run programs or write outside are still denied. */
function scanExec(args: Word[], ctx: RuleContext): PolicyDecision {
  let d = ALLOW('', 'command:all-allowed');
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    const m = /^(--upload-pack|--receive-pack|--exec|--template|--config|--output|-u|-O|--open-files-in-pager|--ext-diff|--textconv|-x|--strategy|-s|--gpg-program|--separate-git-dir|--reference)(?:=(.*))?$/.exec(t);
    if (!m) {
      if (/^--(upload-pack|receive-pack|exec|open-files-in-pager|ext-diff|textconv)/.test(t)) d = strictest(d, DENY(`git ${t} runs a program`, 'command:exec:git'));
      continue;
    }
    const name = m[1];
    if (['-u', '-x', '-s', '--strategy'].includes(name)) continue; // values of ordinary options in commit, rebase -x is below
    if (name === '--output' || name === '--separate-git-dir' || name === '--reference') {
      const v = m[2] ?? args[i + 1]?.text;
      if (v !== undefined) d = strictest(d, decideEffect('git', 'write', word(args[i], v), `${name} writes`, ctx));
      continue;
    }
    d = strictest(d, DENY(`git ${name} runs a program`, 'command:exec:git'));
  }
  if (args.some((a, i) => a.text === '-x' && i > 0) && args.some((a) => a.text === '-i' || a.text === '--interactive')) d = strictest(d, DENY('git rebase -x runs a program', 'command:exec:git'));
  return d;
}
