// Read-only text and file tools: every option they take and what their operands do, one line each in
// the option language of kit.ts. GTFOBins functions covered here: file read (operands;
// --files0-from and -f lists ask, since the files they name are unseen), file write (sort -o, uniq's and
// xxd's output operands, tree -o, file -C), command (sort --compress-program), date -f / -s. What needs
// code (operands that depend on options, jq's and yq's expressions, printf -v) is below the table.
import type { Word } from '../shellWords.js';
import { ASK, DENY, fromSpec, fromSpecs, listOperands, type Effect, type Model, type Parsed, type PolicyDecision } from './kit.js';

const FILES0 = '--files0-from=lread';
const SUMS = `-[btwz] --binary --text --tag --zero -l|--length= -a|--algorithm= -c|--check:env --ignore-missing --quiet --status --strict --warn @read`;
const LIST_FLAGS =
  '-[aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxX1Z] --all --almost-all --escape --ignore-backups --directory --classify --file-type --no-group --human-readable --si --dereference-command-line --dereference-command-line-symlink-to-dir --inode --kibibytes --dereference --numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name --recursive --reverse --size --context --group-directories-first --full-time --author';

/** Programs whose options and operands are the whole story. */
const TABLE: Record<string, string> = {
  cat: '-[AbeEnstTuv] --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting @read',
  head: '-n|--lines= -c|--bytes= -[qvz] --quiet --silent --verbose --zero-terminated @read #numeric',
  tail: '-n|--lines= -c|--bytes= -s|--sleep-interval= --pid= --max-unchanged-stats= -[fFqvz] --retry --quiet --silent --verbose --zero-terminated --follow=? @read #numeric',
  wc: `-[clmwL] --bytes --chars --lines --words --max-line-length ${FILES0} --total= @read`,
  nl: '-b|--body-numbering= -d|--section-delimiter= -f|--footer-numbering= -h|--header-numbering= -i|--line-increment= -l|--join-blank-lines= -n|--number-format= -s|--number-separator= -v|--starting-line-number= -w|--number-width= -p --no-renumber @read',
  tac: '-[br] --before --regex -s|--separator= @read',
  rev: '@read',
  cut: '-b|--bytes= -c|--characters= -d|--delimiter= -f|--fields= --output-delimiter= -[nsz] --complement --only-delimited --zero-terminated @read',
  fold: '-w|--width= -[bs] --bytes --spaces @read #numeric',
  paste: '-d|--delimiters= -[sz] --serial --zero-terminated @read',
  expand: '-t|--tabs= -i --initial @read #numeric',
  od: '-A|--address-radix= -j|--skip-bytes= -N|--read-bytes= -S|--strings= -t|--format= -w|--width= --endian= -[abcdfilosvxDFHILOX] --output-duplicates --traditional @read',
  hexdump: '-e= -n= -s= -f=read -[bcCdovxL] @read',
  strings:
    '-n|--bytes= -t|--radix= -e|--encoding= -T|--target= -s|--output-separator= --unicode= -[adfowU] --all --data --print-file-name --include-all-whitespace -@=read @read #numeric',
  column:
    '-c|--output-width= -s|--separator= -o|--output-separator= -N|--table-columns= -l|--table-columns-limit= -R|--table-right= -T|--table-truncate= -E|--table-noextreme= -W|--table-wrap= -H|--table-hide= -O|--table-order= -n|--table-name= -d|--table-noheadings= -r|--tree= -i|--tree-id= -p|--tree-parent= -[tJLex] --table --json --keep-empty-lines --fillrows @read',
  comm: '-[123z] --check-order --nocheck-order --total --zero-terminated --output-delimiter= @read',
  tr: '-[cCdst] --complement --delete --squeeze-repeats --truncate-set1 @none',
  cmp: '-[blsz] --print-bytes --verbose --quiet --silent --zero-terminated -i|--ignore-initial= -n|--bytes= @read',
  sort: `-[bdfgiMhnRrVcCmsuz] --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --merge --stable --unique --zero-terminated --debug -k|--key= -t|--field-separator= -S|--buffer-size= --parallel= --batch-size= --sort= --check=? -o|--output=write -T|--temporary-directory=write --compress-program=exec --random-source=read ${FILES0} @read`,
  df: '-[ahHiklPTv] --all --human-readable --si --inodes --local --no-sync --sync --portability --print-type --total -B|--block-size= -t|--type= -x|--exclude-type= --output= @list',
  stat: '-[LftZ] --dereference --file-system --terse -c|--format= --printf= --cached= @list',
  file: '-[bcdEhiIkLlNnprsSvz0Z] --brief --checking-printout --no-dereference --mime --mime-type --mime-encoding --keep-going --dereference --no-pad --no-buffer --preserve-date --raw --special-files --no-sandbox --uncompress --uncompress-noreport --print0 --extension --apple --list -e|--exclude= -F|--separator= -P|--parameter= --exclude-quiet= -f|--files-from=lread -m|--magic-file=read -C|--compile:write @read',
  realpath:
    '-[eEmLPqsz] --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero --relative-to= --relative-base= @list',
  readlink: '-[efmnqsvz] --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero @list',
  basename: '-[az] --multiple --zero -s|--suffix= @none',
  dirname: '-z --zero @none',
  pwd: '-[LP] @none',
  seq: '-f|--format= -s|--separator= -w --equal-width @none #numeric',
  sleep: '@none',
  uname: '-[asnrvmpio] --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system @none',
  whoami: '@none',
  id: '-[agGnruzZ] --group --groups --name --real --user --zero --context @none',
  nproc: '--all --ignore= @none',
  free: '-[bkmgthlLtvw] --bytes --kilo --mega --giga --tera --peta --kibi --mebi --gibi --tebi --pebi --human --si --lohi --total --wide @none',
  uptime: '-[psr] --pretty --since @none',
  which: '-[as] @none',
  whereis: '-[bmsulgf] @none',
  type: '-[afptP] @none #noabbrev',
  ...Object.fromEntries(['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum'].map((n) => [n, SUMS])),
};

/** An operand pair `[INPUT [OUTPUT]]` (uniq, xxd): the second is written. */
const inThenOut = (ops: Word[]) =>
  ops.map((w, i) => ({ word: w, effect: (i === 0 ? 'read' : 'write') as Effect, why: i === 0 ? 'input' : 'its output operand' }));

const diff = fromSpec(
  'diff',
  '-[abBdEiNpqrstTuwyZc] --text --ignore-blank-lines --minimal --ignore-tab-expansion --ignore-case --new-file --show-c-function --brief --recursive --report-identical-files --expand-tabs --initial-tab --ignore-all-space --side-by-side --ignore-trailing-space --unidirectional-new-file --strip-trailing-cr --suppress-common-lines --left-column --suppress-blank-empty --no-dereference --speed-large-files --ignore-file-name-case --no-ignore-file-name-case --normal --ignore-space-change -e --ed -n --rcs -U|--unified= -C|--context= -I|--ignore-matching-lines= -W|--width= -F|--show-function-line= -x|--exclude= --label= --line-format= --old-line-format= --new-line-format= --unchanged-line-format= --old-group-format= --new-group-format= --unchanged-group-format= --changed-group-format= --horizon-lines= --tabsize= -S|--starting-file= --palette= --color=? -u --unified=? --context=? -X|--exclude-from=read --from-file=read --to-file=read #numeric',
  // -r reads whole folders.
  { operands: (ops, p) => ops.map((w) => ({ word: w, effect: p.opts.has('-r') ? 'rread' : 'read' })) },
);
const uniq = fromSpec(
  'uniq',
  '-[cdDiuz] --count --repeated --ignore-case --unique --zero-terminated -f|--skip-fields= -s|--skip-chars= -w|--check-chars= --group= --all-repeated=? #numeric',
  { operands: inThenOut },
);
const xxd = fromSpec(
  'xxd',
  '-[aEiprud] -autoskip -bits -capitalize -include -plain -ps -postscript -revert -uppercase -c= -cols= -g= -groupsize= -l= -len= -o= -offset= -s= -seek= -n= -name= -C= -b #noabbrev',
  { operands: inThenOut },
);
// -R with -L goes down through symlinked folders, wherever they lead.
const ls = fromSpec(
  'ls',
  `${LIST_FLAGS} -I|--ignore= -w|--width= -T|--tabsize= --block-size= --format= --hide= --quoting-style= --sort= --time= --time-style= --indicator-style= --color=? --hyperlink=? -D|--dired`,
  { operands: (ops, p) => listOperands(ops, (p.opts.has('-R') || p.opts.has('--recursive')) && (p.opts.has('-L') || p.opts.has('--dereference'))) },
);
// -l goes down through symlinked folders; -o writes its output; -R with -H writes 00Tree.html files.
const tree = fromSpec(
  'tree',
  '-[adlfxACDFgJhnNpqQrstuUvSX] --noreport --dirsfirst --du --prune --si --inodes --device --gitignore --info --matchdirs --metafirst --filesfirst -L= -P= -I= -H= -T= --charset= --filelimit= --timefmt= --sort= --ignore-case= --hintro= --houtro= -o=write --fromfile:read --gitfile=read -R:write #noabbrev',
  { operands: (ops, p) => listOperands(ops, p.opts.has('-l')) },
);
// -L counts what symlinks below lead to, wherever they lead.
const du = fromSpec(
  'du',
  `-[0abcDhHklLmPsSx] --null --all --apparent-size --bytes --total --dereference-args --human-readable --inodes --dereference --count-links --no-dereference --separate-dirs --si --summarize --one-file-system --time -B|--block-size= -d|--max-depth= -t|--threshold= --exclude= --time-style= -X|--exclude-from=read ${FILES0}`,
  { operands: (ops, p) => listOperands(ops, p.opts.has('-L') || p.opts.has('--dereference')) },
);
// date: -f reads a file (and echoes unparseable lines in errors), -r reads a file's time, -s and an
// MMDDhhmm operand set the clock.
const date = fromSpec(
  'date',
  '-[uR] --utc --universal --rfc-2822 --debug -d|--date= --rfc-3339= --resolution= -I=? --iso-8601=? -f|--file=read -r|--reference=list -s|--set=system',
  {
    operands: (ops) =>
      ops.map((w) => ({
        word: w,
        effect: (w.text.startsWith('+') ? 'none' : 'system') as Effect,
        why: w.text.startsWith('+') ? 'format' : `${w.text} sets the clock`,
      })),
  },
);
// hostname NAME and -F FILE set the host name.
const hostname = fromSpec(
  'hostname',
  '-[aAbdfiIsyv] --alias --all-fqdns --domain --fqdn --long --ip-address --all-ip-addresses --short --yp --nis --verbose -F|--file=system',
  { operands: (ops) => ops.map((w) => ({ word: w, effect: 'system' as Effect, why: 'a name operand sets the host name' })) },
);
// printf -v NAME assigns to NAME; a subscript in it (`a[$(cmd)]`) is evaluated as arithmetic, which runs cmd.
const printf: Model = {
  ...fromSpec('printf', '-v=env @none #posix'),
  check: (p) => {
    const name = p.values.get('-v')?.[0];
    if (!name || (name.literal && !name.text.includes('['))) return null;
    return DENY(
      `printf -v ${name.text}: ${name.literal ? 'bash evaluates the subscript as arithmetic, which runs any $(...) in it' : 'a variable name known only at run time could hold a subscript that runs as code'}`,
      'command:exec:printf',
    );
  },
};

// --arg/--argjson/--rawfile/--slurpfile take two values; the parser took one: this many leading operands are the others.
const jqSecondValues = (p: Parsed) => ['--arg', '--argjson', '--rawfile', '--slurpfile'].reduce((n, o) => n + (p.opts.get(o)?.length ?? 0), 0);

// jq: the first operand is the filter; -f and -L read files; --args/--jsonargs make the remaining operands data.
const jq = fromSpec(
  'jq',
  '-[nrjaseSCMcR0] --null-input --raw-input --slurp --compact-output --tab --color-output --monochrome-output --ascii-output --unbuffered --sort-keys --raw-output --raw-output0 --join-output --exit-status --seq --stream --stream-errors --args --jsonargs --binary --indent= --arg= --argjson= -f|--from-file=read -L=rread --rawfile=none --slurpfile=none',
  {
    operands: (ops, p) => {
      // Options may follow operands (`jq -n '$x' --rawfile x .env`), so which word is the second value of a
      // two-valued option cannot be told from the parse: then every operand is judged as a file read.
      if (jqSecondValues(p) > 0) return ops.map((w) => ({ word: w, effect: 'read' as Effect, why: '--rawfile/--slurpfile/--arg values may name files' }));
      const args = p.opts.has('--args') || p.opts.has('--jsonargs');
      return ops.slice(p.opts.has('-f') ? 0 : 1).map((w) => ({ word: w, effect: (args ? 'none' : 'read') as Effect }));
    },
    check: (p) => {
      if (p.opts.has('-f'))
        return ASK('jq -f runs a filter file devx cannot see in advance (it may read the environment or import modules)', 'command:script-file:jq');
      return queryReach('jq', p.operands[jqSecondValues(p)]?.text ?? '');
    },
  },
);

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
const yqSub = (ops: Word[]) => (['eval', 'e', 'eval-all', 'ea'].includes(ops[0]?.text ?? '') ? 1 : 0);
const yq = fromSpec(
  'yq',
  '-[CMNPnerjV0] --colors --no-colors --no-doc --prettyPrint --exit-status --null-input --unwrapScalar --verbose --nul-output -o|--output-format= -p|--input-format= -I|--indent= --expression= -i|--inplace:write --from-file=read',
  {
    operands: (ops, p) => ops.slice(yqSub(ops) + 1).map((w) => ({ word: w, effect: (p.opts.has('-i') ? 'write' : 'read') as Effect })),
    check: (p) => {
      if (p.operands.some((w) => /\b(load|load_str|load_props|load_xml|load_base64)\s*\(/.test(w.text)))
        return DENY('yq load() reads files the expression names', 'command:yq-load');
      if (p.opts.has('--from-file')) return ASK('yq --from-file runs an expression file devx cannot see in advance', 'command:script-file:yq');
      return queryReach('yq', p.operands[yqSub(p.operands)]?.text ?? '');
    },
  },
);

export const READERS: Record<string, Model> = {
  ...fromSpecs(TABLE),
  diff,
  uniq,
  xxd,
  ls,
  tree,
  du,
  date,
  hostname,
  printf,
  jq,
  yq,
};
