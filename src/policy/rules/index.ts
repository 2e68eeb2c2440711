// The registry of command rules: one entry per command name. Commands devx runs without asking have
// a complete argument model (kit.ts) in a file of their family; adding a command is one new model and
// one line in MODELS below. Commands outside the registry fall through to the deny lists, wrappers,
// interpreters and writers here, and unknown commands ask (headless: deny).
import { literalWord, type Word } from '../shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from '../types.js';
import type { PathIntent } from '../pathPolicy.js';
import { evaluate, words, type Model, type RuleContext, type SimpleCommand } from './kit.js';
import { READERS } from './coreutils-readers.js';
import { ag, grep, rg } from './grep.js';
import { fd, findRule } from './find.js';
import { sed } from './sed.js';
import { awk } from './awk.js';
import { gitRule } from './git.js';
import { decideTestExpression } from './testExpr.js';
import { testRunnerRule, PACKAGE_MANAGERS, packageManagerRule } from './testRunners.js';
import { WRITER_RULES } from './writers.js';
import { INTERPRETERS, INTERPRETER_VALUE_OPTS, interpreterRule, readsStdin, scriptOf } from './interpreters.js';

export type { RuleContext, SimpleCommand };

type Rule = (cmd: SimpleCommand, ctx: RuleContext) => PolicyDecision;

/** Programs that open the network. Among them cloud and forge clients reach their service with the credentials in the home folder
 * (and print them: `aws configure get`); database clients reach a server, and each has a shell escape (psql and mysql: \\! cmd). */
const NETWORK = words(`
curl wget nc ncat netcat socat ssh scp sftp rsync ftp tftp telnet ping ping6 dig nslookup host traceroute tracepath mtr whois aria2c http
https lynx links w3m nmap openssl gh ngrok tailscale psql mysql mariadb mongo mongosh redis-cli sqlcmd cqlsh clickhouse-client aws gcloud
gsutil bq az doctl heroku flyctl fly vercel netlify firebase oci ibmcloud hcloud linode-cli scw glab hub helm eksctl s3cmd rclone
`);
/** Secret stores and key agents: what they print is the credentials the path policy keeps the model from reading. */
const CREDENTIALS = words(`
gpg gpg2 gpg-agent gpgconf pass gopass op bw lpass keepassxc-cli vault secret-tool security keyctl ssh-add ssh-agent ssh-keygen kinit klist
pinentry
`);
const PRIVILEGE = ['sudo', 'su', 'doas', 'pkexec', 'runuser', 'chroot', 'unshare', 'nsenter', 'setpriv', 'capsh', 'setcap'];
const DESTRUCTIVE = words(`
mkfs mke2fs dd shutdown reboot halt poweroff init telinit mount umount fdisk sfdisk parted wipefs shred iptables ip6tables nft systemctl
service crontab at batch useradd userdel usermod passwd chpasswd groupadd visudo modprobe insmod rmmod sysctl swapoff kill pkill killall
systemd-run daemonize start-stop-daemon launchctl apt apt-get dpkg yum dnf pacman brew snap docker podman kubectl
`);
const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'busybox'];
const ENV_DUMPS = ['printenv', 'set', 'export', 'declare', 'typeset', 'compgen'];
const SHELL_BUILTINS_DENY = ['eval', 'exec', 'source', '.', 'builtin', 'enable', 'trap', 'alias', 'ulimit', 'history', 'fc'];
/** Writers judged by their paths alone; the others (mv, cp, tar, ...) have rules of their own in writers.ts. */
const WRITERS = ['rmdir', 'mkdir', 'touch', 'chmod', 'chown', 'chgrp', 'truncate', 'tee'];
/** Commands whose every argument is data: nothing they are given is a path, a program or an option with an effect. */
const DATA_ONLY = new Set(['echo', 'true', 'false', 'test', '[', 'expr', ':']);
/** Editors run commands (vim -c ':!id', +cmd, -S script, ex mode reading its commands from stdin), and nobody
 * is at the keyboard to use one: they ask in the class yolo refuses; their command options are denied. */
const EDITORS = ['vi', 'vim', 'nvim', 'view', 'vimdiff', 'gvim', 'ex', 'ed', 'red', 'nano', 'pico', 'micro', 'joe', 'kak', 'hx', 'mg', 'jed', 'ne', 'emacs'];
const EDITOR = {
  why: 'editors run commands (vim -c, :!, ed and ex read commands from stdin), and nobody is at the keyboard; use edit_file',
  exec: /^(-c|--cmd|-S|-s|-u|-U|--remote.*|-e|-E|-es|-Es|-y)$|^\+(?!\d*$)/,
  unverifiable: true,
};
/** Interpreters, pagers and editors: they can run anything, so they are never run without asking; their
 * program-running options are denied. */
const ASK_ONLY: Record<string, { why: string; exec?: RegExp; unverifiable?: boolean }> = {
  less: { why: 'less is an interactive pager (it can run commands with !)', exec: /^(-k|--lesskey-file|--lesskey-src)/ },
  more: { why: 'more is an interactive pager (it can run commands with !)' },
  most: { why: 'most is an interactive pager' },
  man: {
    why: 'man runs a pager and preprocessors',
    exec: /^(--html|-H|--pager|-P|--preprocessor|-p|--config-file|-C|--gxditview|-X|--troff-device|-T|--ditroff|-Z|--local-file|-l)/,
  },
  ...Object.fromEntries(EDITORS.map((e) => [e, EDITOR])),
  emacs: { ...EDITOR, exec: /^(--?eval|-l|--load|-f|--funcall|--?batch|--script|-x|-L|--directory|--execute)/ },
  // ack reads a project .ackrc, whose options run Perl (--output) or a pager; ugrep's config and --filter run commands.
  ...Object.fromEntries(
    ['ack', 'ack-grep', 'ugrep', 'ug'].map((n) => [
      n,
      {
        why: `${n} takes options from a config file in the project, which can run programs`,
        exec: /^--(pager|output|filter|ackrc|config)/,
        unverifiable: true,
      },
    ]),
  ),
  ...Object.fromEntries(
    ['sqlite3', 'sqlite', 'duckdb'].map((d) => [
      d,
      { why: `${d} runs SQL and dot-commands that read and write any file (.shell, writefile(), ATTACH, COPY) and load extensions`, unverifiable: true },
    ]),
  ),
  ps: { why: "ps shows other processes' command lines" },
  lsof: { why: "lsof shows other processes' files" },
  coproc: { why: 'coproc runs a command in the background', exec: /./ },
  script: { why: 'script runs a shell', exec: /^(-c|--command)/ },
  tmux: { why: 'tmux runs a shell', exec: /./ },
  screen: { why: 'screen runs a shell', exec: /./ },
  expect: { why: 'expect runs scripts', exec: /^-c/ },
};

/** Commands devx runs without asking: each has a complete argument model (see kit.ts). */
export const MODELS: Record<string, Model> = {
  ...READERS,
  grep,
  egrep: { ...grep, id: 'egrep' },
  fgrep: { ...grep, id: 'fgrep' },
  rg,
  ag,
  fd,
  fdfind: { ...fd, id: 'fdfind' },
  sed,
};

const lit = (cmd: SimpleCommand) => [cmd.name, ...cmd.args.map((a) => a.text)];
const base = (name: string) => name.split('/').pop()!;
/** True when any argument is one of `names`: exact, `--long=value`, or a letter in a short cluster (-xvf). */
const hasOpt = (args: Word[], names: string[]) =>
  args.some((a) =>
    names.some((n) => {
      if (a.text === n) return true;
      if (n.startsWith('--')) return a.text.startsWith(`${n}=`);
      return /^-[a-zA-Z]$/.test(n) && /^-[a-zA-Z]{2,}$/.test(a.text) && a.text.includes(n[1]);
    }),
  );

/** Path-checks every non-option argument (values after `=` in long options too). */
function checkPathArgs(args: Word[], intent: PathIntent, ctx: RuleContext, skipFirst = false): PolicyDecision {
  let d = ALLOW('no paths outside the project', 'command:paths');
  let skipped = !skipFirst;
  let afterDashDash = false;
  for (const a of args) {
    if (!afterDashDash && a.text === '--') {
      afterDashDash = true;
      continue;
    }
    if (!afterDashDash && a.text.startsWith('-')) {
      const eq = a.text.indexOf('=');
      if (eq > 0 && eq < a.text.length - 1) d = strictest(d, ctx.checkPath({ ...a, text: a.text.slice(eq + 1) }, intent));
      continue;
    }
    if (!skipped) {
      skipped = true;
      continue;
    }
    d = strictest(d, ctx.checkPath(a, intent));
  }
  return d;
}

/** env's options, whole: anything else (-S/--split-string in any spelling splits a string into a command line devx never sees) asks. */
const ENV_FLAG = /^(-i|--ignore-environment|-0|--null|-v|--debug|-|--list-signal-handling|--(block|default|ignore)-signal(=[A-Z0-9,]*)?)$/;
const ENV_UNSET = /^(-u.+|--unset=.+)$/;
/** time's options (GNU time): -o/--output names a file it writes; anything else asks. */
const TIME_FLAG = /^(-a|--append|-p|--portability|-v|--verbose|-q|--quiet|--format=.*|--help|-V|--version)$/;

/** The options of env and time, checked whole before what they run is judged. */
function wrapperOptions(cmd: SimpleCommand, ctx: RuleContext): PolicyDecision | null {
  let d: PolicyDecision | null = null;
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i];
    const t = a.text;
    if (t === '--' || !t.startsWith('-') || (cmd.name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t))) break;
    if (cmd.name === 'env') {
      if (ENV_FLAG.test(t) || ENV_UNSET.test(t) || /^(-C.+|--chdir=.+)$/.test(t)) continue;
      if (t === '-u' || t === '--unset' || t === '-C' || t === '--chdir') {
        i++;
        continue;
      }
      if (/^(-[a-zA-Z0-9]*S|--s[a-z-]*)/.test(t))
        return DENY(`env ${t} runs a command line split from a string, which devx cannot judge in advance; write the command itself`, 'command:exec:env');
      return ASK(`env ${t} is not an option devx knows the effect of`, 'command:unknown-option:env');
    }
    if (TIME_FLAG.test(t)) continue;
    if (t === '-f' || t === '--format') {
      i++;
      continue;
    }
    const out = /^(-o|--output)$/.test(t) ? cmd.args[++i] : /^(-o.+|--output=.+)$/.test(t) ? { ...a, text: t.replace(/^(-o|--output=)/, '') } : null;
    if (!out) return ASK(`time ${t} is not an option devx knows the effect of`, 'command:unknown-option:time');
    const w = ctx.checkPath(out, 'write');
    d = strictest(d ?? w, strictest(w, ASK(`time -o writes ${out.text}`, 'command:write:time')));
  }
  return d;
}

function nestedAfterOptions(cmd: SimpleCommand, ctx: RuleContext, valueOpts: string[], extraAsk?: string): PolicyDecision {
  const opts = cmd.name === 'env' || cmd.name === 'time' ? wrapperOptions(cmd, ctx) : null;
  // An ask of the options (time -o's write) still needs what runs judged: the stricter of the two decides.
  if (opts?.decision === 'deny') return opts;
  const inner = nestedAfterOptionsOnly(cmd, ctx, valueOpts, extraAsk);
  return opts ? strictest(inner, opts) : inner;
}

function nestedAfterOptionsOnly(cmd: SimpleCommand, ctx: RuleContext, valueOpts: string[], extraAsk?: string): PolicyDecision {
  const args = [...cmd.args];
  const assignments = [...cmd.assignments];
  let cwd: Word | undefined;
  while (args.length) {
    const t = args[0].text;
    if (cmd.name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      const eq = t.indexOf('=');
      assignments.push({ name: t.slice(0, eq), value: { ...args[0], text: t.slice(eq + 1) } });
      args.shift();
      continue;
    }
    if (!t.startsWith('-') || t === '-') break;
    const opt = args.shift()!;
    if (t === '--') break;
    // env -C DIR (--chdir): the command runs there, so it is judged from there.
    if (cmd.name === 'env' && /^(-C|--chdir)(=|$)|^-C./.test(t)) {
      cwd = /^(-C|--chdir)$/.test(t) ? args.shift() : { ...opt, text: t.replace(/^(--chdir=|-C)/, '') };
      if (!cwd) return DENY('env -C without a directory', 'command:parse-error');
      continue;
    }
    if (valueOpts.includes(t) && args.length) args.shift();
  }
  if (cmd.name === 'timeout' && args.length) args.shift(); // the duration
  if (!args.length) {
    if (cmd.name === 'env') return DENY('env without a command prints the whole environment (secrets included)', 'command:env-dump');
    if (cmd.name === 'xargs') return ASK('xargs runs echo on its input', 'command:xargs');
    return ALLOW(`${cmd.name} with nothing to run`, `command:wrapper:${cmd.name}`);
  }
  if (!args[0].literal || !args[0].plain) return DENY(`the command run by ${cmd.name} is not a plain word`, 'command:non-literal-name');
  const inner = ctx.decideNested({ name: args[0].text, args: args.slice(1), assignments }, { cwd });
  return extraAsk ? strictest(inner, ASK(extraAsk, `command:unverifiable:${cmd.name}`)) : inner;
}

/** flock [options] LOCKFILE COMMAND [ARGS] runs COMMAND (judged as itself); -c runs a shell string. */
function flockRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const args = [...c.args];
  const shell = () => DENY('flock -c runs a shell command line, which cannot be checked in advance', 'command:inline-interpreter');
  while (args.length && args[0].text.startsWith('-')) {
    const t = args.shift()!.text;
    if (/^(-c|--command)(=|$)/.test(t)) return shell();
    if (t === '--') break;
    if (/^(-w|--wait|--timeout|-E|--conflict-exit-code)$/.test(t)) args.shift();
  }
  const lock = args.shift();
  if (!lock) return ASK('flock without a lock file', 'command:wrapper:flock');
  if (args[0] && /^(-c|--command)(=|$)/.test(args[0].text)) return shell();
  const lockPath = /^\d+$/.test(lock.text) ? ALLOW('a file descriptor', 'command:fd-dup') : ctx.checkPath(lock, 'write');
  if (!args.length) return strictest(ASK('flock on a file descriptor', 'command:wrapper:flock'), lockPath);
  if (!args[0].literal || !args[0].plain) return DENY('the command run by flock is not a plain word', 'command:non-literal-name');
  const inner = ctx.decideNested({ name: args[0].text, args: args.slice(1), assignments: [] });
  return strictest(strictest(inner, lockPath), ASK('flock runs a command under a lock file', 'command:wrapper:flock'));
}

const WRAPPERS: Record<string, Rule> = {
  env: (c, ctx) => nestedAfterOptions(c, ctx, ['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  xargs: (c, ctx) =>
    nestedAfterOptions(
      c,
      ctx,
      ['-n', '-I', '-i', '-P', '-d', '-L', '-s', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs'],
      'xargs builds arguments from its input, which cannot be checked in advance',
    ),
  timeout: (c, ctx) => nestedAfterOptions(c, ctx, ['-s', '--signal', '-k', '--kill-after']),
  nice: (c, ctx) => nestedAfterOptions(c, ctx, ['-n', '--adjustment']),
  ionice: (c, ctx) => nestedAfterOptions(c, ctx, ['-c', '-n', '-p']),
  time: (c, ctx) => nestedAfterOptions(c, ctx, ['-f', '-o', '--format', '--output']),
  ...Object.fromEntries(['nohup', 'chronic', 'unbuffer'].map((n) => [n, (c: SimpleCommand, ctx: RuleContext) => nestedAfterOptions(c, ctx, [])])),
  stdbuf: (c, ctx) => nestedAfterOptions(c, ctx, ['-i', '-o', '-e']),
  command: (c, ctx) => (hasOpt(c.args, ['-v', '-V']) ? ALLOW('looks up a command', 'command:read-only:command') : nestedAfterOptions(c, ctx, [])),
  // setsid takes what it runs out of the command's process group, beyond devx's reach once the command ends.
  setsid: (c, ctx) =>
    strictest(nestedAfterOptions(c, ctx, []), ASK('setsid detaches what it runs from the command, so it outlives it', 'command:unverifiable:setsid')),
  flock: flockRule,
  // watch hands its arguments to sh -c as one string (unless -x), and it is a full-screen program besides.
  watch: () => DENY('watch runs its command through sh -c, which cannot be checked in advance; run the command itself', 'command:exec:watch'),
  parallel: () =>
    DENY('GNU parallel runs its command strings through a shell, which cannot be checked in advance; run the commands themselves', 'command:exec:parallel'),
  ...Object.fromEntries(['strace', 'ltrace'].map((n) => [n, () => DENY('tracing tools can read other processes', 'command:privilege')])),
  gdb: () => DENY('debuggers can run arbitrary code', 'command:inline-interpreter'),
};

export function decideSimpleCommand(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const d = decideKnownOrAsk(c, ctx);
  if (d.decision !== 'ask' || MODELED.has(base(c.name)) || Object.hasOwn(WRITER_RULES, base(c.name))) return d;
  // A command devx has no model of asks; an argument naming a path the policy denies reading is denied, in
  // every mode, since nothing says the program does not read it (`base64 .env`, `mytool ~/.ssh/id_rsa`).
  const paths = checkPathArgs(c.args, 'read', ctx);
  if (paths.decision === 'deny') return paths;
  // Nor that it does not write a protected one (`unxz .git/hooks/pre-commit.xz`).
  const writes = checkPathArgs(c.args, 'write', ctx);
  if (writes.decision === 'deny' && (writes.path === 'protected' || writes.path === 'devx-own' || writes.source?.kind === 'settings')) return writes;
  if (d.rule !== 'command:unknown') return d;
  // A path outside the project may be where it writes (`csplit -f ../out`, `pandoc -o ../x.html`): a person
  // may approve that, no approval mode can.
  if (writes.decision === 'deny' && writes.path === 'outside') {
    return ASK(
      `${c.name} is not a known command, and an argument names a place outside the project, where it may write (${writes.reason})`,
      'command:unverifiable:outside',
    );
  }
  // An unknown program given the name of another one may run it, as env and xargs do (`taskset 1 sh -c id`):
  // a person may approve that, but no approval mode can, since what runs is not what was judged.
  const runs = c.args.find((a) => a.literal && PROGRAMS.has(base(a.text)));
  return runs
    ? ASK(
        `${c.name} is not a known command, and its argument ${runs.text} names a program it may run, which devx cannot judge there`,
        'command:unverifiable:wrapper',
      )
    : d;
}

/** Programs whose name as an argument of an unknown command suggests that command runs them. */
// Only names that are programs and rarely anything else: `terraform init` or `mytool set x` must not count.
const PROGRAMS = new Set([
  ...SHELLS,
  ...Object.keys(INTERPRETERS),
  ...words(`
python python2 pypy pypy3 sudo su doas pkexec curl wget nc ncat netcat socat ssh scp rsync telnet openssl xargs nohup setsid
stdbuf flock strace gdb eval exec source awk gawk sed npx rm dd vim vi less
`),
]);

/** Commands whose arguments the rules already judge one by one (their asks are about something else). */
const MODELED = new Set(['find', 'git', 'awk', 'gawk', 'mawk', 'nawk', 'busybox-awk', 'test', '[', '[[', ...Object.keys(MODELS)]);

function decideKnownOrAsk(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const name = base(c.name);
  const argv = lit(c);
  if (name === 'test' || name === '[') return decideTestExpression(name === '[' && c.args.at(-1)?.text === ']' ? c.args.slice(0, -1) : c.args, false);
  // `[[ ... ]]` reaches here from the walker as the command `[[` with its words (its closing ]] included).
  if (name === '[[') return decideTestExpression(c.args.at(-1)?.text === ']]' ? c.args.slice(0, -1) : c.args, true);
  if (DATA_ONLY.has(name)) return ALLOW(`${name} only prints or tests its arguments`, `command:read-only:${name}`);
  const runner = testRunnerRule(argv, ctx);
  if (runner) return runner;
  if (name === 'find') return findRule(c, ctx);
  if (name === 'awk' || name === 'gawk' || name === 'mawk' || name === 'nawk' || name === 'busybox-awk') return evaluate(awk(name), c, ctx);
  if (MODELS[name] && name === c.name) return evaluate(MODELS[name], c, ctx);
  if (ASK_ONLY[name]) {
    const spec = ASK_ONLY[name];
    if (spec.exec && c.args.some((a) => spec.exec!.test(a.text))) return DENY(`${name} with these options runs other programs`, `command:exec:${name}`);
    if (name === 'coproc') return DENY('coproc runs a command in the background, out of sight', 'command:exec:coproc');
    return ASK(spec.why, spec.unverifiable ? `command:unverifiable:${name}` : `command:pager:${name}`);
  }
  if (name === 'tsc' && argv.includes('--noEmit') && !argv.some((a) => /^(--build|-b|--watch|-w|--generateTrace|--outFile|--outDir)/.test(a))) {
    const files = c.args.filter((a) => a.text !== '--noEmit');
    return strictest(ALLOW('tsc --noEmit only type-checks', 'command:read-only:tsc'), checkPathArgs(files, 'read', ctx));
  }
  if (NETWORK.includes(name)) return DENY(`${name} reaches the network`, 'command:network');
  if (CREDENTIALS.includes(name) || name.startsWith('git-credential')) return DENY(`${name} reads or manages your credentials`, 'command:credentials');
  if (PRIVILEGE.includes(name)) return DENY(`${name} changes privileges`, 'command:privilege');
  if (DESTRUCTIVE.includes(name) || /^mkfs\./.test(name)) return DENY(`${name} is a system-level or destructive operation`, 'command:destructive');
  if (SHELLS.includes(name)) {
    const script = scriptOf(c.args, INTERPRETER_VALUE_OPTS.shell);
    if (!script || readsStdin(script.text) || c.args.some((a) => /^-[a-zA-Z]*c/.test(a.text) || a.text === '-s'))
      return DENY(`${name} -c and a shell reading stdin run arbitrary code`, 'command:inline-interpreter');
    return strictest(ASK(`${name} runs a shell script`, 'command:run-script:shell'), ctx.checkPath(script, 'read'));
  }
  if (SHELL_BUILTINS_DENY.includes(name)) return DENY(`${name} runs code that cannot be checked in advance`, 'command:inline-interpreter');
  if (ENV_DUMPS.includes(name)) {
    if (name === 'printenv' || c.args.length === 0 || c.args.some((a) => a.text === '-p'))
      return DENY(`${name} prints the environment (secrets included)`, 'command:env-dump');
    return ASK(`${name} changes the shell environment`, 'command:shell-state');
  }
  if (WRAPPERS[name]) return WRAPPERS[name](c, ctx);
  if (name === 'git') return gitRule(c, ctx);
  const interp = interpreterRule(c, ctx);
  if (interp) return interp;
  if (PACKAGE_MANAGERS.includes(name)) return packageManagerRule(c, argv, ctx);
  if (Object.hasOwn(WRITER_RULES, name)) return WRITER_RULES[name](c, ctx);
  if (WRITERS.includes(name)) {
    const modes = name === 'chmod' || name === 'chown' || name === 'chgrp';
    // chmod takes a mode that starts with '-' (`-x+rwx,a+rwx`) as the mode, not an option: it is the first operand.
    const args = name === 'chmod' ? c.args.map((a) => (/^-[rwxXst]/.test(a.text) ? { ...a, text: 'mode' } : a)) : c.args;
    let d = strictest(ASK(`${name} changes files`, `command:write:${name}`), checkPathArgs(args, 'write', ctx, modes && !hasOpt(c.args, ['--reference'])));
    // chmod -R . reaches the project's .devx and .git as well.
    if (modes && hasOpt(c.args, ['-R', '--recursive']))
      for (const a of c.args.slice(1)) if (!a.text.startsWith('-')) d = strictest(d, ctx.checkTree(a, `${name} -R on`));
    return d;
  }
  if (c.name.includes('/')) {
    return strictest(ASK(`${c.name} runs a program from a path`, 'command:run-script:path'), ctx.checkPath(literalWord(c.name), 'read'));
  }
  return ctx.headless
    ? DENY(`${name} is not a known command, and this headless run has nobody to ask`, 'command:unknown:headless')
    : ASK(`${name} is not a known command`, 'command:unknown');
}
