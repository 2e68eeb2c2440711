// Test runners and package managers. A test runner executes project code: it is allowed only inside
// the bubblewrap sandbox (no network, no home, protected paths read-only) and asks without it. Options
// that swap in another program (npm --script-shell/--node-options, go test -exec/-toolexec, make
// --eval, yarn/pnpm --shell...) are denied in every mode; registry and config options ask.
import { ALLOW, ASK, DENY, strictest, words, type PolicyDecision, type RuleContext, type SimpleCommand } from './kit.js';

const TEST_RUNNERS: ((a: string[]) => boolean)[] = [
  (a) => a[0] === 'npm' && ['test', 't', 'run', 'run-script'].includes(a[1] ?? '') && (a[1] === 'test' || a[1] === 't' || a.length >= 3),
  (a) => (a[0] === 'yarn' || a[0] === 'pnpm') && (a[1] === 'test' || (a[1] === 'run' && a.length >= 3)),
  (a) => a[0] === 'pytest' || a[0] === 'py.test',
  (a) => /^python3?$/.test(a[0]) && a[1] === '-m' && (a[2] === 'pytest' || a[2] === 'unittest'),
  // node's own runner: node --test [files]; its program-running options are in EXEC_OPTIONS.
  (a) => a[0] === 'node' && a.includes('--test'),
  (a) => a[0] === 'cargo' && a[1] === 'test',
  (a) => a[0] === 'go' && (a[1] === 'test' || a[1] === 'vet'),
  (a) => a[0] === 'make' && ['test', 'check'].includes(a[1] ?? ''),
];

/** Options that make the tool run another program, in any position before `--`. */
const EXEC_OPTIONS: Record<string, RegExp> = {
  npm: /^--(script-shell|node-options|shell|call|userconfig|globalconfig|init-module|editor|browser|viewer|git|prefix|cache)(=|$)|^-c$/,
  node: /^(-e|--eval|-p|--print|-r|--require|--import|--loader|--experimental-loader|-i|--interactive|--inspect(-brk|-port|-wait)?|-c|--check)(=|$)/,
  npx: /^--(script-shell|node-options|shell|call|userconfig|globalconfig)(=|$)|^-c$/,
  yarn: /^--(script-shell|shell|use-yarnrc|cwd)(=|$)/,
  pnpm: /^--(script-shell|shell-emulator|node-options|config\.[a-z-]*shell)(=|$)/,
  go: /^-(exec|toolexec|overlay|modfile|C)(=|$)/,
  cargo: /^--(config|manifest-path)(=|$)|^-Z$/,
  make: /^(--eval|-E|--file|-f|--makefile|-C|--directory|--include-dir|-I)(=|$)/,
  pytest: /^(--rootdir|-c|--confcutdir|--basetemp|--override-ini|-o)(=|$)/,
  python: /^--$/,
};

const NETWORK_OPTIONS = /^--(registry|proxy|https-proxy|@[^=]*:registry)(=|$)/;

/** npm's config options (nopt) accept any unambiguous prefix: `--script-she=` is `--script-shell=`. */
const ABBREVIATING = new Set(['npm', 'npx']);
const longNames = (re: RegExp) => (re.source.match(/--\(([^)]*)\)/)?.[1] ?? '').split('|').filter((n) => /^[a-z-]+$/.test(n));

function dangerousOption(name: string, args: string[]): PolicyDecision | null {
  const re = EXEC_OPTIONS[name === 'py.test' ? 'pytest' : /^python/.test(name) ? 'pytest' : name];
  const names = re && ABBREVIATING.has(name) ? longNames(re) : [];
  for (const a of args) {
    if (a === '--') break;
    const long = /^--([a-z][a-z-]*)(=|$)/.exec(a)?.[1];
    if (long && names.some((n) => n.startsWith(long) && long.length >= 2))
      return DENY(
        `${name} ${a} (an abbreviation of --${names.find((n) => n.startsWith(long))}) makes it run another program or use other configuration`,
        `command:exec:${name}`,
      );
    if (re && re.test(a)) return DENY(`${name} ${a} makes it run another program or use other configuration`, `command:exec:${name}`);
    if (NETWORK_OPTIONS.test(a)) return DENY(`${name} ${a} points it at another server`, `command:network:${name}`);
  }
  return null;
}

export function testRunnerRule(argv: string[], ctx: RuleContext): PolicyDecision | null {
  if (!TEST_RUNNERS.some((t) => t(argv))) return null;
  const bad = dangerousOption(argv[0], argv.slice(1));
  if (bad) return bad;
  return runsProjectCode('a test runner', ctx);
}

export const PACKAGE_MANAGERS = ['npm', 'yarn', 'pnpm', 'npx', 'pip', 'pip3', 'cargo', 'go', 'bun', 'make'];

/** Subcommands that use or print the user's registry credentials (npm token list, yarn npm login, cargo publish, pip config). */
const CREDENTIAL_SUBS = new Set(
  words(`
token login logout adduser add-user publish unpublish owner access profile whoami team org deprecate dist-tag star
unstar hook yank config
`),
);

/** `npx <bin> …` or `npm exec [--] <bin> …` naming a program in the project's node_modules/.bin: its name, else null. */
function projectBinOf(argv: string[], ctx: RuleContext): string | null {
  const rest = argv[0] === 'npx' ? argv.slice(1) : argv[0] === 'npm' && argv[1] === 'exec' ? argv.slice(argv[2] === '--' ? 3 : 2) : null;
  const bin = rest?.[0];
  return bin && !bin.startsWith('-') && ctx.projectBin(bin) ? bin : null;
}

/** Project code runs only inside the sandbox (no network, home hidden, protected paths read-only); without it, it asks. */
function runsProjectCode(what: string, ctx: RuleContext): PolicyDecision {
  return ctx.sandboxed
    ? ALLOW(`${what}, run inside the bubblewrap sandbox (no network, home hidden, protected paths read-only)`, 'command:test-runner:sandboxed')
    : ASK(`${what}; it executes project code and no bubblewrap sandbox is available`, 'command:test-runner:unsandboxed');
}

export function packageManagerRule(c: SimpleCommand, argv: string[], ctx: RuleContext): PolicyDecision {
  const name = argv[0];
  const bad = dangerousOption(name, argv.slice(1));
  if (bad) return bad;
  const sub = argv[1] ?? '';
  const words = argv.slice(1).filter((a) => !a.startsWith('-'));
  // `yarn npm login`: yarn's npm subcommands.
  const credential = [words[0], words[0] === 'npm' ? words[1] : undefined].find((w) => w !== undefined && CREDENTIAL_SUBS.has(w));
  if (credential && !['make', 'go', 'npx'].includes(name)) return DENY(`${name} ${credential} uses or prints your registry credentials`, 'command:credentials');
  if (name === 'make') return ASK("make runs the project's build rules", 'command:package-manager');
  const installed = projectBinOf(argv, ctx);
  if (installed) return runsProjectCode(`${name} runs ${installed}, a program the project installed (node_modules/.bin)`, ctx);
  // npx, npm exec, yarn/pnpm dlx and exec run whatever program they are given (`npm exec -- bash -c ...`).
  if (name === 'npx' || (['npm', 'yarn', 'pnpm', 'bun'].includes(name) && ['exec', 'x', 'dlx'].includes(words[0] ?? ''))) {
    return ASK(
      `${name} ${name === 'npx' ? '' : `${words[0]} `}runs any program it is given, which devx cannot judge in advance`,
      'command:unverifiable:package-exec',
    );
  }
  if (['--version', '-v', 'version'].includes(sub) && argv.length === 2 && name !== 'npx')
    return ALLOW(`${name} ${sub} prints its version`, `command:read-only:${name}`);
  if (
    ['ls', 'list', 'outdated', 'why', 'view', 'info'].includes(sub) &&
    name !== 'npx' &&
    argv.slice(2).every((a) => /^(-[a-z]|--(all|depth=\d+|json|long|parseable|prod|production|dev|omit=\w+|link|global|-g))$/.test(a) || !a.startsWith('-'))
  ) {
    return sub === 'outdated' || sub === 'view' || sub === 'info'
      ? ASK(`${name} ${sub} contacts the registry`, 'command:package-manager')
      : ALLOW(`${name} ${sub} only reads`, `command:read-only:${name}`);
  }
  return strictest(ASK(`${name} ${sub} changes dependencies or runs code`, 'command:package-manager'), ALLOW('', 'command:all-allowed'));
}
