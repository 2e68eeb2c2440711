// find: starting points, then an expression. Every primary is in the model; unknown ones ask.
// GTFOBins: -exec/-execdir/-ok/-okdir run programs (deny), -fprint* write a file, -delete removes
// files, -files0-from reads a list of roots (unseen, so it asks). find only lists names, so its roots are checked as listings.
import type { Word } from '../shellWords.js';
import {
  ALLOW,
  ASK,
  DOT,
  decideEffect,
  listOperands,
  options,
  strictest,
  word,
  words,
  type Effect,
  type Model,
  type PolicyDecision,
  type RuleContext,
  type SimpleCommand,
} from './kit.js';

const FLAGS = new Set(
  words(`
-print -print0 -ls -prune -quit -not ! ( ) -o -a -or -and , -follow -xdev -mount -depth -daystart -true -false -empty
-readable -writable -executable -nouser -nogroup -noleaf -ignore_readdir_race -noignore_readdir_race -nowarn -warn -help
--help -version --version
`),
);
const WITH_VALUE = new Set(
  words(`
-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -maxdepth -mindepth -mtime -mmin
-atime -amin -ctime -cmin -size -perm -user -group -uid -gid -links -inum -lname -ilname -fstype -printf -used -context
`),
);
const REFERENCE = new Set(['-newer', '-anewer', '-cnewer', '-samefile']);
const EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FPRINT = new Set(['-fprint', '-fprint0', '-fls']);

export function findRule(cmd: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args = cmd.args;
  let i = 0;
  let d = ALLOW('find only lists names', 'command:read-only:find');
  // Leading options: -H -L -P, -D debugopts, -Olevel. The last of -L/-P wins (-H follows the roots only, which are checked anyway).
  let follow = false;
  while (i < args.length && /^-(H|L|P|D|O\d*)$/.test(args[i].text)) {
    if (args[i].text === '-L') follow = true;
    if (args[i].text === '-P' || args[i].text === '-H') follow = false;
    i += args[i].text === '-D' ? 2 : 1;
  }
  const roots: Word[] = [];
  while (i < args.length && !args[i].text.startsWith('-') && !['(', '!', ')', ','].includes(args[i].text)) roots.push(args[i++]);
  if (!roots.length) roots.push(word(args[0] ?? DOT, '.'));
  let deletes = false;
  const unknown: string[] = [];
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '-follow') follow = true;
    if (FLAGS.has(t)) continue;
    if (WITH_VALUE.has(t)) {
      i++;
      continue;
    }
    if (REFERENCE.has(t) || /^-newer[acmBt][acmBt]$/.test(t)) {
      if (args[i + 1]) d = strictest(d, decideEffect('find', 'list', args[++i], t, ctx));
      continue;
    }
    if (t === '-files0-from') {
      // Its roots are in the list, unseen: they are listed without being checked.
      if (args[i + 1]) d = strictest(d, decideEffect('find', 'lread', args[++i], `${t} lists the roots a file names`, ctx));
      continue;
    }
    if (EXEC.has(t)) return decideEffect('find', 'exec', undefined, t, ctx);
    if (FPRINT.has(t) || t === '-fprintf') {
      if (args[i + 1]) d = strictest(d, decideEffect('find', 'write', args[++i], `${t} writes a file`, ctx));
      if (t === '-fprintf') i++;
      continue;
    }
    if (t === '-delete') {
      deletes = true;
      continue;
    }
    unknown.push(t);
  }
  for (const r of roots) {
    const effect: Effect = deletes ? 'write' : follow ? 'flist' : 'list';
    d = strictest(
      d,
      decideEffect('find', effect, r, deletes ? '-delete removes files under it' : follow ? 'lists names through the symlinks below it' : 'lists', ctx),
    );
  }
  if (unknown.length)
    d = strictest(d, ASK(`find: ${unknown.join(', ')} is not in devx's model of find, so its effect is unknown`, 'command:unknown-option:find'));
  return d;
}

/** fd: a pattern, then the roots it lists (through symlinks with -L). -x/-X run a program for each match. */
export const fd: Model = {
  id: 'fd',
  abbreviations: false,
  opts: {
    ...options(
      '-[HIusiFalLp01qhVg] --hidden --no-hidden --no-ignore --ignore --unrestricted --no-ignore-vcs --ignore-vcs --no-ignore-parent',
      '--case-sensitive --ignore-case --glob --regex --fixed-strings --absolute-path --relative-path --list-details',
      '--follow --no-follow --full-path --print0 --prune --quiet --show-errors --strip-cwd-prefix --one-file-system',
      '--no-require-git --no-global-ignore-file --version --help --and= -d|--max-depth= --min-depth= --exact-depth= -E|--exclude=',
      '-t|--type= -e|--extension= -S|--size= --changed-within= --changed-after= --changed-before= --newer= --older= -o|--owner=',
      '--format= --batch-size= -c|--color= -j|--threads= --max-results= --path-separator= --hyperlink=? --ignore-file=read',
      '--base-directory=list --search-path=list',
    ),
    '-x|--exec': { v: true, e: 'exec', why: '--exec runs a program for every match' },
    '-X|--exec-batch': { v: true, e: 'exec', why: '--exec-batch runs a program on the matches' },
  },
  // The first operand is the pattern; the rest are roots (with -L and none given, `.` is listed through its symlinks).
  operands: (ops, p) => listOperands(ops.slice(1), p.opts.has('-L')),
};
