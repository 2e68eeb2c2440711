// The option tables of the simple programs, as data: one line per program, read by one interpreter into
// the kit's Model (kit.ts). A line is words:
//   -a|--all          a flag (aliases joined by |; the first is the canonical name)
//   -[AbeE]           the flags -A -b -e -E
//   -n|--lines=       takes a value (attached or the next word); =? only attached (--color=auto)
//   -o|--output=write its value is a path it writes (read, list, rread, lread, write, exec, network, system, env)
//   -c|--check:env    a flag with an effect
//   @read             what its operands are (read, list, rread, flist, write, none); none when absent
//   #numeric #posix #noabbrev   -5 style numbers; options end at the first operand; no long-option prefixes
// Programs whose syntax is a language of its own (sed, awk, find, git, tar, jq…) keep code of their own.
import type { Effect, Model, Opt } from './kit.js';

const EFFECTS = new Set<Effect>(['none', 'read', 'list', 'rread', 'flist', 'lread', 'write', 'exec', 'network', 'system', 'env']);
const HELP: Record<string, Opt> = { '--help': {}, '--version': {} };

/** A program's Model from its line (every program also takes --help and --version); `extra` adds what needs code. */
export function fromSpec(id: string, line: string, extra: Partial<Model> = {}): Model {
  const m: Model = { id, opts: { ...HELP } };
  for (const w of line.split(/\s+/).filter(Boolean)) readWord(m, w, id);
  return { ...m, ...extra, opts: { ...m.opts, ...extra.opts } };
}

/** Just the options of a line (no --help added): for a model written in code that has a table of options too. */
export function options(...lines: string[]): Record<string, Opt> {
  const m: Model = { id: 'options', opts: {} };
  for (const w of lines.join(' ').split(/\s+/).filter(Boolean)) readWord(m, w, 'options');
  return m.opts;
}

/** Every line of a table, each a Model by the program's name. */
export function fromSpecs(table: Record<string, string>): Record<string, Model> {
  return Object.fromEntries(Object.entries(table).map(([id, line]) => [id, fromSpec(id, line)]));
}

function readWord(m: Model, w: string, id: string): void {
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
