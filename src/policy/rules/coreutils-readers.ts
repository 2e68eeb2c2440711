// Read-only text and file tools: every option they take, and what their operands do. GTFOBins
// functions covered here: file read (operands; -f/--files0-from lists ask, since the files they name are unseen), file write (sort -o, uniq's
// output operand, xxd's output operand, tree -o, file -C), command (sort --compress-program),
// and date -f / -s.
import type { Word } from '../shellWords.js';
import { ASK, DENY, EXEC, READ, flags, listOperands, values, type Effect, type Model, type Opt, type Parsed, type PolicyDecision } from './kit.js';

const HELP: Record<string, Opt> = { '--help': {}, '--version': {} };
const FILES0: Record<string, Opt> = { '--files0-from': { v: true, e: 'lread', why: '--files0-from reads the files a list names' } };

const reader = (id: string, opts: Record<string, Opt>, extra: Partial<Model> = {}): Model => ({ id, opts: { ...HELP, ...opts }, operands: 'read', ...extra });

export const cat = reader(
  'cat',
  flags('AbeEnstTuv', '--show-all', '--number-nonblank', '--show-ends', '--number', '--squeeze-blank', '--show-tabs', '--show-nonprinting'),
);
export const head = reader(
  'head',
  { ...values('-n|--lines', '-c|--bytes'), ...flags('qvz', '--quiet', '--silent', '--verbose', '--zero-terminated') },
  { numeric: true },
);
export const tail = reader(
  'tail',
  {
    ...values('-n|--lines', '-c|--bytes', '-s|--sleep-interval', '--pid', '--max-unchanged-stats'),
    ...flags('fFqvz', '--follow', '--retry', '--quiet', '--silent', '--verbose', '--zero-terminated'),
    '--follow': { v: 'attached' },
  },
  { numeric: true },
);
export const wc = reader('wc', { ...flags('clmwL', '--bytes', '--chars', '--lines', '--words', '--max-line-length'), ...FILES0, '--total': { v: true } });
export const nl = reader('nl', {
  ...values(
    '-b|--body-numbering',
    '-d|--section-delimiter',
    '-f|--footer-numbering',
    '-h|--header-numbering',
    '-i|--line-increment',
    '-l|--join-blank-lines',
    '-n|--number-format',
    '-s|--number-separator',
    '-v|--starting-line-number',
    '-w|--number-width',
  ),
  ...flags('p', '--no-renumber'),
});
export const tac = reader('tac', { ...flags('br', '--before', '--regex'), ...values('-s|--separator') });
export const rev = reader('rev', {});
export const cut = reader('cut', {
  ...values('-b|--bytes', '-c|--characters', '-d|--delimiter', '-f|--fields', '--output-delimiter'),
  ...flags('nsz', '--complement', '--only-delimited', '--zero-terminated'),
});
export const fold = reader('fold', { ...values('-w|--width'), ...flags('bs', '--bytes', '--spaces') }, { numeric: true });
export const paste = reader('paste', { ...values('-d|--delimiters'), ...flags('sz', '--serial', '--zero-terminated') });
export const expand = reader('expand', { ...values('-t|--tabs'), ...flags('i', '--initial') }, { numeric: true });
export const od = reader('od', {
  ...values('-A|--address-radix', '-j|--skip-bytes', '-N|--read-bytes', '-S|--strings', '-t|--format', '-w|--width', '--endian'),
  ...flags('abcdfilosvxDFHILOX', '--output-duplicates', '--traditional'),
});
export const hexdump = reader('hexdump', { ...values('-e', '-n', '-s'), '-f': READ, ...flags('bcCdovxL') });
export const strings = reader(
  'strings',
  {
    ...values('-n|--bytes', '-t|--radix', '-e|--encoding', '-T|--target', '-s|--output-separator', '--unicode'),
    ...flags('adfowU', '--all', '--data', '--print-file-name', '--include-all-whitespace'),
    '-@': READ,
  },
  { numeric: true },
);
export const column = reader('column', {
  ...values(
    '-c|--output-width',
    '-s|--separator',
    '-o|--output-separator',
    '-N|--table-columns',
    '-l|--table-columns-limit',
    '-R|--table-right',
    '-T|--table-truncate',
    '-E|--table-noextreme',
    '-W|--table-wrap',
    '-H|--table-hide',
    '-O|--table-order',
    '-n|--table-name',
    '-d|--table-noheadings',
    '-r|--tree',
    '-i|--tree-id',
    '-p|--tree-parent',
  ),
  ...flags('tJLexL', '--table', '--json', '--keep-empty-lines', '--fillrows'),
});
export const comm = reader('comm', { ...flags('123z', '--check-order', '--nocheck-order', '--total', '--zero-terminated'), ...values('--output-delimiter') });
export const tr: Model = {
  id: 'tr',
  opts: { ...HELP, ...flags('cCdst', '--complement', '--delete', '--squeeze-repeats', '--truncate-set1') },
  operands: 'none',
};

const SUMS = { ...flags('bt', '--binary', '--text', '--tag', '--zero', '-z'), ...values('-l|--length', '-a|--algorithm') };
// -c reads the files a checksum list names: the names are not known in advance.
const sumCheck = (id: string): Model =>
  reader(id, {
    ...SUMS,
    '-c|--check': { e: 'env', why: '-c reads the files named inside a checksum list' },
    ...flags('w', '--ignore-missing', '--quiet', '--status', '--strict', '--warn'),
  });
export const sums = Object.fromEntries(
  ['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum'].map((n) => [n, sumCheck(n)]),
);

export const diff = reader(
  'diff',
  {
    ...flags(
      'abBdEiNpqrstTuwyZc',
      '--text',
      '--ignore-blank-lines',
      '--minimal',
      '--ignore-tab-expansion',
      '--ignore-case',
      '--new-file',
      '--show-c-function',
      '--brief',
      '--recursive',
      '--report-identical-files',
      '--expand-tabs',
      '--initial-tab',
      '--ignore-all-space',
      '--side-by-side',
      '--ignore-trailing-space',
      '--unidirectional-new-file',
      '--strip-trailing-cr',
      '--suppress-common-lines',
      '--left-column',
      '--suppress-blank-empty',
      '--no-dereference',
      '--speed-large-files',
      '--ignore-file-name-case',
      '--no-ignore-file-name-case',
      '--normal',
      '--ignore-space-change',
      '-e',
      '--ed',
      '-n',
      '--rcs',
    ),
    ...values(
      '-U|--unified',
      '-C|--context',
      '-I|--ignore-matching-lines',
      '-W|--width',
      '-F|--show-function-line',
      '-x|--exclude',
      '--label',
      '--line-format',
      '--old-line-format',
      '--new-line-format',
      '--unchanged-line-format',
      '--old-group-format',
      '--new-group-format',
      '--unchanged-group-format',
      '--changed-group-format',
      '--horizon-lines',
      '--tabsize',
      '-S|--starting-file',
      '--color',
      '--palette',
    ),
    '--color': { v: 'attached' },
    '-u': {},
    '--unified': { v: 'attached' },
    '--context': { v: 'attached' },
    '-X|--exclude-from': READ,
    '--from-file': READ,
    '--to-file': READ,
  },
  { numeric: true, operands: (ops, p) => ops.map((w) => ({ word: w, effect: p.opts.has('-r') ? 'rread' : 'read' })) },
);
export const cmp = reader('cmp', {
  ...flags('blsz', '--print-bytes', '--verbose', '--quiet', '--silent', '--zero-terminated'),
  ...values('-i|--ignore-initial', '-n|--bytes'),
});

export const sort = reader('sort', {
  ...flags(
    'bdfgiMhnRrVcCmsuz',
    '--ignore-leading-blanks',
    '--dictionary-order',
    '--ignore-case',
    '--general-numeric-sort',
    '--ignore-nonprinting',
    '--month-sort',
    '--human-numeric-sort',
    '--numeric-sort',
    '--random-sort',
    '--reverse',
    '--version-sort',
    '--merge',
    '--stable',
    '--unique',
    '--zero-terminated',
    '--debug',
  ),
  ...values('-k|--key', '-t|--field-separator', '-S|--buffer-size', '--parallel', '--batch-size', '--sort'),
  '--check': { v: 'attached' },
  '-o|--output': { v: true, e: 'write', why: '-o writes its output to a file' },
  '-T|--temporary-directory': { v: true, e: 'write', why: '-T writes temporary files' },
  '--compress-program': { ...EXEC, why: '--compress-program' },
  '--random-source': READ,
  ...FILES0,
});

// uniq [INPUT [OUTPUT]]: the second operand is written.
export const uniq = reader(
  'uniq',
  {
    ...flags('cdDiuz', '--count', '--repeated', '--ignore-case', '--unique', '--zero-terminated'),
    ...values('-f|--skip-fields', '-s|--skip-chars', '-w|--check-chars', '--group'),
    '--all-repeated': { v: 'attached' },
  },
  {
    numeric: true,
    operands: (ops) => ops.map((w, i) => ({ word: w, effect: (i === 0 ? 'read' : 'write') as Effect, why: i === 0 ? 'input' : 'its output operand' })),
  },
);

// xxd [INFILE [OUTFILE]] (and -r): the second operand is written.
export const xxd = reader(
  'xxd',
  {
    ...flags('aEiprud', '-autoskip', '-bits', '-capitalize', '-include', '-plain', '-ps', '-postscript', '-revert', '-uppercase'),
    ...values('-c', '-cols', '-g', '-groupsize', '-l', '-len', '-o', '-offset', '-s', '-seek', '-n', '-name', '-C'),
    '-b': {},
  },
  {
    abbreviations: false,
    operands: (ops) => ops.map((w, i) => ({ word: w, effect: (i === 0 ? 'read' : 'write') as Effect, why: i === 0 ? 'input' : 'its output operand' })),
  },
);

const LIST_FLAGS = flags(
  'aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxX1Z',
  '--all',
  '--almost-all',
  '--escape',
  '--ignore-backups',
  '--directory',
  '--classify',
  '--file-type',
  '--no-group',
  '--human-readable',
  '--si',
  '--dereference-command-line',
  '--dereference-command-line-symlink-to-dir',
  '--inode',
  '--kibibytes',
  '--dereference',
  '--numeric-uid-gid',
  '--literal',
  '--indicator-style',
  '--hide-control-chars',
  '--show-control-chars',
  '--quote-name',
  '--recursive',
  '--reverse',
  '--size',
  '--context',
  '--group-directories-first',
  '--full-time',
  '--author',
);
export const ls: Model = {
  id: 'ls',
  opts: {
    ...HELP,
    ...LIST_FLAGS,
    ...values(
      '-I|--ignore',
      '-w|--width',
      '-T|--tabsize',
      '--block-size',
      '--format',
      '--hide',
      '--quoting-style',
      '--sort',
      '--time',
      '--time-style',
      '--indicator-style',
    ),
    '--color': { v: 'attached' },
    '--hyperlink': { v: 'attached' },
    '-D|--dired': {},
  },
  // -R with -L goes down through symlinked folders, wherever they lead.
  operands: (ops, p) => listOperands(ops, (p.opts.has('-R') || p.opts.has('--recursive')) && (p.opts.has('-L') || p.opts.has('--dereference'))),
};
export const tree: Model = {
  id: 'tree',
  opts: {
    ...HELP,
    ...flags(
      'adlfxACDFgJhnNpqQrstuUvSX',
      '--noreport',
      '--dirsfirst',
      '--du',
      '--prune',
      '--si',
      '--inodes',
      '--device',
      '--gitignore',
      '--info',
      '--matchdirs',
      '--metafirst',
      '--filesfirst',
    ),
    ...values('-L', '-P', '-I', '-H', '-T', '--charset', '--filelimit', '--timefmt', '--sort', '--ignore-case', '--hintro', '--houtro'),
    '-o': { v: true, e: 'write', why: '-o writes its output to a file' },
    '--fromfile': { e: 'read', why: '--fromfile reads listings from files' },
    '--gitfile': READ,
    '-R': { e: 'write', why: '-R writes 00Tree.html files with -H' },
  },
  // -l goes down through symlinked folders, wherever they lead.
  operands: (ops, p) => listOperands(ops, p.opts.has('-l')),
  abbreviations: false,
};
export const du: Model = {
  id: 'du',
  opts: {
    ...HELP,
    ...flags(
      '0abcDhHklLmPsSx',
      '--null',
      '--all',
      '--apparent-size',
      '--bytes',
      '--total',
      '--dereference-args',
      '--human-readable',
      '--inodes',
      '--dereference',
      '--count-links',
      '--no-dereference',
      '--separate-dirs',
      '--si',
      '--summarize',
      '--one-file-system',
      '--time',
    ),
    ...values('-B|--block-size', '-d|--max-depth', '-t|--threshold', '--exclude', '--time-style'),
    '-X|--exclude-from': READ,
    ...FILES0,
  },
  // -L counts what symlinks below lead to, wherever they lead.
  operands: (ops, p) => listOperands(ops, p.opts.has('-L') || p.opts.has('--dereference')),
};
export const df: Model = {
  id: 'df',
  opts: {
    ...HELP,
    ...flags('ahHiklPTv', '--all', '--human-readable', '--si', '--inodes', '--local', '--no-sync', '--sync', '--portability', '--print-type', '--total'),
    ...values('-B|--block-size', '-t|--type', '-x|--exclude-type', '--output'),
  },
  operands: 'list',
};
export const stat: Model = {
  id: 'stat',
  opts: { ...HELP, ...flags('LftZ', '--dereference', '--file-system', '--terse'), ...values('-c|--format', '--printf', '--cached') },
  operands: 'list',
};
export const file: Model = {
  id: 'file',
  opts: {
    ...HELP,
    ...flags(
      'bcdEhiIkLlNnprsSvz0Z',
      '--brief',
      '--checking-printout',
      '--no-dereference',
      '--mime',
      '--mime-type',
      '--mime-encoding',
      '--keep-going',
      '--dereference',
      '--no-pad',
      '--no-buffer',
      '--preserve-date',
      '--raw',
      '--special-files',
      '--no-sandbox',
      '--uncompress',
      '--uncompress-noreport',
      '--print0',
      '--extension',
      '--apple',
      '--list',
    ),
    ...values('-e|--exclude', '-F|--separator', '-P|--parameter', '--exclude-quiet'),
    '-f|--files-from': { v: true, e: 'lread', why: '-f reads the files a list names' },
    '-m|--magic-file': READ,
    '-C|--compile': { e: 'write', why: '-C writes a compiled magic file' },
  },
  operands: 'read',
};
const names = (id: string, opts: Record<string, Opt> = {}): Model => ({ id, opts: { ...HELP, ...opts }, operands: 'list' });
export const realpath = names('realpath', {
  ...flags('eEmLPqsz', '--canonicalize-existing', '--canonicalize-missing', '--logical', '--physical', '--quiet', '--strip', '--no-symlinks', '--zero'),
  ...values('--relative-to', '--relative-base'),
});
export const readlink = names(
  'readlink',
  flags('efmnqsvz', '--canonicalize', '--canonicalize-existing', '--canonicalize-missing', '--no-newline', '--quiet', '--silent', '--verbose', '--zero'),
);
export const basename: Model = { id: 'basename', opts: { ...HELP, ...flags('az', '--multiple', '--zero'), ...values('-s|--suffix') }, operands: 'none' };
export const dirname: Model = { id: 'dirname', opts: { ...HELP, ...flags('z', '--zero') }, operands: 'none' };

// date: -f reads a file (and echoes unparseable lines in errors), -r reads a file's time, -s and an
// MMDDhhmm operand set the clock.
export const date: Model = {
  id: 'date',
  opts: {
    ...HELP,
    ...flags('uR', '--utc', '--universal', '--rfc-2822', '--debug'),
    ...values('-d|--date', '-I|--iso-8601', '--rfc-3339', '--resolution'),
    '-I': { v: 'attached' },
    '--iso-8601': { v: 'attached' },
    '-f|--file': { v: true, e: 'read', why: '-f reads dates from a file' },
    '-r|--reference': { v: true, e: 'list' },
    '-s|--set': { v: true, e: 'system', why: '-s sets the clock' },
  },
  operands: (ops) =>
    ops.map((w) => ({
      word: w,
      effect: (w.text.startsWith('+') ? 'none' : 'system') as Effect,
      why: w.text.startsWith('+') ? 'format' : `${w.text} sets the clock`,
    })),
};

/** Commands whose operands are data, never paths. */
const data = (id: string, opts: Record<string, Opt> = {}, extra: Partial<Model> = {}): Model => ({
  id,
  opts: { ...HELP, ...opts },
  operands: 'none',
  ...extra,
});
export const echo = data('echo', flags('neE'), { posix: true, abbreviations: false, opts: flags('neE') });
// printf -v NAME assigns to NAME; a subscript in it (`a[$(cmd)]`) is evaluated as arithmetic, which runs cmd.
export const printf = data(
  'printf',
  { '-v': { v: true, e: 'env', why: '-v sets a shell variable' } },
  {
    posix: true,
    check: (p) => {
      const name = p.values.get('-v')?.[0];
      if (!name || (name.literal && !name.text.includes('['))) return null;
      return DENY(
        `printf -v ${name.text}: ${name.literal ? 'bash evaluates the subscript as arithmetic, which runs any $(...) in it' : 'a variable name known only at run time could hold a subscript that runs as code'}`,
        'command:exec:printf',
      );
    },
  },
);
export const trueCmd = data('true', {}, { opts: {}, posix: true });
export const falseCmd = data('false', {}, { opts: {}, posix: true });
export const pwd = data('pwd', flags('LP'));
export const seq = data('seq', { ...values('-f|--format', '-s|--separator'), ...flags('w', '--equal-width') }, { numeric: true });
export const sleep = data('sleep');
export const uname = data(
  'uname',
  flags(
    'asnrvmpio',
    '--all',
    '--kernel-name',
    '--nodename',
    '--kernel-release',
    '--kernel-version',
    '--machine',
    '--processor',
    '--hardware-platform',
    '--operating-system',
  ),
);
export const whoami = data('whoami');
export const id = data('id', flags('agGnruzZ', '--group', '--groups', '--name', '--real', '--user', '--zero', '--context'));
// hostname NAME and -F FILE set the host name.
export const hostname: Model = {
  id: 'hostname',
  opts: {
    ...HELP,
    ...flags(
      'aAbdfiIsyv',
      '--alias',
      '--all-fqdns',
      '--domain',
      '--fqdn',
      '--long',
      '--ip-address',
      '--all-ip-addresses',
      '--short',
      '--yp',
      '--nis',
      '--verbose',
    ),
    '-F|--file': { v: true, e: 'system', why: '-F sets the host name' },
  },
  operands: (ops) => ops.map((w) => ({ word: w, effect: 'system' as Effect, why: 'a name operand sets the host name' })),
};
export const nproc = data('nproc', { ...flags('', '--all'), ...values('--ignore') });
export const free = data(
  'free',
  flags(
    'bkmgthlLtvw',
    '--bytes',
    '--kilo',
    '--mega',
    '--giga',
    '--tera',
    '--peta',
    '--kibi',
    '--mebi',
    '--gibi',
    '--tebi',
    '--pebi',
    '--human',
    '--si',
    '--lohi',
    '--total',
    '--wide',
  ),
);
export const uptime = data('uptime', flags('psr', '--pretty', '--since'));
export const which = data('which', flags('as'));
export const whereis = data('whereis', flags('bmsulgf'));
export const typeCmd = data('type', flags('afptP'), { abbreviations: false });
export const testCmd: Model = { id: 'test', opts: {}, operands: 'none', posix: true, abbreviations: false };
export const expr: Model = { id: 'expr', opts: {}, operands: 'none', posix: true, abbreviations: false };

// --arg/--argjson/--rawfile/--slurpfile take two values; the parser took one: this many leading operands are the others.
const jqSecondValues = (p: Parsed) => ['--arg', '--argjson', '--rawfile', '--slurpfile'].reduce((n, o) => n + (p.opts.get(o)?.length ?? 0), 0);

// jq: the first operand is the filter; --rawfile/--slurpfile/-f/-L read files; --args/--jsonargs make
// the remaining operands data.
export const jq: Model = {
  id: 'jq',
  opts: {
    ...HELP,
    ...flags(
      'nrjaseSCMcR0',
      '--null-input',
      '--raw-input',
      '--slurp',
      '--compact-output',
      '--tab',
      '--color-output',
      '--monochrome-output',
      '--ascii-output',
      '--unbuffered',
      '--sort-keys',
      '--raw-output',
      '--raw-output0',
      '--join-output',
      '--exit-status',
      '--seq',
      '--stream',
      '--stream-errors',
      '--args',
      '--jsonargs',
      '--binary',
    ),
    '--indent': { v: true },
    '--arg': { v: true },
    '--argjson': { v: true },
    '-f|--from-file': { v: true, e: 'read', why: '-f reads a filter file' },
    '-L': { v: true, e: 'rread', why: '-L reads modules from a directory' },
    '--rawfile': { v: true, e: 'none' },
    '--slurpfile': { v: true, e: 'none' },
  },
  operands: (ops, p) => {
    const extra = jqSecondValues(p);
    // Options may follow operands (`jq -n '$x' --rawfile x .env`), so which word is the second value of a
    // two-valued option cannot be told from the parse: then every operand is judged as a file read.
    if (extra > 0) return ops.map((w) => ({ word: w, effect: 'read' as Effect, why: '--rawfile/--slurpfile/--arg values may name files' }));
    const files: Word[] = [];
    const rest = ops.slice(extra);
    const filter = p.opts.has('-f') ? 0 : 1;
    const args = p.opts.has('--args') || p.opts.has('--jsonargs');
    return [
      ...files.map((w) => ({ word: w, effect: 'read' as Effect, why: '--rawfile/--slurpfile reads a file' })),
      ...rest.slice(filter).map((w) => ({ word: w, effect: (args ? 'none' : 'read') as Effect })),
    ];
  },
  check: (p) => {
    if (p.opts.has('-f'))
      return ASK('jq -f runs a filter file devx cannot see in advance (it may read the environment or import modules)', 'command:script-file:jq');
    return queryReach('jq', p.operands[jqSecondValues(p)]?.text ?? '');
  },
};

// What a jq or yq expression can reach beyond its input: the environment (`env`, `$ENV`, yq's
// `env(NAME)`/`strenv`/`envsubst`) is the same dump `env` is denied for; modules and data files
// (`import`/`include`) come from a search path outside the files devx checks. `.env` is a field, not the builtin.
function queryReach(id: string, expr: string): PolicyDecision | null {
  if (/\$ENV\b|(?<![.\w$])(env|strenv|envsubst)\b/.test(expr))
    return DENY(`${id} reads the environment (secrets included), as env would print it`, 'command:env-dump');
  if (/(?<![.\w$])(import|include)\s*"/.test(expr))
    return ASK(`${id} import/include reads modules or data from its search path`, `command:unverifiable:${id}-import`);
  return null;
}
// yq (mikefarah): load()/load_str() read any file; -i writes its operands.
export const yq: Model = {
  id: 'yq',
  opts: {
    ...HELP,
    ...flags(
      'CMNPnerjV0',
      '--colors',
      '--no-colors',
      '--no-doc',
      '--prettyPrint',
      '--exit-status',
      '--null-input',
      '--unwrapScalar',
      '--verbose',
      '--nul-output',
    ),
    ...values('-o|--output-format', '-p|--input-format', '-I|--indent', '--expression'),
    '-i|--inplace': { e: 'write', why: '-i rewrites its files' },
    '--from-file': READ,
  },
  operands: (ops, p) => {
    const sub = ['eval', 'e', 'eval-all', 'ea'].includes(ops[0]?.text ?? '') ? 1 : 0;
    return ops.slice(sub + 1).map((w) => ({ word: w, effect: (p.opts.has('-i') ? 'write' : 'read') as Effect }));
  },
  check: (p) => {
    if (p.operands.some((w) => /\b(load|load_str|load_props|load_xml|load_base64)\s*\(/.test(w.text)))
      return DENY('yq load() reads files the expression names', 'command:yq-load');
    if (p.opts.has('--from-file')) return ASK('yq --from-file runs an expression file devx cannot see in advance', 'command:script-file:yq');
    const sub = ['eval', 'e', 'eval-all', 'ea'].includes(p.operands[0]?.text ?? '') ? 1 : 0;
    return queryReach('yq', p.operands[sub]?.text ?? '');
  },
};

export const READERS: Record<string, Model> = {
  cat,
  head,
  tail,
  wc,
  nl,
  tac,
  rev,
  cut,
  fold,
  paste,
  expand,
  od,
  hexdump,
  strings,
  column,
  comm,
  tr,
  diff,
  cmp,
  sort,
  uniq,
  xxd,
  ls,
  tree,
  du,
  df,
  stat,
  file,
  realpath,
  readlink,
  basename,
  dirname,
  date,
  echo,
  printf,
  true: trueCmd,
  false: falseCmd,
  pwd,
  seq,
  sleep,
  uname,
  whoami,
  id,
  hostname,
  nproc,
  free,
  uptime,
  which,
  whereis,
  type: typeCmd,
  test: testCmd,
  '[': testCmd,
  expr,
  jq,
  yq,
  ...sums,
};

export type { Word, Parsed };
