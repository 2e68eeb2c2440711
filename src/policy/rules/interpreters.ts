// Interpreters (node, python, perl, ...): inline code and a program from stdin are denied, a script from
// the project asks, and python's code-running and serving modules are denied. Shells share scriptOf.
import type { Word } from '../shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PolicyDecision } from '../types.js';
import { words, type RuleContext, type SimpleCommand } from './kit.js';

const base = (name: string) => name.split('/').pop()!;

/** Each interpreter's options that take code on the line (or load code from outside the script). */
export const INTERPRETERS: Record<string, string[]> = {
  node: words(`
-e --eval -p --print -r --require --import --loader --experimental-loader -i --interactive --inspect --inspect-brk
--inspect-port --inspect-wait
`),
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

/** Standard modules that run code from their arguments or stdin (a REPL, a debugger, timeit's statements). */
const PY_CODE_MODULES = /^(code|pdb|timeit|asyncio|idlelib(\..*)?|IPython|ipython|bpython|ptpython|turtledemo)$/;
/** Standard modules that serve, connect or open a browser. */
const PY_NET_MODULES = /^(http\.server|smtpd|xmlrpc\.server|webbrowser|ftplib|smtplib|telnetlib|nntplib|poplib|imaplib|wsgiref\.simple_server|antigravity)$/;

export function interpreterRule(c: SimpleCommand, ctx: RuleContext): PolicyDecision | null {
  const name = base(c.name);
  const inline = INTERPRETERS[name] ?? (/^python3(\.\d+)?$/.test(name) ? INTERPRETERS.python : undefined);
  if (!inline) return null;
  const a = c.args.map((w) => w.text);
  if (a.length === 1 && (a[0] === '--version' || a[0] === '-v' || a[0] === '-V')) return ALLOW(`${name} --version`, `command:read-only:${name}-version`);
  // An inline-code option: as a word, as `--opt=code`, or as `-ccode` (the code attached).
  const inlineCode = (x: string) =>
    inline.includes(x) || inline.some((o) => o.startsWith('--') && x.startsWith(`${o}=`)) || (/^-[a-zA-Z]./.test(x) && inline.includes(x.slice(0, 2)));
  if (a.some(inlineCode)) return DENY(`${name} with inline code (${inline.join(', ')}) runs arbitrary code`, 'command:inline-interpreter');
  if (/^python/.test(name) && a[0] === '-m' && a[1] === 'pip') return ASK('pip changes installed packages', 'command:package-install');
  const mod = /^python/.test(name) ? a[a.indexOf('-m') + 1] : undefined;
  if (mod && a.includes('-m')) {
    if (PY_CODE_MODULES.test(mod)) return DENY(`python -m ${mod} runs code given on the line or read from stdin`, 'command:inline-interpreter');
    if (PY_NET_MODULES.test(mod) || (mod === 'pydoc' && a.some((x) => /^-[pbn]/.test(x))))
      return DENY(`python -m ${mod} opens a server, a connection or a browser`, 'command:network');
  }
  const family = /^python/.test(name) ? 'python' : name === 'nodejs' ? 'node' : name;
  const module = /^python/.test(name) && a.includes('-m');
  const script = module ? null : scriptOf(c.args, INTERPRETER_VALUE_OPTS[family] ?? []);
  if (!module && (!script || readsStdin(script.text)))
    return DENY(`${name} without a script file reads its program from stdin (or runs interactively)`, 'command:inline-interpreter');
  const paths = script ? ctx.checkPath(script, 'read') : ALLOW('', '');
  return strictest(ASK(`${name} runs a program from the project`, `command:run-script:${name}`), paths);
}

/** Options of interpreters and shells that take the next word as their value (so it is not the script). */
export const INTERPRETER_VALUE_OPTS: Record<string, string[]> = {
  python: ['-W', '-X', '-Q', '--check-hash-based-pycs'],
  node: ['-C', '--conditions', '--title', '--input-type', '--env-file', '--disable-warning', '--stack-trace-limit', '--inspect-port', '--watch-path'],
  ruby: ['-I', '-r', '-C', '-E', '-K', '-F'],
  php: ['-d', '-c', '-z', '-t', '-S'],
  lua: ['-l'],
  shell: ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'],
};

/** The script an interpreter or shell runs: the first word that is neither an option nor an option's value. */
export function scriptOf(args: Word[], valueOpts: string[]): Word | null {
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') return args[i + 1] ?? null;
    if (t === '-' || !/^[-+]./.test(t)) return args[i];
    if (t === '-f' && args[i + 1]) return args[i + 1]; // php -f FILE
    if (valueOpts.includes(t)) i++;
  }
  return null;
}

/** `-`, /dev/stdin and descriptor paths: the program comes from stdin. */
export const readsStdin = (p: string) => p === '-' || /^\/dev\/(stdin|fd\/)|^\/proc\/[^/]+\/fd\//.test(p);
