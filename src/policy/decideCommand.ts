// The command policy: parse with tree-sitter-bash, walk every node, check every simple command
// (including those inside substitutions, pipelines and subshells) and every redirection, and let
// deny beat ask beat allow. Anything that cannot be understood statically is never allowed.
import fs from 'node:fs';
import path from 'node:path';
import type { Node } from './bashParser.js';
import { evalWord, literalWord, type Word } from './shellWords.js';
import { decidePath, type PathIntent } from './pathPolicy.js';
import { decideSimpleCommand, type RuleContext, type SimpleCommand } from './rules/index.js';
import { historyDeniedPaths, trackedDeniedPaths } from './trackedDenied.js';
import { checkRecursive, checkWord, cwdsOf, gitUntrackedHere, wordsHere, type CommandPolicyContext, type Effects, type WalkState } from './checkWords.js';
import { checkPlacement, checkTree, isDir } from './writeTargets.js';
import { joinsWords } from './bashQuirks.js';
import { repoConfigRiskSync } from '../util/safeGit.js';
import { gitEntriesOf, unnamedGitEntriesOf } from '../sandbox/projectScan.js';
import { gitDataOutside } from './gitDataOutside.js';
import { runsUnsandboxed } from './rules/unsandboxed.js';
import { ALLOW, ASK, DENY, settingsDecision, strictest, type PolicyDecision, type SandboxClaim } from './types.js';
import { matchCommandRules } from './permissions.js';

/** The claim the sandbox enforces for a judged line. */
function claimOf(e: Effects): SandboxClaim {
  const writes = [...e.writes];
  // git's changes (checkout, stash, reset) reach the work tree beyond the paths it names: the project is writable for them.
  return { profile: e.build || e.git ? 'build' : writes.length ? 'write' : 'read-only', writes, ...(e.git ? { git: true } : {}) };
}

const DANGEROUS_ENV =
  /^(CDPATH$|GLOBIGNORE$|LD_|DYLD_|GIT_|NODE_|NPM_CONFIG_|PYTHON|PERL|RUBY|BASH_|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|CLASSPATH$|PATH$|IFS$|ENV$|PAGER$|MANPAGER$|GIT_PAGER$|EDITOR$|VISUAL$|PROMPT_COMMAND$|SHELLOPTS$|BASHOPTS$|HOME$|TMPDIR$|XDG_CONFIG_HOME$|LESSOPEN$|LESSCLOSE$|GCONV_PATH$|SSH_|GNUPGHOME$|HISTFILE$|PS4$|CC$|CXX$|MAKEFLAGS$|RUSTC_WRAPPER$|RUSTFLAGS$|CARGO_)/i;
/** Commands whose arguments are only printed or compared: a computed argument there is harmless. */
const DATA_ONLY = new Set(['echo', 'printf', 'true', 'false', 'test', '[', '[[', 'expr', ':']);
/** Commands that set shell variables from data the model controls. */
const SETS_VARIABLES = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'read', 'mapfile', 'readarray', 'getopts', 'let']);
const PLAIN_NAME = /^[A-Za-z0-9_.\/+-][A-Za-z0-9_.\/+@:%=-]*$/;
const MAX_COMMAND = 20_000;

export function decideCommand(command: string, ctx: CommandPolicyContext): PolicyDecision {
  const effects: Effects = { writes: new Set(), build: false, git: false };
  const d = decideLine(command, { ...ctx, effects });
  return { ...d, claim: claimOf(effects) };
}

function decideLine(command: string, ctx: CommandPolicyContext): PolicyDecision {
  if (!command.trim()) return DENY('empty command', 'command:empty');
  if (command.length > MAX_COMMAND) return DENY(`command is longer than ${MAX_COMMAND} characters`, 'command:too-long');
  // eslint-disable-next-line no-control-regex
  const ctl = /[\u0000-\u0008\u000b-\u001f\u007f]/.exec(command);
  if (ctl) return DENY(`command contains a control character (\\x${ctl[0].charCodeAt(0).toString(16).padStart(2, '0')}); refusing it`, 'command:control-chars');
  // bash removes backslash-newline before it splits words, so `.e\<newline>nv` is `.env`; the parser splits there.
  if (joinsWords(command)) {
    return DENY('a backslash-newline inside a word joins its two parts; write the word on one line', 'command:parse-error');
  }
  const tree = ctx.parser.parse(command);
  if (!tree) return DENY('the command could not be parsed', 'command:parse-error');
  try {
    if (tree.rootNode.hasError) return DENY('the command is not valid bash (parse error); simplify it', 'command:parse-error');
    // ${x@P} expands the value as a prompt string, which runs the command substitutions inside it.
    if (/\$\{[^}]*@P\}/.test(command)) return DENY('${var@P} prompt expansion runs command substitutions hidden in a value', 'command:prompt-expansion');
    const state: WalkState = { cwd: ctx.paths.cwd ?? ctx.paths.root };
    return walk(tree.rootNode, state, ctx);
  } catch (err) {
    // A line the rules cannot walk is refused, never allowed.
    return DENY(`devx could not judge this command (${(err as Error).message}); simplify it`, 'command:parse-error');
  } finally {
    tree.delete();
  }
}

function walkAll(nodes: (Node | null)[], state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  let d = ALLOW('every part of the command is allowed', 'command:all-allowed');
  for (const n of nodes) if (n) d = strictest(d, walk(n, state, ctx));
  return d;
}

function walk(node: Node, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  switch (node.type) {
    case 'program':
    case 'list':
    case 'compound_statement':
      return walkAll(node.namedChildren, state, ctx);
    case 'pipeline':
      // Each pipeline element runs in its own subshell: a cd there does not persist.
      return node.namedChildren.reduce((d, c) => (c ? strictest(d, walk(c, { ...state }, ctx)) : d), ALLOW('pipeline', 'command:all-allowed'));
    case 'subshell':
      return walkAll(node.namedChildren, { ...state }, ctx);
    case 'negated_command':
      return walkAll(node.namedChildren, state, ctx);
    case 'comment':
      return ALLOW('comment', 'command:comment');
    case 'redirected_statement': {
      // The parser hangs words written after a redirection's target on the redirection (`cat 2>&1 .env`,
      // `cat <<EOF .env`); bash gives them to the command as arguments.
      const extras = node.namedChildren.flatMap((c) => (c && isRedirect(c) ? wordsAfterTarget(c) : []));
      const body = node.namedChildren.find((c) => c && !isRedirect(c)) ?? null;
      if (extras.length && body?.type !== 'command')
        return DENY('words after a redirection that no command takes; simplify the command', 'command:parse-error');
      let d = ALLOW('redirected statement', 'command:all-allowed');
      for (const c of node.namedChildren) {
        if (!c) continue;
        d = strictest(
          d,
          isRedirect(c) ? decideRedirect(c, state, ctx) : c === body && extras.length ? decideCommandNode(c, state, ctx, extras) : walk(c, state, ctx),
        );
      }
      return d;
    }
    case 'command':
      return decideCommandNode(node, state, ctx);
    case 'variable_assignment':
    case 'variable_assignments': {
      state.assigned = true;
      const names = (node.type === 'variable_assignment' ? [node] : node.namedChildren).map((c) => c?.childForFieldName('name')?.text ?? '');
      const dangerous = names.find((n) => DANGEROUS_ENV.test(n));
      if (dangerous)
        return DENY(
          `setting ${dangerous} changes how later commands run (which program, which directory, which files a glob matches)`,
          'command:env-dangerous',
        );
      const subs = node.namedChildren.flatMap((c) => (c ? evalWord(c).substitutions : []));
      return strictest(ASK('sets a shell variable', 'command:shell-state'), walkAll(subs, { ...state }, ctx));
    }
    case 'command_substitution':
    case 'process_substitution':
      return walkAll(node.namedChildren, { ...state }, ctx);
    case 'test_command':
      return decideTestCommand(node, state, ctx);
    default:
      return DENY(`unsupported shell syntax (${node.type}); use simple commands joined by &&, || , ; or |`, 'command:unsupported-syntax');
  }
}

// The nodes of a test expression that only group its words; everything else is an operator or an operand.
const TEST_GROUPS = new Set(['unary_expression', 'binary_expression', 'parenthesized_expression', 'postfix_expression', 'ternary_expression']);

/** `[ ... ]` and `[[ ... ]]`: their words in order, judged as the command `[` or `[[` (see rules/testExpr.ts). */
function decideTestCommand(node: Node, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  const open = node.children[0]?.type === '[[' ? '[[' : '[';
  const words: Word[] = [];
  const flatten = (n: Node): void => {
    if (TEST_GROUPS.has(n.type)) {
      for (const c of n.children) if (c) flatten(c);
    } else if (!n.isNamed || n.type === 'test_operator') {
      if (n.type !== open) words.push(literalWord(n.text));
    } else if (n.type === 'extglob_pattern' || n.type === 'regex') {
      // Patterns the parser keeps whole: what they expand cannot be seen.
      words.push(/[$`]/.test(n.text) ? { ...literalWord(n.text), unknownKinds: [`${n.type} with expansions`] } : literalWord(n.text));
    } else {
      words.push(evalWord(n));
    }
  };
  for (const c of node.children) if (c) flatten(c);
  let d = ALLOW('test expression', 'command:all-allowed');
  for (const w of words) {
    if (w.unknownKinds.length) return DENY(`unsupported shell syntax (${w.unknownKinds.join(', ')})`, 'command:unsupported-syntax');
    d = strictest(d, walkAll(w.substitutions, { ...state }, ctx));
  }
  return strictest(d, decideSimple({ name: open, args: words, assignments: [] }, state, ctx));
}

/** The words the parser put on a redirection after its target (or after a heredoc's delimiter). */
function wordsAfterTarget(r: Node): Node[] {
  const named = r.namedChildren.filter((c): c is Node => !!c && c.type !== 'file_descriptor');
  if (r.type === 'heredoc_redirect') return named.filter((c) => !c.type.startsWith('heredoc_'));
  if (r.type === 'file_redirect') return named.slice(1);
  return [];
}

const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);
const isRedirect = (n: Node) => REDIRECTS.has(n.type);

function decideRedirect(node: Node, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  if (node.type === 'heredoc_redirect' || node.type === 'herestring_redirect') {
    // Unquoted heredocs and here-strings expand $(...) in their bodies: check those commands too.
    const subs: Node[] = [];
    const collect = (n: Node) => {
      if (n.type === 'command_substitution' || n.type === 'process_substitution') subs.push(n);
      else n.namedChildren.forEach((c) => c && collect(c));
    };
    collect(node);
    const expands = /\$[({A-Za-z_]|`/.test(node.text) && !/<<-?\s*['"]/.test(node.text);
    const base = expands ? ASK('the heredoc expands variables', 'command:heredoc-expansion') : ALLOW('heredoc', 'command:heredoc');
    return strictest(base, walkAll(subs, { ...state }, ctx));
  }
  const op = node.children.find((c) => c && !c.isNamed)?.text ?? '>';
  const target = node.namedChildren.find((c) => c && c.type !== 'file_descriptor');
  if (!target) return DENY('redirection without a target', 'command:parse-error');
  const w = evalWord(target);
  if ((op === '>&' || op === '<&' || op === '>&-' || op === '<&-') && /^(\d+|-)$/.test(w.text)) return ALLOW('file descriptor duplication', 'command:fd-dup');
  // A target such as $(cmd) or >(cmd) runs cmd: it is judged like any command.
  const inner = walkAll(w.substitutions, { ...state }, ctx);
  if (inner.decision === 'deny') return inner;
  const intent: PathIntent = op === '<' ? 'read' : 'write';
  const d = checkWord(w, intent, state, ctx);
  // A computed target keeps its own reason first: yolo must not approve it as an ordinary write.
  if (d.decision === 'deny' || intent === 'read' || !w.literal) return strictest(d, inner);
  if (d.path === 'null-device') return d;
  return strictest(ASK(`the redirection ${op} writes ${w.text}`, 'command:redirect-write'), d);
}

function decideCommandNode(node: Node, state: WalkState, ctx: CommandPolicyContext, extraArgs: Node[] = []): PolicyDecision {
  const assignments: SimpleCommand['assignments'] = [];
  const args: Word[] = [];
  let name: Word | null = null;
  let d = ALLOW('command', 'command:all-allowed');
  for (const c of [...node.namedChildren, ...extraArgs]) {
    if (!c) continue;
    if (c.type === 'variable_assignment') {
      const varName = c.childForFieldName('name')?.text ?? c.namedChildren[0]?.text ?? '';
      const valueNode = c.childForFieldName('value');
      const value = valueNode ? evalWord(valueNode) : evalWord(c);
      assignments.push({ name: varName, value });
      d = strictest(d, walkAll(value.substitutions, { ...state }, ctx));
    } else if (c.type === 'command_name') {
      const inner = c.namedChildren[0];
      name = inner ? evalWord(inner) : null;
      if (!inner || !name || inner.type !== 'word' || !name.plain || !name.literal || !PLAIN_NAME.test(name.text)) {
        // eslint-disable-next-line no-control-regex
        const nonAscii = /[^\x20-\x7e]/.test(c.text);
        return DENY(
          `the command name ${JSON.stringify(c.text)} is not a plain word${nonAscii ? ' (it has non-ASCII characters)' : ''}; write commands literally`,
          'command:non-literal-name',
        );
      }
    } else if (isRedirect(c)) {
      d = strictest(d, decideRedirect(c, state, ctx));
    } else {
      const w = evalWord(c);
      args.push(w);
      if (w.unknownKinds.length) return DENY(`unsupported shell syntax (${w.unknownKinds.join(', ')})`, 'command:unsupported-syntax');
      d = strictest(d, walkAll(w.substitutions, { ...state }, ctx));
    }
  }
  if (!name) return DENY('a command without a name', 'command:parse-error');
  const dangerous = assignments.find((a) => DANGEROUS_ENV.test(a.name));
  if (dangerous) return DENY(`setting ${dangerous.name} for a command can make it run other code`, 'command:env-dangerous');
  if (name.text === 'cd') return strictest(d, decideCd(args, state, ctx));
  // pushd is a cd that remembers where it was; popd goes back (only to where a pushd of this line left).
  if (name.text === 'pushd') {
    const from = cwdsOf(state);
    const cd = decideCd(args, state, ctx);
    if (cd.decision !== 'deny') state.dirs = [...(state.dirs ?? []), from];
    return strictest(d, cd);
  }
  if (name.text === 'popd') {
    const back = state.dirs?.at(-1);
    if (args.length || back === undefined)
      return DENY('popd without a pushd earlier in this command line goes to a directory devx cannot see; use cd', 'command:cd-outside');
    state.dirs = state.dirs!.slice(0, -1);
    // Back where the pushd left, or still there if the pushd failed.
    const [first, ...rest] = [...new Set([...back, ...cwdsOf(state)])];
    state.cwd = first;
    state.alt = rest.length ? rest : undefined;
    return strictest(d, ALLOW('popd back inside the project', 'command:cd'));
  }
  return strictest(d, decideSimple({ name: name.text, args, assignments }, state, ctx));
}

function decideCd(args: Word[], state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  const target = args.filter((a) => a.text !== '--' && !/^-[LPe@]+$/.test(a.text));
  if (target.length !== 1 || target[0].text === '-') return DENY('cd must name one directory inside the project', 'command:cd-outside');
  if (!target[0].literal || target[0].glob) return DENY('cd to a computed directory cannot be checked', 'command:cd-outside');
  // From each directory the shell may be in: where the cd leads, and, if that is not a directory now
  // (it may be made earlier in the line, or the cd fails and the line goes on), the directory it leaves.
  const next: string[] = [];
  for (const cwd of cwdsOf(state)) {
    const d = decidePath(target[0].text, 'list', { ...ctx.paths, cwd, outside: 'deny' });
    if (d.decision === 'deny') return { ...d, reason: `cd: ${d.reason}` };
    const to = d.real ?? path.resolve(cwd, target[0].text);
    next.push(to);
    if (!isDir(to)) next.push(cwd);
  }
  const [first, ...rest] = [...new Set(next)];
  state.cwd = first;
  state.alt = rest.length ? rest : undefined;
  return ALLOW('cd inside the project', 'command:cd');
}

/** node_modules/.bin/<name> in `cwd` or a folder above it, up to the project's root, as npx finds it. */
function hasProjectBin(name: string, cwd: string, root: string): boolean {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name)) return false;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const rel = path.relative(root, dir);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return false;
    if (fs.existsSync(path.join(dir, 'node_modules', '.bin', name))) return true;
    if (dir === path.resolve(root)) return false;
  }
}

// A repository in the project that sets a git key naming a program no value switches off (diff.external,
// diff.<driver>.command), a core.worktree pointing elsewhere, or whose configuration cannot be listed, or
// whose git data lies outside the project (gitDataOutside.ts): outside the sandbox, git asks there (util/safeGit.ts).
/** The first such key and the file that sets it ("diff.external in .git/config"), or null. */
function unneutralizedGitKey(root: string, trusted: boolean): string | null {
  const unnamed = unnamedGitEntriesOf(root);
  if (unnamed.length) return `a git folder under a name that is not UTF-8 (${path.relative(root, unnamed[0])})`;
  for (const dir of new Set([root, ...gitEntriesOf(root).map((e) => path.dirname(e))])) {
    // A worktree of the user's own keeps its git data in the main repository: theirs once they trusted the project.
    const outside = trusted ? null : gitDataOutside(root, dir);
    if (outside) return outside;
    const risk = repoConfigRiskSync(dir);
    if (risk.unknown) return `an unknown configuration in ${path.relative(root, dir) || '.'}: ${risk.unknown}`;
    const hit = risk.unneutralized[0];
    if (hit) return `${hit.key} in ${path.isAbsolute(hit.origin) ? path.relative(root, hit.origin) : hit.origin}`;
  }
  return null;
}

function decideSimple(cmd: SimpleCommand, state: WalkState, ctx: CommandPolicyContext): PolicyDecision {
  const structural: PolicyDecision[] = [];
  /** Words a rule already judged as paths (their globs need not be expanded again below). */
  const checked = new Set<string>();
  const rctx: RuleContext = {
    headless: ctx.headless,
    sandboxed: ctx.sandboxed,
    checkPath: (w, intent) => {
      checked.add(w.text);
      const r = checkWord(w, intent, state, ctx);
      if (r.fixed && r.decision !== 'allow') structural.push(r);
      return r;
    },
    checkRecursive: (w, o) => checkRecursive(w, { hidden: o?.hidden !== false, linksOut: o?.linksOut === true }, state, ctx),
    checkTree: (w, how) => checkTree(w, how, wordsHere(state, ctx), { root: ctx.paths.root, permissions: ctx.permissions }),
    checkPlacement: (sources, dest, o) => checkPlacement(sources, dest, o, wordsHere(state, ctx), { root: ctx.paths.root, permissions: ctx.permissions }),
    trackedDenied: () => [...new Set([...trackedDeniedPaths(ctx.paths.root, ctx.permissions), ...historyDeniedPaths(ctx.paths.root, ctx.permissions)])],
    gitUntracked: (specs, o) => gitUntrackedHere(specs, o, state),
    projectBin: (name) => cwdsOf(state).every((cwd) => hasProjectBin(name, cwd, ctx.paths.root)),
    decideNested: (inner, o) => {
      const dangerous = inner.assignments.find((a) => DANGEROUS_ENV.test(a.name));
      if (dangerous) return DENY(`setting ${dangerous.name} for a command can make it run other code`, 'command:env-dangerous');
      if (!PLAIN_NAME.test(inner.name)) return DENY(`the command name ${inner.name} is not a plain word`, 'command:non-literal-name');
      if (!o?.cwd) return decideSimple(inner, state, ctx);
      const there = { ...state };
      const cd = decideCd([o.cwd], there, ctx);
      return cd.decision === 'deny' ? cd : decideSimple(inner, there, ctx);
    },
  };
  let d = decideSimpleCommand(cmd, rctx);
  if (ctx.effects && d.effect === 'project-code') ctx.effects.build = true;
  if (ctx.effects && d.effect === 'git-change') ctx.effects.git = true;
  // bash expands an unquoted glob anywhere, also where the rules expect a pattern or a filter (`jq .*`
  // becomes `jq .env .env.local`): the files it matches become arguments, so each is judged as a read.
  if (!DATA_ONLY.has(cmd.name)) for (const a of cmd.args) if (a.glob && a.literal && !checked.has(a.text)) d = strictest(d, checkWord(a, 'read', state, ctx));
  if (cmd.assignments.length) d = strictest(d, ASK(`sets ${cmd.assignments.map((a) => a.name).join(', ')} for the command`, 'command:env-prefix'));
  if (SETS_VARIABLES.has(cmd.name) || (cmd.name === 'printf' && cmd.args.some((a) => a.text.startsWith('-v')))) state.assigned = true;
  const computed = cmd.args.filter((a) => !a.literal && (a.substitutions.length > 0 || (state.assigned && /\$/.test(a.text))));
  if (computed.length && !DATA_ONLY.has(cmd.name)) {
    return DENY(
      `${cmd.name} gets an argument computed by the command line itself (${computed[0].text}); it could become any option or path, so write it literally`,
      'command:computed-argument',
    );
  }
  if (cmd.args.some((a) => !a.literal))
    d = strictest(d, ASK('arguments use $-expansions or substitutions that cannot be checked in advance', 'command:expansion'));
  // (A settings allow rule below is the person's yes in advance and still lifts it.)
  // Without the sandbox a wrong model would be exploited, not contained: only the small list runs unasked.
  if (!ctx.sandboxed && d.decision === 'allow' && !runsUnsandboxed(cmd)) {
    d = {
      ...ASK(
        `${cmd.name}${cmd.name === 'git' && cmd.args[0] ? ` ${cmd.args[0].text}` : ''} runs without a question only inside the sandbox, and bubblewrap is not available here`,
        'command:unsandboxed',
      ),
      modelled: true,
    };
  }
  // What git's configuration names that no setting switches off (diff.external, a core.worktree elsewhere, a
  // configuration too large to list) is obeyed only sandboxed, where devx mounts a copy without it.
  const named = !ctx.sandboxed && d.decision === 'allow' && cmd.name === 'git' ? unneutralizedGitKey(ctx.paths.root, ctx.trusted === true) : null;
  if (named)
    d = ASK(`the repository's git configuration is not safe to obey outside a sandbox (${named}); bubblewrap is not available here`, 'command:unsandboxed');
  if (ctx.permissions) {
    const words = [cmd.name, ...cmd.args.map((a) => a.text)];
    const m = matchCommandRules(words, ctx.permissions);
    if (m?.kind === 'deny') return settingsDecision('deny', m.source, m.rule, `denied by your settings rule ${m.rule}`);
    if (m?.kind === 'ask') d = strictest(d, settingsDecision('ask', m.source, m.rule, `your settings rule ${m.rule} asks first`));
    if (m?.kind === 'allow' && !d.fixed && d.decision !== 'allow' && cmd.args.every((a) => a.literal)) {
      d = settingsDecision('allow', m.source, m.rule, `allowed by your settings rule ${m.rule}`);
      for (const s of structural) d = strictest(d, s);
    }
  }
  if (ctx.readOnly && d.decision === 'allow' && !/^command:(read-only|cd|paths|all-allowed|recursive-sandboxed)/.test(d.rule)) {
    return DENY(`plan mode runs only read-only commands (${cmd.name} is not one)`, 'mode:plan');
  }
  return d;
}

export type { CommandPolicyContext, Effects } from './checkWords.js';
