// The shared kit of the command rules: a declarative model of a command's options and operands (written as
// a line of words, below), and one evaluator that walks argv (`--opt=value`, `--opt value`, `-abc` bundles,
// `-ovalue`, `--`, GNU long-option abbreviations) and turns every effect into a decision (decideEffect).
// exec, network and system deny; write, read and list go to the path policy; rread (recursive read) and flist
// (a listing that follows symlinks) also scan the tree below. An option that is not in the model asks.
import { literalWord, type Word } from '../shellWords.js';
import { ALLOW, ASK, DENY, strictest, type PathIntent, type PolicyDecision } from '../types.js';

/** lread: reads a list file and then every file it names (sort/wc/du --files0-from, file -f). */
export type Effect = 'none' | 'read' | 'list' | 'rread' | 'flist' | 'lread' | 'write' | 'exec' | 'network' | 'system' | 'env';

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
  /** A directory read recursively: does it hold denied paths (then only the sandbox may run it)?
   * `linksOut`: a listing that follows symlinks, so only symlinks leading out of the project count. */
  checkRecursive(word: Word, opts?: { hidden?: boolean; linksOut?: boolean }): PolicyDecision;
  /** A folder removed, renamed or rewritten as a whole (rm -r, mv, chmod -R): refused when protected paths depend on it. */
  checkTree(word: Word, how: string): PolicyDecision;
  /** `sources` copied, moved or linked to `dest`: each judged as a write where it lands (inside `dest` when that is
   * a folder, or `into: 'always'`), every file of a copied tree included. `parents`: cp --parents keeps the source path. */
  checkPlacement(sources: Word[], dest: Word, opts: { into: 'auto' | 'always' | 'never'; parents?: boolean; moves?: boolean }): PolicyDecision;
  /** Files in git's objects that the policy denies reading (absolute paths): tracked now, or added by any commit on a ref. */
  trackedDenied(): string[];
  /** Untracked files (absolute paths) under the pathspecs, as `git ls-files --others` lists them from the
   * shell's directory: `ignored` no (git's excludes apply), also (all untracked) or only (only ignored ones);
   * null when git could not tell or there are too many to judge. */
  gitUntracked(pathspecs: Word[], opts: { ignored: 'no' | 'also' | 'only'; excludes: string[] }): string[] | null;
  /** Whether the project installed a program of this name (node_modules/.bin/<name> in the shell's folder or one above it, inside the project). */
  projectBin(name: string): boolean;
  /** Decides a nested command line (for wrappers such as env, xargs, timeout). */
  /** `cwd`: the wrapper runs it in another directory (env -C), judged as a cd there first. */
  decideNested(cmd: SimpleCommand, opts?: { cwd?: Word }): PolicyDecision;
}

export interface Opt {
  /** Takes a value: true (required), 'attached' (only `--opt=v` / `-ov`), or absent (a flag). */
  v?: true | 'attached';
  /** What the option (a flag) or its value does. */
  e?: Effect;
  /** Why, for the reason text. */
  why?: string;
}

export interface Parsed {
  /** Options seen, by canonical name, with their values ('' for flags). */
  opts: Map<string, string[]>;
  /** Value words of options, by canonical name. */
  values: Map<string, Word[]>;
  operands: Word[];
  unknown: string[];
  /** Effects found while parsing (option values and flags). */
  effects: { effect: Effect; word?: Word; why: string }[];
}

export interface Model {
  /** Rule id suffix (command:read-only:<id>). */
  id: string;
  /** Option specs; a key may list aliases: '-n|--lines'. The first alias is the canonical name. */
  opts: Record<string, Opt>;
  /** Effect of the operands (after options): one effect for all, or per operand. */
  operands?: Effect | ((ops: Word[], p: Parsed) => { word: Word; effect: Effect; why?: string }[]);
  /** `-5` style numeric options (head -5, tail -20). */
  numeric?: boolean;
  /** POSIX: options end at the first operand (no GNU permutation). */
  posix?: boolean;
  /** GNU getopt_long: unique prefixes of long options are accepted. Default true. */
  abbreviations?: boolean;
  /** Extra checks after parsing (scripts, combinations); may add a decision. */
  check?: (p: Parsed, cmd: SimpleCommand, ctx: RuleContext) => PolicyDecision | null;
  /** The decision when every effect is harmless (default: allow). */
  base?: (p: Parsed, cmd: SimpleCommand) => PolicyDecision | null;
}

interface Compiled {
  byName: Map<string, { canon: string; spec: Opt }>;
  longs: string[];
}

const cache = new WeakMap<Model, Compiled>();
function compile(m: Model): Compiled {
  let c = cache.get(m);
  if (c) return c;
  c = { byName: new Map(), longs: [] };
  for (const [key, spec] of Object.entries(m.opts)) {
    const names = key.split('|');
    for (const n of names) {
      c.byName.set(n, { canon: names[0], spec });
      if (n.startsWith('--')) c.longs.push(n);
    }
  }
  cache.set(m, c);
  return c;
}

export const word = (from: Word, text: string): Word => ({ ...from, text, plain: false, substitutions: [], unknownKinds: [] });

/** The current folder, for a command that works there when no path is named. */
export const DOT: Word = literalWord('.');

/** Operands of a lister: each one listed, or `.` when none is given; `follow` (it follows symlinks below them) makes them flist. */
export function listOperands(ops: Word[], follow: boolean): { word: Word; effect: Effect; why?: string }[] {
  if (!follow) return ops.map((w) => ({ word: w, effect: 'list' as Effect }));
  const why = 'lists names through the symlinks below it';
  return (ops.length ? ops : [word(DOT, '.')]).map((w) => ({ word: w, effect: 'flist' as Effect, why }));
}

const DANGER: Effect[] = ['exec', 'network', 'system', 'write', 'env'];

/** Walks argv against the model. Never throws. */
export function parseArgs(m: Model, args: Word[]): Parsed {
  const c = compile(m);
  const p: Parsed = { opts: new Map(), values: new Map(), operands: [], unknown: [], effects: [] };
  const record = (canon: string, spec: Opt, value: string | undefined, from: Word) => {
    p.opts.set(canon, [...(p.opts.get(canon) ?? []), value ?? '']);
    const vw = value !== undefined ? word(from, value) : undefined;
    if (vw) p.values.set(canon, [...(p.values.get(canon) ?? []), vw]);
    if (spec.e && spec.e !== 'none') p.effects.push({ effect: spec.e, word: spec.v ? vw : undefined, why: spec.why ?? `${canon}` });
  };
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const t = a.text;
    if (ended || t === '-' || !t.startsWith('-') || t.length === 1) {
      p.operands.push(a);
      if (m.posix) ended = true;
      continue;
    }
    if (t === '--') {
      ended = true;
      continue;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      const name = eq > 0 ? t.slice(0, eq) : t;
      let value = eq > 0 ? t.slice(eq + 1) : undefined;
      let hit = c.byName.get(name);
      if (!hit && m.abbreviations !== false) {
        const cands = c.longs.filter((l) => l.startsWith(name));
        // An abbreviation that could be a dangerous option counts as that option.
        const danger = cands.map((l) => c.byName.get(l)!).find((h) => h.spec.e && DANGER.includes(h.spec.e));
        if (danger) hit = danger;
        else if (new Set(cands.map((l) => c.byName.get(l)!.canon)).size === 1) hit = c.byName.get(cands[0]);
      }
      if (!hit) {
        p.unknown.push(t);
        continue;
      }
      // A value in the next word is judged as that word (quoted, expanded or literal), not as the option's.
      let from = a;
      if (hit.spec.v === true && value === undefined) {
        if (i + 1 < args.length) value = (from = args[++i]).text;
        else value = '';
      }
      if (!hit.spec.v && value !== undefined) {
        p.unknown.push(t);
        continue;
      }
      record(hit.canon, hit.spec, value, from);
      continue;
    }
    if (m.numeric && /^-\d+[a-zA-Z]?$/.test(t)) {
      record('-NUM', {}, t.slice(1), a);
      continue;
    }
    // A bundle of short options: flags, and at most one value-taking option (its value attached or next).
    for (let j = 1; j < t.length; j++) {
      const name = `-${t[j]}`;
      const hit = c.byName.get(name);
      if (!hit) {
        p.unknown.push(name === t ? t : `${name} (in ${t})`);
        break;
      }
      if (hit.spec.v) {
        let value = t.slice(j + 1);
        let from = a;
        if (!value && hit.spec.v === true) value = i + 1 < args.length ? (from = args[++i]).text : '';
        record(hit.canon, hit.spec, value || undefined, from);
        break;
      }
      record(hit.canon, hit.spec, undefined, a);
    }
  }
  return p;
}

const INTENT: Partial<Record<Effect, PathIntent>> = { read: 'read', list: 'list', write: 'write', rread: 'read' };

/** Turns one effect into a decision. */
export function decideEffect(id: string, effect: Effect, w: Word | undefined, why: string, ctx: RuleContext): PolicyDecision {
  switch (effect) {
    case 'none':
      return ALLOW(`${id}: ${why}`, `command:read-only:${id}`);
    case 'exec':
      return DENY(`${id} ${why} runs another program, which cannot be checked in advance`, `command:exec:${id}`);
    case 'network':
      return DENY(`${id} ${why} opens the network`, `command:network:${id}`);
    case 'system':
      return DENY(`${id} ${why} changes the system outside the project`, `command:system:${id}`);
    case 'env':
      return ASK(`${id} ${why} reads or changes the shell environment`, `command:shell-state:${id}`);
    case 'write': {
      if (!w) return ASK(`${id} ${why} changes files`, `command:write:${id}`);
      const d = ctx.checkPath(w, 'write');
      if (d.decision === 'deny' || d.path === 'null-device') return d;
      return strictest(ASK(`${id} ${why} writes ${w.text}`, `command:write:${id}`), d);
    }
    case 'lread': {
      // The names are in a file devx cannot judge in advance (nor be sure it stays the same until the command runs).
      const ask = ASK(`${id} ${why}: the files it names cannot be checked in advance`, `command:unverifiable:${id}`);
      return w ? strictest(ctx.checkPath(w, 'read'), ask) : ask;
    }
    case 'rread': {
      if (!w) return ALLOW(`${id} reads`, `command:read-only:${id}`);
      return strictest(ctx.checkPath(w, 'read'), ctx.checkRecursive(w));
    }
    case 'flist': {
      if (!w) return ALLOW(`${id} lists`, `command:read-only:${id}`);
      return strictest(ctx.checkPath(w, 'list'), ctx.checkRecursive(w, { linksOut: true }));
    }
    default:
      if (!w) return ALLOW(`${id} reads`, `command:read-only:${id}`);
      return ctx.checkPath(w, INTENT[effect]!);
  }
}

/** The generic evaluator: parse, then let every effect decide; deny beats ask beats allow. */
export function evaluate(m: Model, cmd: SimpleCommand, ctx: RuleContext): PolicyDecision {
  const p = parseArgs(m, cmd.args);
  let d = ALLOW(`${m.id} only reads`, `command:read-only:${m.id}`);
  for (const e of p.effects) d = strictest(d, decideEffect(m.id, e.effect, e.word, e.why, ctx));
  const ops = m.operands ?? 'none';
  const list = typeof ops === 'function' ? ops(p.operands, p) : p.operands.map((word) => ({ word, effect: ops, why: 'operand' }));
  for (const o of list) d = strictest(d, decideEffect(m.id, o.effect, o.word, o.why ?? `operand ${o.word.text}`, ctx));
  if (m.check) {
    const x = m.check(p, cmd, ctx);
    if (x) d = strictest(d, x);
  }
  if (p.unknown.length) {
    d = strictest(
      d,
      ASK(`${m.id}: option ${p.unknown.join(', ')} is not in devx's model of ${m.id}, so its effect is unknown`, `command:unknown-option:${m.id}`),
    );
  }
  if (m.base) {
    const b = m.base(p, cmd);
    if (b) d = strictest(d, b);
  }
  return d;
}

/** The neutral decision of a rule's own checks, and their sum (deny beats ask beats allow). */
export const NOTHING_MORE = ALLOW('nothing more to check', 'command:paths');
export const allOf = (ds: PolicyDecision[]): PolicyDecision => ds.reduce(strictest, NOTHING_MORE);
/** An ask whose effect devx cannot see in advance: a person may approve it, no approval mode can. */
export const unverifiable = (id: string, why: string): PolicyDecision => ASK(why, `command:unverifiable:${id}`);

export const READ: Opt = { v: true, e: 'read' };
export const EXEC: Opt = { v: true, e: 'exec' };

// A model's options as a line of words:
//   -a|--all          a flag (aliases joined by |; the first is the canonical name)
//   -[AbeE]           the flags -A -b -e -E
//   -n|--lines=       takes a value (attached or the next word); =? only attached (--color=auto)
//   -o|--output=write its value is a path it writes (read, list, rread, lread, write, exec, network, system, env)
//   -c|--check:env    a flag with an effect
//   @read             what its operands are (read, list, rread, flist, write, none); none when absent
//   #numeric #posix #noabbrev   -5 style numbers; options end at the first operand; no long-option prefixes
const EFFECTS = new Set<Effect>(['none', 'read', 'list', 'rread', 'flist', 'lread', 'write', 'exec', 'network', 'system', 'env']);
const HELP: Record<string, Opt> = { '--help': {}, '--version': {} };

/** A program's Model from its line (every program also takes --help and --version); `extra` adds what needs code. */
export function fromSpec(id: string, line: string, extra: Partial<Model> = {}): Model {
  const m = readLine({ id, opts: { ...HELP } }, line);
  return { ...m, ...extra, opts: { ...m.opts, ...extra.opts } };
}

/** Just the options of a line (no --help added): for a model written in code that has a table of options too. */
export const options = (...lines: string[]): Record<string, Opt> => readLine({ id: 'options', opts: {} }, lines.join(' ')).opts;

/** Every line of a table, each a Model by the program's name. */
export function fromSpecs(table: Record<string, string>): Record<string, Model> {
  return Object.fromEntries(Object.entries(table).map(([id, line]) => [id, fromSpec(id, line)]));
}

function readLine(m: Model, line: string): Model {
  for (const w of words(line)) readWord(m, w);
  return m;
}

function readWord(m: Model, w: string): void {
  const id = m.id;
  if (w.startsWith('@')) {
    m.operands = effect(w.slice(1), id, w);
    return;
  }
  if (w.startsWith('#')) {
    if (w === '#numeric') m.numeric = true;
    else if (w === '#posix') m.posix = true;
    else if (w === '#noabbrev') m.abbreviations = false;
    else throw new Error(`${id}: unknown mark ${w}`);
    return;
  }
  const cluster = /^-\[([A-Za-z0-9@.]+)\]$/.exec(w);
  if (cluster) {
    for (const ch of cluster[1]) m.opts[`-${ch}`] = {};
    return;
  }
  const opt = /^(-[^=:]+)(?:(=\??)([a-z]*)|:([a-z]+))?$/.exec(w);
  if (!opt) throw new Error(`${id}: cannot read ${w}`);
  const [, names, eq, valueEffect, flagEffect] = opt;
  const spec: Opt = {};
  if (eq) spec.v = eq === '=?' ? 'attached' : true;
  const e = valueEffect || flagEffect;
  if (e) spec.e = effect(e, id, w);
  m.opts[names] = spec;
}

function effect(name: string, id: string, w: string): Effect {
  if (!EFFECTS.has(name as Effect)) throw new Error(`${id}: unknown effect in ${w}`);
  return name as Effect;
}

/** A list of names written as words (one string reads better than one name per line). */
export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

export { ALLOW, ASK, DENY, strictest };
export type { PolicyDecision };
