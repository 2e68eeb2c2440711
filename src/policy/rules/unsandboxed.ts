// Where no sandbox can start, a wrong argument model would be exploited rather than contained, so only
// commands whose whole argument model is small run unasked: each below with the options it may take
// (operands are already judged as paths by the command's full model). Everything else the policy would
// allow (sed, awk, jq, env, time, xargs, find, sort, diff...) asks instead. The list is in docs/security.md.
import type { SimpleCommand } from './kit.js';

interface Small {
  /** Options allowed, whole words (`-n`, `--stat`, `--format=%h`); a short cluster is checked letter by letter. */
  opts: RegExp;
  /** Letters allowed in a cluster such as -la. */
  letters?: string;
  /** Options that take the next word as their value. */
  valued?: RegExp;
  /** The first operand must be one of these (git's subcommand). */
  sub?: Record<string, Small>;
}

const NUM = /^\d+$/;
const GIT_LOGISH =
  /^(--stat|--numstat|--shortstat|--name-only|--name-status|--oneline|--cached|--staged|-p|--patch|--no-patch|-s|-U\d+|--unified=\d+|--no-color|--color=never|-\d+|--max-count=\d+|--graph|--decorate|--no-decorate|--all|--reverse|--follow|--no-ext-diff|--no-textconv|-w|--ignore-all-space|-b|--ignore-space-change|--word-diff|--summary|--since=.+|--until=.+|--after=.+|--before=.+|--author=.+|--grep=.+|--first-parent|--no-merges|--merges|--abbrev-commit|--relative-date|--date=[a-z-]+|--format=[^%]*(%[a-zA-Z]{1,2}[^%]*)*|--pretty=(oneline|short|medium|full|fuller|raw|format:[^%]*(%[a-zA-Z]{1,2}[^%]*)*)|--)$/;

export const SMALL: Record<string, Small> = {
  ls: { opts: /^(--color=never|--all|--almost-all|--human-readable|--reverse|--directory|--classify|--)$/, letters: 'laAhtrSd1FpiRnogGc' },
  pwd: { opts: /^(-L|-P)$/ },
  cat: { opts: /^(--number|--show-all|--)$/, letters: 'nAbeEsTtv' },
  head: { opts: /^(--lines=\d+|--bytes=\d+|--quiet|--verbose|-\d+|--)$/, letters: 'qv', valued: /^-(n|c)$/ },
  tail: { opts: /^(--lines=\+?\d+|--bytes=\+?\d+|--quiet|--verbose|-\d+|--)$/, letters: 'qv', valued: /^-(n|c)$/ },
  wc: { opts: /^(--lines|--words|--bytes|--chars|--max-line-length|--)$/, letters: 'lwcmL' },
  echo: { opts: /^.*$/ },
  printf: { opts: /^--$/ },
  true: { opts: /^.*$/ },
  false: { opts: /^.*$/ },
  ':': { opts: /^.*$/ },
  test: { opts: /^.*$/ },
  '[': { opts: /^.*$/ },
  '[[': { opts: /^.*$/ },
  basename: { opts: /^(-a|-s|--multiple|--suffix=.*|--)$/ },
  // Programs with no file effects at all beyond printing.
  date: { opts: /^(-u|--utc|--universal|-R|--rfc-email|-I[a-z]*|--iso-8601(=[a-z]+)?|--rfc-3339=[a-z]+|--)$/ },
  seq: { opts: /^(-w|--equal-width|-s.*|--separator=.*|-\d.*|--)$/ },
  sleep: { opts: /^--$/ },
  uname: { opts: /^(--all|--kernel-name|--machine|--)$/, letters: 'asnrvmpio' },
  whoami: { opts: /^$/ },
  nproc: { opts: /^(--all)$/ },
  which: { opts: /^(-a)$/ },
  realpath: { opts: /^(--canonicalize-existing|--canonicalize-missing|--no-symlinks|--quiet|--relative-to=.+|--)$/, letters: 'emsqLP' },
  readlink: { opts: /^(--canonicalize|--canonicalize-existing|--no-newline|--)$/, letters: 'femnqsv' },
  tr: { opts: /^(--delete|--squeeze-repeats|--complement|--truncate-set1|--)$/, letters: 'cdstC' },
  dirname: { opts: /^--$/ },
  grep: {
    opts: /^(--line-number|--ignore-case|--files-with-matches|--files-without-match|--count|--word-regexp|--line-regexp|--invert-match|--fixed-strings|--extended-regexp|--basic-regexp|--with-filename|--no-filename|--only-matching|--no-messages|--quiet|--recursive|--color=never|--max-count=\d+|--include=.+|--exclude=.+|--exclude-dir=.+|--regexp=.+|-[ABCm]\d+|--)$/,
    letters: 'niIlLcwxvFEGHhosqr',
    valued: /^-(e|A|B|C|m)$/,
  },
  rg: {
    opts: /^(--line-number|--ignore-case|--smart-case|--case-sensitive|--files-with-matches|--count|--word-regexp|--invert-match|--fixed-strings|--no-heading|--heading|--no-line-number|--files|--hidden|--color=never|--json|--max-count=\d+|--glob=.+|--type=\w+|--type-not=\w+|--regexp=.+|--context=\d+|--before-context=\d+|--after-context=\d+|-[ABCm]\d+|--)$/,
    letters: 'niSslcwvFN',
    valued: /^-(e|g|t|T|A|B|C|m)$/,
  },
  git: {
    opts: /^(--no-pager|--version|--)$/,
    sub: {
      status: { opts: /^(--short|--branch|--porcelain(=v[12])?|--untracked-files=(no|normal|all)|--ignored|--long|--)$/, letters: 'sb' },
      diff: { opts: GIT_LOGISH },
      log: { opts: GIT_LOGISH, valued: /^-n$/ },
      show: { opts: GIT_LOGISH },
      branch: { opts: /^(--all|--remotes|--list|--show-current|--verbose|--no-color|--)$/, letters: 'arvl' },
      'rev-parse': { opts: /^(--show-toplevel|--abbrev-ref|--short|--short=\d+|--verify|--quiet|--git-dir|--is-inside-work-tree|--)$/ },
      'ls-files': { opts: /^(--cached|--modified|--deleted|--others|--exclude-standard|--)$/ },
    },
  },
};

/** True when the command and each of its options is in the small list (its operands were judged already). */
export function runsUnsandboxed(cmd: SimpleCommand): boolean {
  const spec = SMALL[cmd.name];
  const words = cmd.args.map((a) => a.text);
  return spec !== undefined && fits(spec, words);
}

function fits(spec: Small, words: string[]): boolean {
  let operands = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (spec.sub && !operands && !w.startsWith('-')) {
      const sub = spec.sub[w];
      return sub ? fits(sub, words.slice(i + 1)) : false;
    }
    if (operands || !w.startsWith('-') || w === '-') continue;
    if (w === '--') {
      operands = true;
      continue;
    }
    if (spec.opts.test(w)) continue;
    if (spec.valued?.test(w)) {
      i++; // its value: a pattern or a number, data to the program
      continue;
    }
    // A short cluster: every letter allowed (a valued letter may end it, glued to its value: -n5, -A3).
    if (/^-[a-zA-Z]/.test(w) && !w.startsWith('--')) {
      const body = w.slice(1);
      const valuedAt = [...body].findIndex((ch) => spec.valued?.test(`-${ch}`));
      const letters = valuedAt >= 0 ? body.slice(0, valuedAt) : body;
      if (![...letters].every((ch) => spec.letters?.includes(ch))) return false;
      if (valuedAt >= 0) {
        const glued = body.slice(valuedAt + 1);
        if (!glued) i++;
        else if (/[nABCmc]/.test(body[valuedAt]) && !NUM.test(glued)) return false;
      }
      continue;
    }
    return false;
  }
  return !spec.sub || words.every((w) => spec.opts.test(w)); // git alone, or git --version
}
