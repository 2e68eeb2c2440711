// The shape of a CLI command. Each command is one module under commands/ and one line in
// commands/index.ts; the dispatcher parses its flags and renders its --help from this table.
import { parseArgs } from 'node:util';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The flag's value in help, e.g. "N" or "PATH". */
  value?: string;
  desc: string;
}

export type Flags = Record<string, FlagSpec>;

export type FlagValues<F extends Flags> = { [K in keyof F]?: F[K]['type'] extends 'string' ? string : boolean };

export interface SubcommandSpec {
  name: string;
  usage: string;
  summary: string;
}

export interface ParsedArgs<F extends Flags> {
  values: FlagValues<F>;
  positionals: string[];
}

export interface Command<F extends Flags = Flags> {
  name: string;
  summary: string;
  /** Usage lines, without the leading "devx ". */
  usage: string[];
  flags: F;
  subcommands?: SubcommandSpec[];
  run(args: ParsedArgs<F>): Promise<number>;
}

export function defineCommand<const F extends Flags>(c: Command<F>): Command<F> {
  return c;
}

export function parseFlags<F extends Flags>(flags: F, argv: string[]): ParsedArgs<F> {
  const options = Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, f.short ? { type: f.type, short: f.short } : { type: f.type }]));
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  return { values: values as FlagValues<F>, positionals };
}

const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', desc: 'this help' };

function flagLines(flags: Flags): string[] {
  const rows = Object.entries({ ...flags, help: HELP_FLAG }).map(([name, f]) => [`${f.short ? `-${f.short}, ` : '    '}--${name}${f.type === 'string' ? ` <${f.value ?? 'value'}>` : ''}`, f.desc]);
  const width = Math.max(0, ...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, d]) => `  ${l.padEnd(width)}${d}`);
}

/** `devx <command> --help`, or one subcommand's help. */
export function renderCommandHelp(c: Command, sub?: string): string {
  const s = sub ? c.subcommands?.find((x) => x.name === sub) : undefined;
  if (s) return `devx ${c.name} ${s.name}: ${s.summary}\n\nUsage:\n  devx ${s.usage}\n\nOptions:\n${flagLines(c.flags).join('\n')}\n`;
  const lines = [`devx ${c.name}: ${c.summary}`, '', 'Usage:', ...c.usage.map((u) => `  devx ${u}`)];
  if (c.subcommands?.length) {
    const w = Math.max(...c.subcommands.map((x) => x.name.length)) + 2;
    lines.push('', 'Subcommands (each has --help):', ...c.subcommands.map((x) => `  ${x.name.padEnd(w)}${x.summary}`));
  }
  lines.push('', 'Options:', ...flagLines(c.flags));
  return `${lines.join('\n')}\n`;
}

/** `devx --help`: every command from the table, then the REPL's own options. */
export function renderMainHelp(commands: Command[], repl: Command, footer: string): string {
  const w = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'devx: a coding agent that drives the Gemini CLI through a text tool protocol',
    '',
    'Usage:',
    '  devx [options]                 start the interactive REPL in this project',
    '  devx <command> [args] [options]',
    '',
    'Commands (devx <command> --help for each):',
    ...commands.map((c) => `  ${c.name.padEnd(w)}${c.summary}`),
    '',
    'Options (REPL and run):',
    ...flagLines(repl.flags),
    '',
    footer,
  ].join('\n');
}
