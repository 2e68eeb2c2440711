// What git's subcommands share: the options that run programs or write in every one of them, the diff and
// log options, and how log-like operands read (`rev:path` is a file's content).
import type { Word } from '../shellWords.js';
import { options, word, type Effect, type Model, type Opt } from './kit.js';

/** In every subcommand: options that run programs or reach the network. */
export const EXEC_OPTS: Record<string, Opt> = {
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

export const DIFF: Record<string, Opt> = options(
  '-[pusRazw] --patch --no-patch --raw --patch-with-raw --patch-with-stat --stat --numstat --shortstat --summary --name-only --name-status --compact-summary',
  '--full-index --binary --no-color --no-ext-diff --no-textconv --ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines',
  '--ignore-cr-at-eol --text --no-renames --check --exit-code --quiet --cached --staged --merge-base --minimal --patience --histogram --no-prefix',
  '--default-prefix --function-context --no-index --pickaxe-all --pickaxe-regex --irreversible-delete --ita-invisible-in-index --ita-visible-in-index',
  '--no-relative --indent-heuristic --no-indent-heuristic --find-copies-harder --follow --cc --combined-all-paths --no-stat -W -b -B -M -C -D --ours',
  '--theirs --base --word-diff-regex -U|--unified= --inter-hunk-context= --stat-width= --stat-name-width= --stat-count= --stat-graph-width= --diff-filter=',
  '-S= -G= --find-object= -l= --src-prefix= --dst-prefix= --line-prefix= --anchored= --diff-algorithm= --ws-error-highlight= -I|--ignore-matching-lines=',
  '--skip-to= --rotate-to= --submodule= --ignore-submodules= --color-moved= --color-moved-ws= --abbrev= --word-diff-regex= --relative= --dirstat=',
  '--diff-merges= --find-renames= --find-copies= --break-rewrites= --color=? --word-diff=? --color-words=? --relative=? --dirstat=? --abbrev=? --submodule=?',
  '--ignore-submodules=? --color-moved=? --find-renames=? --find-copies=? --break-rewrites=? --stat=? -O=?read --orderfile=read',
);
export const LOG: Record<string, Opt> = {
  ...DIFF,
  ...options(
    '--oneline --graph --all --branches --tags --remotes --reverse --no-merges --merges --first-parent --decorate --no-decorate --source --abbrev-commit',
    '--no-abbrev-commit --full-history --simplify-merges --simplify-by-decoration --ancestry-path --boundary --left-right --cherry-pick --cherry-mark',
    '--topo-order --date-order --author-date-order --regexp-ignore-case --extended-regexp --fixed-strings --perl-regexp --invert-grep --all-match --no-walk',
    '--do-walk --show-signature --log-size --use-mailmap --mailmap --no-mailmap --notes --no-notes --show-notes --relative-date --parents --children',
    '--left-only --right-only --walk-reflogs -g --dense --sparse --count --no-min-parents --no-max-parents --show-pulls --bisect --stdin --ignore-missing',
    '--exclude-first-parent-only --expand-tabs --no-expand-tabs -i -E -F -P -m -c -t -r -n|--max-count= --skip= --since|--after= --until|--before= --author=',
    '--committer= --grep= --grep-reflog= --format= --pretty= --date= --min-parents= --max-parents= --exclude= --glob= --decorate-refs=',
    '--decorate-refs-exclude= --since-as-filter= -L= --encoding= --expand-tabs= --max-age= --min-age= --branches= --tags= --remotes= --notes=',
    '--show-linear-break= --pretty=? --format= --decorate=? --branches=? --tags=? --remotes=? --notes=? --expand-tabs=? --date= --show-linear-break=?',
  ),
};
export const HELP: Record<string, Opt> = { '-h': {}, '--help': { e: 'exec', why: '--help opens the manual in a pager or browser' } };

/** Operands of log-like commands: `rev:path` reads that path; every other operand may be a path (git decides by what exists). */
// git takes a name that exists in the work tree as a path (`git diff .env`): every operand is judged as one;
// a revision such as HEAD~1 or main..topic names no file and passes.
export const revsAndPaths = (ops: Word[]): { word: Word; effect: Effect; why?: string }[] =>
  ops.flatMap((w) => {
    const t = w.text;
    const colon = t.indexOf(':');
    if (colon < 0 || t.startsWith(':/') || /^[a-z+]+:\/\//.test(t)) return [{ word: w, effect: 'read' as Effect }];
    const p = t.slice(colon + 1);
    return p ? [{ word: word(w, p), effect: 'read' as Effect, why: `${t} reads a file's content from the repository` }] : [];
  });

export const sub = (id: string, opts: Record<string, Opt>, extra: Partial<Model> = {}): Model => ({
  id: `git-${id}`,
  opts: { ...HELP, ...EXEC_OPTS, ...opts },
  operands: revsAndPaths,
  numeric: true,
  ...extra,
});
