// grep and ripgrep. Both read the files they search; with -r (grep) or always (rg) they read whole
// trees, so a root holding denied paths runs only in the sandbox (or asks). rg --pre and
// --search-zip run other programs on each file (GTFOBins: command). The options are data (kit.ts).
import { DOT, fromSpec, word, type Effect, type Model, type Opt } from './kit.js';
import type { Word } from '../shellWords.js';

const V: Record<string, Opt> = { '-V': {} };
/** The searched paths, or the current folder when none is named. */
const searched = (ops: Word[], paths: Word[], effect: Effect) =>
  paths.length ? paths.map((w) => ({ word: w, effect })) : [{ word: word(ops[0] ?? DOT, '.'), effect, why: 'searches the current directory' }];

export const grep: Model = fromSpec(
  'grep',
  '-[EFGPiyvwxcLlmoqsbHhnTZzUrRIa] --extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp --count --files-without-match --files-with-matches --only-matching --quiet --silent --no-messages --byte-offset --with-filename --no-filename --line-number --initial-tab --null --null-data --binary --recursive --dereference-recursive --text --line-buffered -m|--max-count= -A|--after-context= -B|--before-context= -C|--context= --label= --include= --exclude= --exclude-dir= --binary-files= -D|--devices= -d|--directories= --group-separator= --color|--colour=? --no-group-separator -e|--regexp= -f|--file=read --exclude-from=read #numeric',
  {
    opts: V,
    operands: (ops, p) => {
      const patternGiven = p.opts.has('-e') || p.opts.has('-f');
      const recursive = p.opts.has('-r') || p.opts.has('-R') || (p.opts.get('-d') ?? []).includes('recurse');
      const paths = ops.slice(patternGiven ? 0 : 1);
      // Without paths grep reads stdin, unless it recurses: then it searches the current folder.
      return !paths.length && !recursive ? [] : searched(ops, paths, recursive ? 'rread' : 'read');
    },
  },
);

export const rg: Model = fromSpec(
  'rg',
  '-[iSswxvcloqnNHIbFUPaLu0zpT.] --ignore-case --smart-case --case-sensitive --word-regexp --line-regexp --invert-match --count --count-matches --files-with-matches --files-without-match --only-matching --quiet --line-number --no-line-number --with-filename --no-filename --byte-offset --fixed-strings --multiline --multiline-dotall --pcre2 --text --follow --hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --no-ignore-global --no-ignore-exclude --no-ignore-files --unrestricted --null --null-data --files --json --no-json --vimgrep --heading --no-heading --column --no-column --trim --no-messages --stats --sort-files --type-list --pretty --no-config --crlf --no-unicode --passthru --no-filename --line-buffered --block-buffered --debug --trace --one-file-system --binary --no-binary --invert-match --include-zero --no-pcre2-unicode --auto-hybrid-regex --search-zip-off -m|--max-count= -A|--after-context= -B|--before-context= -C|--context= -t|--type= -T|--type-not= -g|--glob= --iglob= --type-add= --type-clear= -M|--max-columns= --max-depth|-d= --max-filesize= -j|--threads= --sort= --sortr= --color|--colour= --colors= -r|--replace= --engine= --path-separator= --context-separator= --field-match-separator= --field-context-separator= --encoding|-E= --regex-size-limit= --dfa-size-limit= --max-columns-preview= --hyperlink-format= --generate= -e|--regexp= -f|--file=read --ignore-file=read --pre=exec --pre-glob= -z|--search-zip:exec',
  {
    opts: V,
    operands: (ops, p) => {
      const patternGiven = p.opts.has('-e') || p.opts.has('-f') || p.opts.has('--files') || p.opts.has('--type-list');
      // --files only lists names; with -L it lists them through symlinks, wherever they lead.
      const follow = p.opts.has('-L') || p.opts.has('--follow');
      return searched(ops, ops.slice(patternGiven ? 0 : 1), p.opts.has('--files') ? (follow ? 'flist' : 'list') : 'rread');
    },
  },
);

/** ag (the silver searcher): a pattern, then the trees it searches; --pager runs a program. */
export const ag: Model = fromSpec(
  'ag',
  '-[acDfFilLnoQsSstuUvVwz0] --all-types --ackmate --count --nocolor --column --debug --follow --fixed-strings --literal --hidden --ignore-case --files-with-matches --files-without-matches --norecurse --only-matching --print-long-lines --case-sensitive --smart-case --search-binary --all-text --unrestricted --invert-match --version --vimgrep --word-regexp --search-zip --null --noheading --heading --nobreak --break --numbers --nonumbers --filename --nofilename --stats --silent --one-device --list-file-types --print0 --noaffinity --nomultiline --multiline --nopager --no-numbers -A|--after= -B|--before= -C|--context= --depth= -g= -G|--file-search-regex= -m|--max-count= --ignore= --workers= --color-line-number= --color-match= --color-path= --width= -W= --color -p|--path-to-ignore=read --pager=exec',
  { opts: V, operands: (ops, p) => searched(ops, ops.slice(p.opts.has('-g') ? 0 : 1), 'rread') },
);
