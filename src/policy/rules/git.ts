// git: global options, then a subcommand. Read-only subcommands have an option model; options that
// run programs (-c, --exec-path, -O/--open-files-in-pager, --upload-pack, --receive-pack, --exec,
// --ext-diff, --textconv) are denied in every subcommand; --output writes a file; `rev:path` and
// --no-index operands are paths. Changes ask, each judged by its own model (gitChanges.ts); config,
// hooks and transport plumbing are denied; a subcommand outside both models asks in the class yolo refuses.
import type { Word } from '../shellWords.js';
import {
  ALLOW,
  ASK,
  DENY,
  decideEffect,
  evaluate,
  options,
  parseArgs,
  strictest,
  word,
  words,
  type Effect,
  type Model,
  type PolicyDecision,
  type RuleContext,
  type SimpleCommand,
} from './kit.js';
import { DIFF, LOG, revsAndPaths, sub } from './gitShared.js';
import { gitChangeRule } from './gitChanges.js';

/** Changing subcommands without a model of their own in gitChanges.ts: they ask, and their program-running options are denied. */
const CHANGE = ['worktree', 'var'];
const DENIED = words(`
config hook submodule filter-branch filter-repo daemon send-email credential credential-store credential-cache
http-backend upload-pack receive-pack upload-archive archive bundle fast-import replace instaweb web--browse difftool
mergetool update-ref symbolic-ref remote-ext remote-fd shell p4 svn cvsimport cvsserver imap-send quiltimport
update-index fast-export lfs
`);
const MODELS: Record<string, Model> = {
  status: sub(
    'status',
    options(
      '-[sbvuz] --short --branch --porcelain --long --verbose --show-stash --ahead-behind --no-ahead-behind --renames',
      '--no-renames --null --column --no-column --porcelain=? --untracked-files=? -u=? --ignored=?',
      '--ignore-submodules=? --find-renames=?',
    ),
  ),
  diff: sub('diff', DIFF, { operands: (ops, p) => (p.opts.has('--no-index') ? ops.map((w) => ({ word: w, effect: 'read' as Effect })) : revsAndPaths(ops)) }),
  log: sub('log', LOG),
  show: sub('show', LOG),
  shortlog: sub('shortlog', { ...LOG, ...options('-[nse] --numbered --summary --email -w= --group=') }),
  reflog: sub('reflog', LOG),
  'rev-parse': sub(
    'rev-parse',
    options(
      '-[q] --verify --quiet --short --abbrev-ref --symbolic --symbolic-full-name --show-toplevel --show-prefix',
      '--show-cdup --git-dir --absolute-git-dir --git-common-dir --is-inside-work-tree --is-inside-git-dir',
      '--is-bare-repository --is-shallow-repository --all --branches --tags --remotes --show-object-format',
      '--show-superproject-working-tree --local-env-vars --revs-only --no-revs --flags --no-flags --default --sq',
      '--not --short=? --since= --until= --prefix= --path-format= --git-path=',
    ),
  ),
  'ls-files': sub(
    'ls-files',
    options(
      '-[cdmoiskuvfftz] --cached --deleted --modified --others --ignored --stage --killed --unmerged --directory',
      '--no-empty-directory --eol --deduplicate --full-name --recurse-submodules --error-unmatch --exclude-standard',
      '--debug --sparse --resolve-undo -x|--exclude= --with-tree= --abbrev= --format= -X|--exclude-from=read',
      '--exclude-per-directory=',
    ),
  ),
  'ls-tree': sub('ls-tree', options('-[drtlz] --long --name-only --name-status --object-only --full-name --full-tree --abbrev= --format=')),
  blame: sub(
    'blame',
    options(
      '-[bcefhlnpstw] --root --show-stats --score-debug --show-name --show-number --show-email --porcelain',
      '--line-porcelain --incremental --progress --minimal -L= --since= -M= -C= --abbrev= --ignore-rev= --date=',
      '--encoding= -S=read --contents=read --ignore-revs-file=read -M=? -C=?',
    ),
  ),
  describe: sub(
    'describe',
    options('--all --tags --long --always --exact-match --first-parent --contains --debug --abbrev= --candidates= --match=', '--exclude= --dirty= --broken='),
  ),
  'show-ref': sub(
    'show-ref',
    options('-[sdq] --head --heads --tags --branches --dereference --quiet --verify --exists --exclude-existing --hash=?', '--abbrev=?'),
  ),
  'cat-file': sub('cat-file', {
    ...options('-[tspe] --batch-all-objects --buffer --follow-symlinks --unordered --allow-unknown-type --mailmap --use-mailmap -Z --batch=? --batch-check=?'),
    '--filters': { e: 'exec', why: '--filters runs the configured filter programs' },
    '--path': { v: true },
  }),
  grep: sub(
    'grep',
    options(
      '-[iIvwnlLhHcaqzEGFPe] --cached --untracked --no-index --recurse-submodules --ignore-case --word-regexp',
      '--invert-match --full-name --line-number --column --files-with-matches --name-only --files-without-match',
      '--count --null --break --heading --show-function --function-context --all-match --quiet --extended-regexp',
      '--basic-regexp --fixed-strings --perl-regexp --or --and --not -p -W -e= -A|--after-context=',
      '-B|--before-context= -C|--context= -m|--max-count= --max-depth= --threads= -f=read --color=?',
    ),
    { operands: () => [] },
  ),
  branch: sub(
    'branch',
    options(
      '-[arvl] --all --remotes --verbose --list --show-current --no-color --ignore-case --omit-empty --contains=',
      '--no-contains= --merged= --no-merged= --sort= --points-at= --format= --abbrev= --color=? --column=?',
    ),
  ),
  'rev-list': sub('rev-list', {
    ...LOG,
    ...options(
      '--objects --objects-edge --objects-edge-aggressive --count --timestamp --header --in-commit-order',
      '--no-object-names --object-names --unpacked --disk-usage --use-bitmap-index --indexed-objects --reflog',
      '--single-worktree --quiet --bisect-vars --bisect-all --missing= --filter= --no-filter= --disk-usage=?',
    ),
  }),
  'for-each-ref': sub(
    'for-each-ref',
    options(
      '-[sp] --shell --perl --python --tcl --ignore-case --stdin --count= --format= --sort= --points-at= --merged=',
      '--no-merged= --contains= --no-contains= --exclude= --color=?',
    ),
  ),
  version: sub('version', options('--build-options')),
  tag: sub('tag', options('-[l] --list --ignore-case --omit-empty -n=? --contains= --no-contains= --merged= --no-merged= --sort=', '--points-at= --format=')),
};

/** Does `git branch` or `git tag` only list (every option in the listing model, and no name, or --list)? */
function listsOnly(subName: 'branch' | 'tag', args: Word[]): boolean {
  const p = parseArgs(MODELS[subName], args);
  if (p.unknown.length) return false;
  if (subName === 'branch') return p.operands.length === 0 || p.opts.has('-l') || p.opts.has('-a') || p.opts.has('-r');
  return p.operands.length === 0 || p.opts.has('-l');
}

/** Global options that change nothing a command could exploit. */
const GLOBAL_FLAGS =
  /^--(no-pager|no-replace-objects|bare|literal-pathspecs|glob-pathspecs|noglob-pathspecs|icase-pathspecs|no-optional-locks|no-lazy-fetch|no-advice)$/;

export function gitRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const d = decideGit(c, ctx);
  // Whatever the subcommand (log, show, stash list, for-each-ref…), checking a signature runs gpg.
  return checksSignatures(c.args) ? strictest(d, ASK('git checks signatures: it runs gpg, which keeps its state in your home', 'command:exec:git-gpg')) : d;
}

function decideGit(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
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
    if (GLOBAL_FLAGS.test(t)) continue;
    return ASK(`git ${t} is not in devx's model of git`, 'command:unknown-option:git');
  }
  const subW = args.shift();
  const subName = subW?.text ?? '';
  if (!subName) return ALLOW('git with no subcommand prints help', 'command:read-only:git');
  if (DENIED.includes(subName)) return DENY(`git ${subName} can change configuration or hooks, run programs or send data`, 'command:exec:git');
  const model = MODELS[subName];
  if (subName === 'remote') {
    if (args.length === 0 || (args.length === 1 && /^(-v|--verbose)$/.test(args[0].text))) return d;
    if (
      /^(show|get-url)$/.test(args[0].text) &&
      args.slice(1).every((a) => !a.text.startsWith('-') || a.text === '-n' || a.text === '--all' || a.text === '--push')
    )
      return args[0].text === 'show' && !args.some((a) => a.text === '-n') ? ASK('git remote show contacts the remote', 'command:network:git-remote') : d;
    return gitChangeRule(subName, args, c, ctx) ?? ASK('git remote changes remotes', 'command:unverifiable:git-remote');
  }
  if (subName === 'stash' && /^(list|show)$/.test(args[0]?.text ?? '')) {
    const s = args.shift()!.text;
    if (s === 'list') return strictest(strictest(d, evaluate(MODELS.log, { ...c, args }, ctx)), guardObjects('log', args, ctx));
    // stash show's own options only choose which part of the stash is shown; the object guard below judges what it prints.
    const shown = args.filter((a) => !/^--(no-)?(include|only)-untracked$/.test(a.text));
    return strictest(strictest(d, evaluate(MODELS.diff, { ...c, args: shown }, ctx)), guardObjects('stash-show', args, ctx));
  }
  // reflog reads like log, but its delete and expire subcommands remove history.
  if (subName === 'reflog' && /^(delete|expire|drop)$/.test(args[0]?.text ?? ''))
    return strictest(ASK(`git reflog ${args[0].text} removes entries from the reflog`, 'command:git-change'), scanExec(args, ctx));
  // Creating, renaming or deleting a branch or tag is a change, with a model of its own.
  if ((subName === 'branch' || subName === 'tag') && !listsOnly(subName, args)) return gitChangeRule(subName, args, c, ctx)!;
  if (model) {
    d = strictest(strictest(d, evaluate(model, { ...c, args }, ctx)), guardObjects(subName, args, ctx));
    if (subName === 'grep') {
      // git grep searches the tree (and the index): a tree holding denied files is not searched unasked.
      const dd = args.findIndex((a) => a.text === '--');
      const roots = dd >= 0 ? args.slice(dd + 1) : [];
      for (const r of roots.length ? roots : [word(subW!, '.')]) d = strictest(d, decideEffect('git-grep', 'rread', r, 'searches files', ctx));
      // `git grep x HEAD` searches a commit's tree in git's objects, where the sandbox hides nothing.
      const p = parseArgs(model, dd >= 0 ? args.slice(0, dd) : args);
      const trees = p.operands.slice(p.opts.has('-e') || p.opts.has('-f') ? 0 : 1);
      if (trees.length) d = strictest(d, guardObjects('grep-tree', args, ctx));
    }
    return d;
  }
  const changed = gitChangeRule(subName, args, c, ctx);
  if (changed) return PRINTS_AS[subName] ? strictest(changed, guardObjects(PRINTS_AS[subName], args, ctx)) : changed;
  if (CHANGE.includes(subName)) return strictest(ASK(`git ${subName} changes the repository or talks to a remote`, 'command:git-change'), scanExec(args, ctx));
  // Like any program devx has no model of: an operand naming a denied path is refused (`git hash-object -w .env`
  // copies it into objects that `git cat-file` would then print). Otherwise it asks, in the class yolo refuses:
  // plumbing such as hash-object, mktree and commit-tree builds any tree, which checkout then writes anywhere.
  const denied = args
    .filter((a) => !a.text.startsWith('-'))
    .map((a) => ctx.checkPath(a, 'read'))
    .find((d) => d.decision === 'deny');
  return denied ?? strictest(ASK(`git ${subName} is not in devx's model of git, so its effect is unknown`, 'command:unverifiable:git'), scanExec(args, ctx));
}

/** Changing subcommands that also print contents from git's objects, read as the subcommand they resemble. */
// format-patch always prints contents (to stdout or to patch files a later `cat` reads): judged like a tree search.
// range-diff and request-pull print patches by default; their own options are outside the diff model and count as printing.
const PRINTS_AS: Record<string, string> = { 'range-diff': 'diff', 'request-pull': 'diff', whatchanged: 'log', 'format-patch': 'grep-tree' };

// Whether a diff-printing subcommand prints file contents is decided by an allowlist: output counts as contents
// unless every option present is one of these. Anything else (-p, -c, --cc, -m, --diff-merges, --binary, --check,
// -W, --word-diff, -U, an option the model does not know…) counts as printing contents; git keeps adding such options.
/** Output formats that print names, statistics or nothing, and replace the patch `git diff` and `git show` print by default. */
const NAMES_ONLY = new Set(
  words(`
--stat --numstat --shortstat --summary --name-only --name-status --raw --no-patch -s --quiet --dirstat --compact-summary
--stat-width --stat-name-width --stat-count --stat-graph-width
`),
);
/** Options that choose commits, files, the header's format or how a patch would look, but print no patch of their own. */
const NEUTRAL = new Set(
  words(`
-h -R -a -z -w -b -B -M -C -D -S -G -l -I -O --text --full-index --no-color --color --no-ext-diff --no-textconv
--ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-cr-at-eol --no-renames
--exit-code --cached --staged --merge-base --minimal --patience --histogram --no-prefix --default-prefix --no-index
--pickaxe-all --pickaxe-regex --irreversible-delete --ita-invisible-in-index --ita-visible-in-index --no-relative --relative
--indent-heuristic --no-indent-heuristic --find-copies-harder --follow --combined-all-paths --ours --theirs --base
--diff-filter --find-object --src-prefix --dst-prefix --line-prefix --anchored --diff-algorithm --ws-error-highlight
--skip-to --rotate-to --ignore-submodules --color-moved --color-moved-ws --abbrev --find-renames --find-copies
--break-rewrites --orderfile
-NUM -n -i -E -F -P -t -r -g --oneline --graph --all --branches --tags --remotes --reverse --no-merges --merges
--first-parent --decorate --no-decorate --source --abbrev-commit --no-abbrev-commit --full-history --simplify-merges
--simplify-by-decoration --ancestry-path --boundary --left-right --cherry-pick --cherry-mark --topo-order --date-order
--author-date-order --regexp-ignore-case --extended-regexp --fixed-strings --perl-regexp --invert-grep --all-match
--no-walk --do-walk --show-signature --log-size --use-mailmap --mailmap --no-mailmap --notes --no-notes --show-notes
--relative-date --parents --children --left-only --right-only --walk-reflogs --dense --sparse --count --no-min-parents
--no-max-parents --show-pulls --bisect --stdin --ignore-missing --exclude-first-parent-only --expand-tabs
--no-expand-tabs --skip --since --until --author --committer --grep --grep-reflog --format --pretty --date
--min-parents --max-parents --exclude --glob --decorate-refs --decorate-refs-exclude --since-as-filter --encoding
--max-age --min-age --show-linear-break
`),
);
// --format and --pretty shape the commit's header (hash, author, message): no placeholder prints a tracked file.

/** Subcommands whose output is a diff, with the model their options are read by and whether a patch is their default. */
const DIFFS: Record<string, { model: () => Model; patch: boolean }> = {
  diff: { model: () => MODELS.diff, patch: true },
  show: { model: () => MODELS.show, patch: true },
  log: { model: () => MODELS.log, patch: false },
  reflog: { model: () => MODELS.log, patch: false },
  // stash show prints a diffstat by default; -u there means --include-untracked, not a patch.
  'stash-show': { model: () => MODELS.diff, patch: false },
};

/** Could `git show` be naming a blob (which it prints whatever the options): an object id, or a peeled `x^{…}`? */
const mayBeBlob = (t: string) => /^[0-9a-f]{4,64}$/i.test(t) || t.includes('^{');

/** A placeholder that makes git check a signature: log's %G?, %GG, %GS, %GK…; ref-filter's %(signature…). */
const SIGNATURE_PLACEHOLDER = /%G|%\(signature/;

/** --show-signature, or a format with a signature placeholder: git then runs gpg (or gpgsm, ssh-keygen). */
function checksSignatures(args: readonly Word[]): boolean {
  return args.some(
    (a, i) =>
      a.text === '--show-signature' ||
      (/^--(format|pretty)=/.test(a.text) && SIGNATURE_PLACEHOLDER.test(a.text)) ||
      (/^--(format|pretty)$/.test(a.text) && SIGNATURE_PLACEHOLDER.test(args[i + 1]?.text ?? '')),
  );
}

function printsContents(subName: string, args: Word[]): boolean {
  const t = args.map((a) => a.text);
  const kind = DIFFS[subName];
  if (kind) {
    const shown = subName === 'stash-show' ? args.filter((a) => !/^(-u|--(no-)?(include|only)-untracked)$/.test(a.text)) : args;
    const p = parseArgs(kind.model(), shown);
    if (p.unknown.length) return true;
    const opts = [...p.opts.keys()];
    if (opts.some((o) => !NAMES_ONLY.has(o) && !NEUTRAL.has(o))) return true;
    if (subName === 'show' && p.operands.some((w) => mayBeBlob(w.text))) return true;
    return kind.patch && !opts.some((o) => NAMES_ONLY.has(o));
  }
  switch (subName) {
    case 'cat-file':
      return t.some(
        (x) =>
          x === '-p' ||
          x === '--batch' ||
          x.startsWith('--batch=') ||
          /^(blob|tree|commit|tag)$/.test(x) ||
          (x === '--batch-all-objects' && !t.some((y) => y.startsWith('--batch-check'))),
      );
    case 'grep':
      return t.includes('--cached');
    case 'grep-tree':
      return true;
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
  if (!printsContents(subName, dd >= 0 ? args.slice(0, dd) : args)) return d;
  const tracked = ctx.trackedDenied();
  if (!tracked.length) return d;
  const narrowed =
    specs.length > 0 &&
    specs.every((w) => w.literal && !/[*?[]/.test(w.text) && !w.text.startsWith(':')) &&
    !tracked.some((t) => specs.some((w) => covers(w.text, t)));
  if (narrowed) return d;
  const example = tracked[0].split('/').slice(-2).join('/');
  return ASK(
    `git ${subName} can print the contents of the ${tracked.length} file(s) in git's objects (tracked, or in history) that the policy denies (e.g. ${example}); name the paths you need after -- to leave them out`,
    'command:recursive-denied:git',
  );
}

/** Does the pathspec (relative to the project, or absolute) name the tracked file or a folder above it? */
function covers(spec: string, trackedAbs: string): boolean {
  const norm = spec.replace(/\/+$/, '');
  if (norm === '' || norm === '.') return true;
  const tail = `/${trackedAbs}`;
  return tail.endsWith(`/${norm}`) || tail.includes(`/${norm}/`);
}

const SCANNED =
  /^(--upload-pack|--receive-pack|--exec|--template|--config|--output|-u|-O|--open-files-in-pager|--ext-diff|--textconv|-x|--strategy|-s|--gpg-program|--separate-git-dir|--reference)(?:=(.*))?$/;

/** For subcommands that ask anyway: options that run programs or write outside are still denied. */
function scanExec(args: Word[], ctx: RuleContext): PolicyDecision {
  let d = ALLOW('', 'command:all-allowed');
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    const m = SCANNED.exec(t);
    if (!m) {
      if (/^--(upload-pack|receive-pack|exec|open-files-in-pager|ext-diff|textconv)/.test(t))
        d = strictest(d, DENY(`git ${t} runs a program`, 'command:exec:git'));
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
  if (args.some((a, i) => a.text === '-x' && i > 0) && args.some((a) => a.text === '-i' || a.text === '--interactive'))
    d = strictest(d, DENY('git rebase -x runs a program', 'command:exec:git'));
  return d;
}
