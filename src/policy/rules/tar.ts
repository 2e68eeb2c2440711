// tar: one mode (-c, -x, -t, ...), the archive (-f; host:file is remote), -C folders, and options that
// run programs (--to-command, --checkpoint-action, -I, --rsh-command, -F) denied. Creating reads its
// operands recursively; extracting writes what the archive names, which nobody sees in advance.
import type { Word } from '../shellWords.js';
import { allOf, evaluate, options, unverifiable, word, type Model, type RuleContext, type SimpleCommand } from './kit.js';
import { ASK, DENY, type PolicyDecision } from '../types.js';

/** GNU tar's old style (`tar czf out.tgz src`): the first word's letters are options, their values the next words in order. */
function tarOldStyle(args: Word[]): Word[] {
  const [first, ...rest] = args;
  if (!first || first.text.startsWith('-') || !/^[A-Za-z]+$/.test(first.text) || !/[ctxruAd]/.test(first.text)) return args;
  const out: Word[] = [];
  for (const ch of first.text) {
    out.push(word(first, `-${ch}`));
    if ('bCfFgHIKLNTVX'.includes(ch) && rest.length) out.push(rest.shift()!);
  }
  return [...out, ...rest];
}

const TAR_MODES = ['-c', '-x', '-t', '-r', '-u', '-A', '-d', '--delete', '--test-label'];
const tarModel: Model = {
  id: 'tar',
  // An option's reason names its first alias: --files-from and the program-running ones come first for that.
  // -M/--multi-volume and -L/--tape-length are left out (unknown, so a person's): at a volume's end tar prompts on
  // stdin, and `!` there runs a shell.
  opts: options(
    '-c|--create -x|--extract|--get -t|--list -r|--append -u|--update -A|--catenate|--concatenate -d|--diff|--compare --delete --test-label',
    '-f|--file= -C|--directory= -O|--to-stdout -P|--absolute-names',
    '-[vzjJapkUhmWSlsBiGwR] --verbose --gzip --gunzip --ungzip --bzip2 --xz --zstd --lzma --lzip --lzop --auto-compress',
    '--preserve-permissions --same-permissions --keep-old-files --keep-newer-files --skip-old-files --overwrite',
    '--unlink-first --dereference --touch --verify --sparse --check-links --preserve-order --same-order',
    '--read-full-records --ignore-zeros --incremental --interactive --confirmation --block-number',
    '--null --no-null --no-recursion --recursion --numeric-owner --no-same-owner --same-owner --no-same-permissions',
    '--exclude-vcs --exclude-vcs-ignores --exclude-caches --exclude-caches-all --exclude-backups --totals',
    '--wildcards --no-wildcards --anchored --no-anchored --ignore-case --no-ignore-case --force-local',
    '--remove-files --one-file-system --show-transformed-names --full-time --utc --xattrs --no-xattrs --acls',
    '--no-acls --selinux --no-selinux --posix --ignore-failed-read --no-overwrite-dir --keep-directory-symlink',
    '--delay-directory-restore --no-delay-directory-restore --restrict --show-omitted-dirs --no-auto-compress',
    '--exclude= --strip-components= --transform|--xform= --owner= --group= --mode= --mtime= --sort= -b|--blocking-factor=',
    '-H|--format= --warning= -N|--newer|--after-date= --newer-mtime= --level= -V|--label= --suffix= --exclude-tag=',
    '--exclude-tag-all= --exclude-tag-under= --quoting-style= --hole-detection= --record-size=',
    '-K|--starting-file= --checkpoint=? --backup=? --occurrence=? --one-top-level=? -X|--exclude-from=read --files-from|-T=lread',
    '-g|--listed-incremental=write --index-file=write --volno-file=write --to-command=exec --checkpoint-action=exec',
    '--use-compress-program|-I=exec --rsh-command=exec --rmt-command=exec --info-script|-F|--new-volume-script=exec',
  ),
  check: (p, _c, ctx) => {
    const modes = TAR_MODES.filter((m) => p.opts.has(m));
    if (modes.length !== 1)
      return ASK(`tar needs exactly one of -c, -x, -t, -r, -u, -A, -d (found ${modes.join(' ') || 'none'})`, 'command:unknown-option:tar');
    const mode = modes[0];
    const creates = ['-c', '-r', '-u', '-A', '--delete'].includes(mode);
    const extracts = mode === '-x' && !p.opts.has('-O');
    const ds: PolicyDecision[] = [];
    for (const f of p.values.get('-f') ?? []) {
      // A name with a colon before any slash is a remote archive, reached over rsh/ssh.
      if (/^[^/]*:/.test(f.text) && !p.opts.has('--force-local'))
        ds.push(DENY(`tar -f ${f.text} names a remote archive (host:file), which tar reaches over the network`, 'command:network:tar'));
      else if (f.text !== '-') ds.push(ctx.checkPath(f, creates ? 'write' : 'read'));
    }
    const dirs = p.values.get('-C') ?? [];
    if (dirs.length > 1) ds.push(unverifiable('tar', 'tar changes folder more than once (-C), so which files it touches cannot be checked in advance'));
    for (const d of dirs) ds.push(ctx.checkPath(d, extracts ? 'write' : 'read'));
    // Names given to tar are relative to its -C folder.
    const under = (w: Word) => (dirs.length === 1 && !w.text.startsWith('/') ? word(w, `${dirs[0].text.replace(/\/+$/, '')}/${w.text}`) : w);
    if (creates && mode !== '--delete' && mode !== '-A') {
      for (const w of p.operands) ds.push(ctx.checkPath(under(w), 'read'), ctx.checkRecursive(under(w)));
      if (p.opts.has('--remove-files')) for (const w of p.operands) ds.push(ctx.checkPath(under(w), 'write'), ctx.checkTree(under(w), 'removing'));
    }
    if (extracts)
      ds.push(
        unverifiable('tar-extract', 'tar -x writes the files the archive names, and where it says; devx cannot see them in advance (tar -tf lists them)'),
      );
    return allOf(ds);
  },
  base: (p) => (p.opts.has('-t') || p.opts.has('-d') || (p.opts.has('-x') && p.opts.has('-O')) ? null : ASK('tar writes files', 'command:write:tar')),
};

export function tarRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  return evaluate(tarModel, { ...c, args: tarOldStyle(c.args) }, ctx);
}
