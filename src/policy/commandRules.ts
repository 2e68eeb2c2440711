// Default rules for one simple command (name + arguments), after parsing. Unknown commands ask
// when a person is there and are denied in headless runs.
import type { Word } from './shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from './types.js';
import type { PathIntent } from './pathPolicy.js';
import { gitRule } from './gitRule.js';

export interface SimpleCommand {
  /** The command name as written (a plain literal word). */
  name: string;
  args: Word[];
  assignments: { name: string; value: Word }[];
}

export interface RuleContext {
  headless: boolean;
  /** True when allowed commands run inside the bubblewrap sandbox. */
  sandboxed: boolean;
  checkPath(word: Word, intent: PathIntent): PolicyDecision;
  /** Decides a nested command line (for wrappers such as env, xargs, timeout). */
  decideNested(cmd: SimpleCommand): PolicyDecision;
}

type Rule = (cmd: SimpleCommand, ctx: RuleContext) => PolicyDecision;

const NETWORK = ['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync', 'ftp', 'tftp', 'telnet', 'ping', 'ping6', 'dig', 'nslookup', 'host', 'traceroute', 'tracepath', 'mtr', 'whois', 'aria2c', 'http', 'https', 'lynx', 'links', 'w3m', 'nmap', 'openssl', 'gh', 'ngrok', 'tailscale'];
const PRIVILEGE = ['sudo', 'su', 'doas', 'pkexec', 'runuser', 'chroot', 'unshare', 'nsenter', 'setpriv', 'capsh', 'setcap'];
const DESTRUCTIVE = ['mkfs', 'mke2fs', 'dd', 'shutdown', 'reboot', 'halt', 'poweroff', 'init', 'telinit', 'mount', 'umount', 'fdisk', 'sfdisk', 'parted', 'wipefs', 'shred', 'iptables', 'ip6tables', 'nft', 'systemctl', 'service', 'crontab', 'at', 'batch', 'useradd', 'userdel', 'usermod', 'passwd', 'chpasswd', 'groupadd', 'visudo', 'modprobe', 'insmod', 'rmmod', 'sysctl', 'swapoff', 'kill', 'pkill', 'killall', 'apt', 'apt-get', 'dpkg', 'yum', 'dnf', 'pacman', 'brew', 'snap', 'docker', 'podman', 'kubectl'];
const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'busybox'];
const INTERPRETERS: Record<string, string[]> = {
  node: ['-e', '--eval', '-p', '--print', '-r', '--require', '--import', '--loader', '--experimental-loader', '-i', '--interactive'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  deno: ['eval', 'repl'],
  bun: ['-e', '--eval', 'x'],
  python: ['-c'],
  python3: ['-c'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  lua: ['-e'],
  Rscript: ['-e'],
  osascript: ['-e'],
};
const ENV_DUMPS = ['printenv', 'set', 'export', 'declare', 'typeset', 'compgen'];
const SHELL_BUILTINS_DENY = ['eval', 'exec', 'source', '.', 'builtin', 'enable', 'trap', 'alias', 'ulimit', 'history', 'fc'];
const READ_ONLY = ['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'find', 'pwd', 'echo', 'printf', 'true', 'false', 'which', 'whereis', 'type', 'file', 'stat', 'du', 'df', 'tree', 'sort', 'uniq', 'cut', 'tr', 'diff', 'cmp', 'comm', 'basename', 'dirname', 'realpath', 'readlink', 'date', 'nl', 'column', 'fold', 'rev', 'tac', 'od', 'hexdump', 'xxd', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'jq', 'yq', 'seq', 'sleep', 'uname', 'whoami', 'id', 'hostname', 'nproc', 'free', 'uptime', 'test', '[', 'expr', 'awk', 'gawk', 'mawk', 'sed', 'less', 'more', 'strings', 'ps', 'lsof'];
/** Arguments that are data, not paths. */
const NO_PATH_ARGS = new Set(['echo', 'printf', 'true', 'false', 'pwd', 'date', 'seq', 'sleep', 'uname', 'whoami', 'id', 'hostname', 'nproc', 'free', 'uptime', 'expr', 'test', '[', 'which', 'whereis', 'type', 'tr', 'ps']);
const WRITERS = ['rm', 'rmdir', 'mv', 'cp', 'mkdir', 'touch', 'ln', 'chmod', 'chown', 'chgrp', 'install', 'truncate', 'tee', 'patch', 'unzip', 'tar', 'zip', 'gzip', 'gunzip'];
const TEST_RUNNERS: ((a: string[]) => boolean)[] = [
  (a) => a[0] === 'npm' && ['test', 't', 'run', 'run-script'].includes(a[1] ?? '') && (a[1] === 'test' || a[1] === 't' || a.length >= 3),
  (a) => (a[0] === 'yarn' || a[0] === 'pnpm') && (a[1] === 'test' || (a[1] === 'run' && a.length >= 3)),
  (a) => a[0] === 'pytest' || a[0] === 'py.test',
  (a) => /^python3?$/.test(a[0]) && a[1] === '-m' && a[2] === 'pytest',
  (a) => a[0] === 'cargo' && a[1] === 'test',
  (a) => a[0] === 'go' && (a[1] === 'test' || a[1] === 'vet'),
  (a) => a[0] === 'make' && ['test', 'check'].includes(a[1] ?? ''),
];

const lit = (cmd: SimpleCommand) => [cmd.name, ...cmd.args.map((a) => a.text)];
const base = (name: string) => name.split('/').pop()!;
/** True when any argument is one of `names`: exact, `--long=value`, or a letter in a short cluster (-xvf). */
export const hasOpt = (args: Word[], names: string[]) =>
  args.some((a) =>
    names.some((n) => {
      if (a.text === n) return true;
      if (n.startsWith('--')) return a.text.startsWith(`${n}=`);
      return /^-[a-zA-Z]$/.test(n) && /^-[a-zA-Z]{2,}$/.test(a.text) && a.text.includes(n[1]);
    }),
  );

/** Path-checks every non-option argument (values after `=` in long options too). */
export function checkPathArgs(args: Word[], intent: PathIntent, ctx: RuleContext, skipFirst = false): PolicyDecision {
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
      if (eq > 0) {
        const v = a.text.slice(eq + 1);
        if (/^[~./]/.test(v) || v.includes('/')) d = strictest(d, ctx.checkPath({ ...a, text: v }, intent));
      }
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

function nestedAfterOptions(cmd: SimpleCommand, ctx: RuleContext, valueOpts: string[], extraAsk?: string): PolicyDecision {
  const args = [...cmd.args];
  const assignments = [...cmd.assignments];
  while (args.length) {
    const t = args[0].text;
    if (cmd.name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      const eq = t.indexOf('=');
      assignments.push({ name: t.slice(0, eq), value: { ...args[0], text: t.slice(eq + 1) } });
      args.shift();
      continue;
    }
    if (!t.startsWith('-') || t === '-') break;
    args.shift();
    if (t === '--') break;
    if (valueOpts.includes(t) && args.length) args.shift();
  }
  if (cmd.name === 'timeout' && args.length) args.shift(); // the duration
  if (!args.length) {
    if (cmd.name === 'env') return DENY('env without a command prints the whole environment (secrets included)', 'command:env-dump');
    if (cmd.name === 'xargs') return ASK('xargs runs echo on its input', 'command:xargs');
    return ALLOW(`${cmd.name} with nothing to run`, `command:wrapper:${cmd.name}`);
  }
  if (!args[0].literal || !args[0].plain) return DENY(`the command run by ${cmd.name} is not a plain word`, 'command:non-literal-name');
  const inner = ctx.decideNested({ name: args[0].text, args: args.slice(1), assignments });
  return extraAsk ? strictest(inner, ASK(extraAsk, `command:wrapper:${cmd.name}`)) : inner;
}

const WRAPPERS: Record<string, Rule> = {
  env: (c, ctx) => nestedAfterOptions(c, ctx, ['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  xargs: (c, ctx) => nestedAfterOptions(c, ctx, ['-n', '-I', '-i', '-P', '-d', '-L', '-s', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs'], 'xargs builds arguments from its input, which cannot be checked in advance'),
  timeout: (c, ctx) => nestedAfterOptions(c, ctx, ['-s', '--signal', '-k', '--kill-after']),
  nice: (c, ctx) => nestedAfterOptions(c, ctx, ['-n', '--adjustment']),
  ionice: (c, ctx) => nestedAfterOptions(c, ctx, ['-c', '-n', '-p']),
  time: (c, ctx) => nestedAfterOptions(c, ctx, ['-f', '-o']),
  nohup: (c, ctx) => nestedAfterOptions(c, ctx, []),
  stdbuf: (c, ctx) => nestedAfterOptions(c, ctx, ['-i', '-o', '-e']),
  command: (c, ctx) => (hasOpt(c.args, ['-v', '-V']) ? ALLOW('looks up a command', 'command:read-only:command') : nestedAfterOptions(c, ctx, [])),
  setsid: (c, ctx) => nestedAfterOptions(c, ctx, []),
  flock: (c, ctx) => ASK('flock runs a command under a lock file', 'command:wrapper:flock'),
  watch: () => ASK('watch runs a command repeatedly', 'command:wrapper:watch'),
  strace: () => DENY('tracing tools can read other processes', 'command:privilege'),
  ltrace: () => DENY('tracing tools can read other processes', 'command:privilege'),
  gdb: () => DENY('debuggers can run arbitrary code', 'command:inline-interpreter'),
};

function readOnlyRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const name = base(c.name);
  const args = c.args;
  const ok = ALLOW(`${name} only reads`, `command:read-only:${name}`);
  if (name === 'find') {
    if (hasOpt(args, ['-exec', '-execdir', '-ok', '-okdir'])) return ASK('find -exec runs another command for each file', 'command:find-exec');
    if (hasOpt(args, ['-delete'])) return ASK('find -delete removes files', 'command:find-delete');
    if (hasOpt(args, ['-fprint', '-fprint0', '-fprintf', '-fls'])) return ASK('find -fprint writes a file', 'command:find-fprint');
    const paths: Word[] = [];
    for (const a of args) {
      if (a.text.startsWith('-') || a.text === '(' || a.text === '!') break;
      paths.push(a);
    }
    return strictest(ok, checkPathArgs(paths, 'list', ctx));
  }
  if (name === 'rg' && hasOpt(args, ['--pre', '--search-zip', '-z'])) return DENY('rg --pre/--search-zip runs other programs on each file', 'command:rg-pre');
  if (name === 'sort' && hasOpt(args, ['--compress-program', '-o', '--output'])) {
    return hasOpt(args, ['--compress-program']) ? DENY('sort --compress-program runs another program', 'command:sort-compress') : ASK('sort -o writes a file', 'command:sort-output');
  }
  if (name === 'sed') {
    if (hasOpt(args, ['-i', '--in-place']) || args.some((a) => /^-[a-zA-Z]*i/.test(a.text) && !a.text.startsWith('--'))) return ASK('sed -i edits files in place', 'command:sed-in-place');
    const script = args.find((a) => !a.text.startsWith('-'));
    // sed's e and w commands run programs and write files; only plain print/substitute scripts are safe.
    if (script && !/^(\d+(,\d+|,\$)?p|\$p|\d+q|s(.)(?:(?!\3).)*\3(?:(?!\3).)*\3[gIi0-9p]*|\/[^/]*\/p)(;\s*(\d+(,\d+)?p|s(.)[^;]*))*$/.test(script.text)) {
      return ASK('this sed script may write files or run commands (e/w commands)', 'command:sed-script');
    }
    return strictest(ok, checkPathArgs(args, 'read', ctx, true));
  }
  if (name === 'awk' || name === 'gawk' || name === 'mawk') {
    const program = args.find((a) => !a.text.startsWith('-'));
    if (hasOpt(args, ['-f', '-i', '--include', '--load', '-l']) || !program || /system|getline|\||>|print\s*>|close|fflush|ENVIRON/.test(program.text)) {
      return ASK('this awk program may run commands, write files or read the environment', 'command:awk-program');
    }
    return strictest(ok, checkPathArgs(args, 'read', ctx, true));
  }
  if (name === 'less' || name === 'more') return ASK(`${name} is an interactive pager`, 'command:pager');
  if (name === 'ps' || name === 'lsof') return ASK(`${name} shows other processes' command lines`, 'command:process-list');
  if (NO_PATH_ARGS.has(name)) return ok;
  if (name === 'grep' || name === 'egrep' || name === 'fgrep' || name === 'rg') {
    const patternGiven = hasOpt(args, ['-e', '-f', '--regexp', '--file']);
    return strictest(ok, checkPathArgs(args, 'read', ctx, !patternGiven));
  }
  if (name === 'ls' || name === 'tree' || name === 'du') return strictest(ok, checkPathArgs(args, 'list', ctx));
  return strictest(ok, checkPathArgs(args, 'read', ctx));
}

function interpreterRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision | null {
  const name = base(c.name);
  const inline = INTERPRETERS[name] ?? (/^python3(\.\d+)?$/.test(name) ? INTERPRETERS.python : undefined);
  if (!inline) return null;
  const a = c.args.map((w) => w.text);
  if (a.length === 1 && (a[0] === '--version' || a[0] === '-v' || a[0] === '-V')) return ALLOW(`${name} --version`, `command:read-only:${name}-version`);
  if (a.some((x) => inline.includes(x) || inline.some((o) => o.startsWith('--') && x.startsWith(`${o}=`)) || (o1(x) && inline.includes(o1(x)!)))) {
    return DENY(`${name} with inline code (${inline.join(', ')}) runs arbitrary code`, 'command:inline-interpreter');
  }
  if (a.length === 0) return DENY(`${name} with no script reads code from stdin`, 'command:inline-interpreter');
  if (/^python/.test(name) && a[0] === '-m' && a[1] === 'pip') return ASK('pip changes installed packages', 'command:package-install');
  const script = c.args.find((w) => !w.text.startsWith('-'));
  const paths = script ? ctx.checkPath(script, 'read') : ALLOW('', '');
  return strictest(ASK(`${name} runs a program from the project`, `command:run-script:${name}`), paths);
}

/** `-cfoo` style: the option letter of a short option cluster. */
function o1(x: string): string | null {
  return /^-[a-zA-Z]./.test(x) && !x.startsWith('--') ? x.slice(0, 2) : null;
}

export function decideSimpleCommand(c: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const name = base(c.name);
  const argv = lit(c);
  if (TEST_RUNNERS.some((t) => t(argv))) {
    return ctx.sandboxed
      ? ALLOW('a test runner, run inside the bubblewrap sandbox (read-only system, no network)', 'command:test-runner:sandboxed')
      : ASK('test runners execute project code and no bubblewrap sandbox is available', 'command:test-runner:unsandboxed');
  }
  if (name === 'tsc' && argv.includes('--noEmit') && !argv.some((a) => /^(--build|-b|--watch|-w|--generateTrace|--outFile|--outDir)/.test(a))) {
    return strictest(ALLOW('tsc --noEmit only type-checks', 'command:read-only:tsc'), checkPathArgs(c.args.filter((a) => a.text !== '--noEmit'), 'read', ctx));
  }
  if (NETWORK.includes(name)) return DENY(`${name} reaches the network`, 'command:network');
  if (PRIVILEGE.includes(name)) return DENY(`${name} changes privileges`, 'command:privilege');
  if (DESTRUCTIVE.includes(name) || /^mkfs\./.test(name)) return DENY(`${name} is a system-level or destructive operation`, 'command:destructive');
  if (SHELLS.includes(name)) {
    if (c.args.length === 0 || c.args.some((a) => /^-[a-zA-Z]*c/.test(a.text) || a.text === '-s')) return DENY(`${name} -c and a shell reading stdin run arbitrary code`, 'command:inline-interpreter');
    return strictest(ASK(`${name} runs a shell script`, 'command:run-script:shell'), ctx.checkPath(c.args.find((a) => !a.text.startsWith('-'))!, 'read'));
  }
  if (SHELL_BUILTINS_DENY.includes(name)) return DENY(`${name} runs code that cannot be checked in advance`, 'command:inline-interpreter');
  if (ENV_DUMPS.includes(name)) {
    if (name === 'printenv' || c.args.length === 0 || c.args.some((a) => a.text === '-p')) return DENY(`${name} prints the environment (secrets included)`, 'command:env-dump');
    return ASK(`${name} changes the shell environment`, 'command:shell-state');
  }
  if (WRAPPERS[name]) return WRAPPERS[name](c, ctx);
  if (name === 'git') return gitRule(c, ctx);
  const interp = interpreterRule(c, ctx);
  if (interp) return interp;
  if (name === 'npm' || name === 'yarn' || name === 'pnpm' || name === 'npx' || name === 'pip' || name === 'pip3' || name === 'cargo' || name === 'go') {
    const sub = argv[1] ?? '';
    if (['--version', '-v', 'version', 'ls', 'list', 'outdated', 'why', 'view', 'info'].includes(sub) && name !== 'npx') return ALLOW(`${name} ${sub} only reads`, `command:read-only:${name}`);
    if (name === 'npm' && sub === 'config') return DENY('npm config can change registries and credentials', 'command:package-config');
    return ASK(`${name} ${sub} changes dependencies or runs code`, 'command:package-manager');
  }
  if (WRITERS.includes(name)) {
    const targets = name === 'tee' || name === 'touch' || name === 'mkdir' || name === 'rm' || name === 'rmdir' || name === 'chmod' || name === 'chown' || name === 'chgrp' || name === 'truncate'
      ? checkPathArgs(c.args, 'write', ctx, name === 'chmod' || name === 'chown' || name === 'chgrp')
      : checkPathArgs(c.args, 'write', ctx);
    return strictest(ASK(`${name} changes files`, `command:write:${name}`), targets);
  }
  if (READ_ONLY.includes(name)) return readOnlyRule(c, ctx);
  if (c.name.includes('/')) {
    const self = ctx.checkPath({ text: c.name, literal: true, glob: false, plain: true, substitutions: [], unknownKinds: [] }, 'read');
    return strictest(ASK(`${c.name} runs a program from a path`, 'command:run-script:path'), self);
  }
  return ctx.headless
    ? DENY(`${name} is not a known command, and this headless run has nobody to ask`, 'command:unknown:headless')
    : ASK(`${name} is not a known command`, 'command:unknown');
}

