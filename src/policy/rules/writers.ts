// Commands that change files. They always ask (a person, or yolo, approves the change), but a write is
// judged where it lands, not only by the words that name it: a folder destination takes its sources by
// name (`mv g .git`), a copied tree keeps its file names under the new one (`cp -r stuff/. .`), a removed
// or renamed folder takes what it protects with it (`rm -r .`, `mv .git g`), and archives and diffs
// name their own targets, which nobody sees in advance (tar -x, unzip, patch, cpio).
import path from 'node:path';
import type { Word } from '../shellWords.js';
import { allOf, evaluate, options, unverifiable, word, EXEC, NOTHING_MORE, type Model, type Parsed, type RuleContext, type SimpleCommand } from './kit.js';
import { tarRule } from './tar.js';
import { ASK, DENY, strictest, type PolicyDecision } from '../types.js';

/** Sources and destination of cp/mv/ln/install: `-t DIR` takes every operand as a source. */
function placement(p: Parsed, ctx: RuleContext, opts: { parents?: boolean; moves?: boolean } = {}): PolicyDecision {
  const target = p.values.get('-t')?.at(-1);
  const noTarget = p.opts.has('-T');
  if (target) return ctx.checkPlacement(p.operands, target, { ...opts, into: 'always' });
  if (p.operands.length === 1) return ctx.checkPlacement(p.operands, word(p.operands[0], '.'), { ...opts, into: 'always' });
  if (p.operands.length < 2) return NOTHING_MORE;
  return ctx.checkPlacement(p.operands.slice(0, -1), p.operands[p.operands.length - 1], { ...opts, into: noTarget ? 'never' : 'auto' });
}

/** Operands of cp/mv/install: with `-t DIR` all are sources; otherwise the last is the destination. */
function sourcesAndDest(ops: Word[], p: Parsed): { sources: Word[]; dest: Word[] } {
  return p.values.get('-t') ? { sources: ops, dest: [] } : { sources: ops.slice(0, -1), dest: ops.slice(-1) };
}

/** A backup suffix is part of a file name: one with a slash puts the backup somewhere else entirely. */
function suffixCheck(p: Parsed, id: string): PolicyDecision {
  const s = p.values.get('-S')?.at(-1);
  return s && s.text.includes('/') ? unverifiable(id, `${id} --suffix ${s.text} puts backups in another folder`) : NOTHING_MORE;
}

const COMMON_MOVE = options(
  '-b --backup=? -f|--force -i|--interactive -n|--no-clobber -S|--suffix= -t|--target-directory=write',
  '-T|--no-target-directory -u --update=? -v|--verbose --strip-trailing-slashes -Z --context=? --debug',
);

const rm: Model = {
  id: 'rm',
  opts: options('-[fiId] --force --one-file-system --dir -r|-R|--recursive -v|--verbose --interactive=? --preserve-root=? --no-preserve-root:system'),
  operands: 'write',
  check: (p, _c, ctx) => (p.opts.has('-r') ? allOf(p.operands.map((w) => ctx.checkTree(w, 'removing'))) : null),
  base: () => ASK('rm deletes files', 'command:write:rm'),
};

const mv: Model = {
  id: 'mv',
  opts: { ...COMMON_MOVE, '--no-copy': {} },
  operands: 'write',
  check: (p, _c, ctx) => {
    const { sources } = sourcesAndDest(p.operands, p);
    return allOf([placement(p, ctx, { moves: true }), ...sources.map((w) => ctx.checkTree(w, 'moving')), suffixCheck(p, 'mv')]);
  },
  base: () => ASK('mv moves files', 'command:write:mv'),
};

const cp: Model = {
  id: 'cp',
  opts: {
    ...COMMON_MOVE,
    ...options(
      '-a|--archive -r|-R|--recursive --attributes-only --copy-contents -d -H -l|--link -L|--dereference -P|--no-dereference -p --preserve=? --no-preserve= --parents --reflink=? --remove-destination --sparse= -s|--symbolic-link -x|--one-file-system --keep-directory-symlink',
    ),
  },
  operands: (ops, p) => {
    const recursive = p.opts.has('-r') || p.opts.has('-a');
    const { sources, dest } = sourcesAndDest(ops, p);
    // A folder copied whole is read whole: the denied files inside it would be copied under readable names.
    return [
      ...sources.map((word) => ({ word, effect: recursive ? ('rread' as const) : ('read' as const) })),
      ...dest.map((word) => ({ word, effect: 'write' as const })),
    ];
  },
  check: (p, _c, ctx) => allOf([placement(p, ctx, { parents: p.opts.has('--parents') }), suffixCheck(p, 'cp')]),
  base: () => ASK('cp copies files', 'command:write:cp'),
};

const ln: Model = {
  id: 'ln',
  opts: {
    ...COMMON_MOVE,
    ...options('-d|-F|--directory -L|--logical -n|--no-dereference -P|--physical -r|--relative -s|--symbolic'),
  },
  operands: 'write',
  check: (p, _c, ctx) => allOf([placement(p, ctx), suffixCheck(p, 'ln'), symbolicTargets(p, ctx)]),
  base: () => ASK('ln makes links', 'command:write:ln'),
};

/**
 * A symbolic link's relative target is resolved from the link's folder, not the shell's: `cd a/b && ln -s ..
 * ../../q` makes q lead above the project. Each target is judged as a read from there (from both the destination's
 * folder and the destination itself, which may be a folder the link goes into).
 */
function symbolicTargets(p: Parsed, ctx: RuleContext): PolicyDecision {
  if (!p.opts.has('-s')) return NOTHING_MORE;
  const into = p.values.get('-t')?.at(-1);
  const targets = into || p.operands.length === 1 ? p.operands : p.operands.slice(0, -1);
  const dest = into ?? (p.operands.length > 1 ? p.operands[p.operands.length - 1] : undefined);
  const folders = dest ? [dest.text, path.posix.dirname(dest.text)] : ['.'];
  const ds = targets.flatMap((t) =>
    t.text.startsWith('/') ? [ctx.checkPath(t, 'read')] : folders.map((f) => ctx.checkPath(word(t, path.posix.join(f, t.text)), 'read')),
  );
  return ds.length ? allOf(ds) : NOTHING_MORE;
}

const install: Model = {
  id: 'install',
  opts: {
    ...COMMON_MOVE,
    ...options(
      '-c -C|--compare -d|--directory -D -g|--group= -m|--mode= -o|--owner= -p|--preserve-timestamps -s|--strip --strip-program=exec --preserve-context',
    ),
  },
  operands: (ops, p) => {
    if (p.opts.has('-d')) return ops.map((word) => ({ word, effect: 'write' as const }));
    const { sources, dest } = sourcesAndDest(ops, p);
    return [...sources.map((word) => ({ word, effect: 'read' as const })), ...dest.map((word) => ({ word, effect: 'write' as const }))];
  },
  check: (p, _c, ctx) => (p.opts.has('-d') ? null : allOf([placement(p, ctx), suffixCheck(p, 'install')])),
  base: () => ASK('install copies files', 'command:write:install'),
};

const split: Model = {
  id: 'split',
  opts: {
    ...options(
      '-a|--suffix-length= --additional-suffix= -b|--bytes= -C|--line-bytes= -l|--lines= -n|--number= -t|--separator=',
      '-d --numeric-suffixes=? -x --hex-suffixes=? -e|--elide-empty-files -u|--unbuffered --verbose',
    ),
    '--filter': { ...EXEC, why: '--filter (a shell command for each piece)' },
  },
  // The output files are the prefix plus a suffix: `aa` stands for them all.
  operands: (ops, p) => [
    ...ops.slice(0, 1).map((word) => ({ word, effect: 'read' as const })),
    ...ops
      .slice(1, 2)
      .map((w) => ({ word: word(w, `${w.text}aa${p.values.get('--additional-suffix')?.at(-1)?.text ?? ''}`), effect: 'write' as const, why: 'output prefix' })),
  ],
  base: (p) => {
    if (p.operands.length > 2) return ASK('split takes at most an input and a prefix', 'command:unknown-option:split');
    // The suffixes run through the alphabet: a prefix `.e` reaches `.env` at the suffix `nv`.
    if (/(^|\/)\.[^/]*$/.test(p.operands[1]?.text ?? ''))
      return unverifiable('split', `split's output names start with ${p.operands[1].text}, and with their suffixes they can spell a protected name`);
    return ASK('split writes files', 'command:write:split');
  },
};

/** Short-option clusters of zip/unzip (`-rq`), long options aside. */
const clusters = (args: Word[]) => args.filter((a) => /^-[A-Za-z0-9@$:^]+$/.test(a.text)).map((a) => a.text.slice(1));

/** The operands of zip, unzip and patch. Options are skipped: a `valued` one with the word after it (given to `value`),
 * `patterns` with the words up to the next option (they are matched against names, not opened). */
function operandsOf(args: Word[], o: { valued: RegExp; patterns?: RegExp; value?: (opt: string, w: Word) => void }): Word[] {
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    const eq = /^--[^=]+=/.exec(t);
    if (eq && o.valued.test(eq[0].slice(0, -1))) {
      // `--output-file=x`: the option and its value in one word.
      o.value?.(eq[0].slice(0, -1), { ...args[i], text: t.slice(eq[0].length) });
    } else if (o.patterns?.test(t)) {
      while (i + 1 < args.length && !args[i + 1].text.startsWith('-')) i++;
    } else if (o.valued.test(t) && args[i + 1]) {
      const value = args[++i];
      o.value?.(t, value);
    } else if (!t.startsWith('-') || t === '-') operands.push(args[i]);
  }
  return operands;
}

/** zip's options that take a value (the next word, or after `=` for a long one). */
const ZIP_VALUED =
  /^(-b|--temp-path|-O|--output-file|-lf|--logfile-path|-n|--suffixes|-t|-tt|--from-date|--before-date|-P|--password|-s|--split-size|-Z|--compression-method|-sp?|-ds|--dot-size)$/;

function zipRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const ds: PolicyDecision[] = [ASK('zip writes an archive', 'command:write:zip')];
  const args = c.args;
  if (args.some((a) => /^(-TT|--unzip-command)(=|$)/.test(a.text)))
    return DENY('zip -TT (--unzip-command) runs another program, which cannot be checked in advance', 'command:exec:zip');
  if (args.some((a) => a.text === '-@' || a.text === '--names-stdin'))
    ds.push(unverifiable('zip', 'zip -@ takes the file names from stdin, which cannot be checked in advance'));
  const cs = clusters(args);
  const recursive = cs.some((x) => /[rR]/.test(x)) || args.some((a) => /^--recurse-(paths|patterns)$/.test(a.text));
  const moves = cs.some((x) => x.includes('m')) || args.some((a) => a.text === '--move');
  const [archive, ...sources] = operandsOf(args, {
    patterns: /^(-x|-i|--exclude|--include)$/,
    valued: ZIP_VALUED,
    value: (t, w) => /^(-b|--temp-path|-O|--output-file|-lf|--logfile-path)$/.test(t) && ds.push(ctx.checkPath(w, 'write')),
  });
  // A long option with a value in one word that the model does not name may name a file: unknown, a person's.
  const unknown = args.find((a) => /^--[^=]+=/.test(a.text) && !ZIP_VALUED.test(a.text.slice(0, a.text.indexOf('='))));
  if (unknown) ds.push(unverifiable('zip', `zip ${unknown.text} is an option devx does not model`));
  if (archive && archive.text !== '-') ds.push(ctx.checkPath(archive, 'write'));
  for (const s of sources) {
    ds.push(ctx.checkPath(s, 'read'));
    if (recursive) ds.push(ctx.checkRecursive(s));
    if (moves) ds.push(ctx.checkPath(s, 'write'), ctx.checkTree(s, 'moving into the archive'));
  }
  return allOf(ds);
}

function unzipRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args = c.args;
  const cs = clusters(args);
  const ds: PolicyDecision[] = [];
  const listsOnly = cs.some((x) => /[ltpczZ]/.test(x)) || (cs.length === 1 && cs[0] === 'v');
  // The archive, then names of its members (not files on disk).
  const operands = operandsOf(args, { patterns: /^-x$/, valued: /^(-d|-P)$/, value: (t, w) => t === '-d' && ds.push(ctx.checkPath(w, 'write')) });
  const archive = operands.find((w) => w.text !== '-');
  if (archive) ds.push(ctx.checkPath(archive, 'read'));
  if (!listsOnly) ds.push(unverifiable('unzip', 'unzip writes the files the archive names; devx cannot see them in advance (unzip -l lists them)'));
  return allOf(ds);
}

/** The options of gzip and kin devx models: what they do to the files named, never which files. */
const COMPRESS_OPTION =
  /^(-[cdkfqvtlnrz1-9]+|-T\d*|--(stdout|to-stdout|decompress|uncompress|compress|keep|force|quiet|verbose|test|list|recursive|fast|best|no-name|rm|sparse|no-sparse|rsyncable|long(=\d+)?|ultra|threads=\d+|no-progress|single-thread|[0-9]))$/;

/** gzip and kin replace each file with its compressed form (or print it with -c); -r does so for a whole tree. */
function compressRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args = c.args;
  const cs = clusters(args.filter((a) => !a.text.startsWith('--')));
  const toStdout = cs.some((x) => x.includes('c')) || args.some((a) => a.text === '--stdout' || a.text === '--to-stdout');
  const recursive = cs.some((x) => x.includes('r')) || args.some((a) => a.text === '--recursive');
  const ds: PolicyDecision[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === '-S' || t === '--suffix') {
      const s = args[++i];
      if (s?.text.includes('/')) ds.push(unverifiable(c.name, `${c.name} --suffix ${s.text} names files in another folder`));
      continue;
    }
    if (t === '-o') {
      // zstd, lz4 and brotli: the output file.
      if (args[i + 1]) ds.push(ctx.checkPath(args[++i], 'write'));
      continue;
    }
    if (t.startsWith('-') && t !== '-') {
      // Only the options that change how, not what: a file list (--filelist, --files), an output folder, a name the
      // archive carries (-N restores one devx never sees) are the model's blind spots, so a person's.
      if (!COMPRESS_OPTION.test(t)) ds.push(unverifiable(c.name, `${c.name} ${t} is an option devx does not model`));
      continue;
    }
    ds.push(ctx.checkPath(args[i], toStdout ? 'read' : 'write'));
    if (recursive) ds.push(ctx.checkRecursive(args[i]));
    if (recursive && !toStdout) ds.push(ctx.checkTree(args[i], `${c.name} -r rewrites every file in`));
  }
  return strictest(toStdout ? ASK(`${c.name} prints files`, `command:write:${c.name}`) : ASK(`${c.name} replaces files`, `command:write:${c.name}`), allOf(ds));
}

function patchRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const dry = c.args.some((a) => a.text === '--dry-run' || a.text === '-C' || a.text === '--check');
  const valued =
    /^(-p|-F|--fuzz|-V|--version-control|-z|--suffix|-B|--prefix|-Y|--basename-prefix|-g|--get|--quoting-style|-D|--ifdef|-o|--output|-r|--reject-file|-i|--input|-d|--directory)$/;
  const named: PolicyDecision[] = [];
  // -o/--output and -r/--reject-file are written (a dry run writes -o too), -i/--input read, -d moves where it works.
  const value = (t: string, w: Word) => {
    if (/^(-o|--output|-r|--reject-file)$/.test(t)) named.push(ctx.checkPath(w, 'write'));
    else if (/^(-i|--input)$/.test(t)) named.push(ctx.checkPath(w, 'read'));
    else if (/^(-d|--directory)$/.test(t)) named.push(unverifiable('patch', `patch ${t} ${w.text} works in another folder`));
  };
  // -oFILE, -rFILE, -iFILE in one word.
  for (const a of c.args) {
    const m = /^-([ori])(.+)$/.exec(a.text);
    if (m) value(`-${m[1]}`, { ...a, text: m[2] });
  }
  const files = operandsOf(c.args, { valued, value }).filter((w) => w.text !== '-');
  const paths = allOf([...named, ...files.map((w) => ctx.checkPath(w, 'write'))]);
  const why = dry
    ? ASK('patch checks a diff', 'command:write:patch')
    : unverifiable('patch', 'patch changes the files its diff names, which devx cannot see in advance');
  return strictest(why, paths);
}

/** 7z, ar, rar, jar and unar: an archive is read by its listing command, and anything else (extracting, adding,
 * updating) writes what the archive or a whole tree names. */
const LISTS: Record<string, RegExp> = { '7z': /^[lt]$/, ar: /^-?[tv]*t[tv]*$/, unrar: /^(l[tbv]*|v[tb]*|t)$/, rar: /^(l[tbv]*|v[tb]*|t)$/, jar: /^-?t[vf]*$/ };
function archiveRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const name = /^7z/.test(c.name) ? '7z' : c.name;
  const words = c.args.filter((a) => !a.text.startsWith('-') || (name === 'ar' || name === 'jar' ? /^-[a-z]+$/.test(a.text) : false));
  const key = words[0]?.text ?? '';
  const list = LISTS[name];
  const reads = allOf(
    c.args
      .filter((a) => !a.text.startsWith('-'))
      .slice(1)
      .map((a) => ctx.checkPath(a, 'read')),
  );
  if (list && list.test(key)) return strictest(ASK(`${c.name} lists an archive`, `command:write:${name}`), reads);
  return strictest(unverifiable(name, `${c.name} ${key} writes what the archive or the tree names, which devx cannot see in advance (list it first)`), reads);
}

/** Writers by name: each a rule (a kit model evaluated, or a function). */
export const WRITER_RULES: Record<string, (c: SimpleCommand, ctx: RuleContext) => PolicyDecision> = {
  ...Object.fromEntries([rm, mv, cp, ln, install, split].map((m) => [m.id, (c: SimpleCommand, ctx: RuleContext) => evaluate(m, c, ctx)])),
  tar: tarRule,
  zip: zipRule,
  unzip: unzipRule,
  ...Object.fromEntries(
    ['gzip', 'gunzip', 'pigz', 'unpigz', 'xz', 'unxz', 'lzma', 'unlzma', 'bzip2', 'bunzip2', 'lz4', 'unlz4', 'zstd', 'unzstd', 'lzip', 'brotli'].map((n) => [
      n,
      compressRule,
    ]),
  ),
  ...Object.fromEntries(['7z', '7za', '7zr', 'ar', 'rar', 'unrar', 'jar', 'unar'].map((n) => [n, archiveRule])),
  bsdtar: tarRule,
  patch: patchRule,
  cpio: () => unverifiable('cpio', 'cpio takes file names from stdin, or writes what an archive names; neither can be checked in advance'),
};
