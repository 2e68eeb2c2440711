// The shape of a CLI command. Each command is one module under commands/ and one line in
// commands/index.ts (a CommandEntry); the dispatcher parses its flags and renders its --help from this table.
import { parseArgs } from 'node:util';
import type { ModelBackend } from '../providers/types.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The flag's value in help, e.g. "N" or "PATH". */
  value?: string;
  desc: string;
}

export type Flags = Record<string, FlagSpec>;

/** Parsed flags: strings for flags that take a value, booleans for the others. */
export type FlagValues = Record<string, string | boolean | undefined>;

export interface SubcommandSpec {
  name: string;
  usage: string;
  summary: string;
}

export interface ParsedArgs {
  values: FlagValues;
  positionals: string[];
}

export interface Command {
  name: string;
  summary: string;
  /** Other words that run it: filled from the table (commands/index.ts), not by the module. */
  aliases?: string[];
  /** Usage lines, without the leading "devx ". */
  usage: string[];
  flags: Flags;
  subcommands?: SubcommandSpec[];
  /** `cli` gives the command table, for the commands that describe the others (help, completion); the dispatcher passes it. */
  run(args: ParsedArgs, cli?: CliContext): Promise<number>;
}

/** One line of the command table: the module loads only when the command runs. */
export interface CommandEntry {
  name: string;
  /** Other words that run it (`devx session` = `devx sessions`). */
  aliases?: string[];
  load(): Promise<Command>;
}

export interface CliContext {
  table: CommandEntry[];
  /** Every command of the table, loaded, with its aliases. */
  loadAll(): Promise<Command[]>;
  /** Where the command runs and writes. `run`, `agent` and `task` take all of it; the other commands still use the process's own (test/helpers/runCliHere.ts runs only those that take it). */
  io: CliIo;
}

/** Where a command runs and writes: the process's own, or one given to runCli (an in-process run, a host). */
export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The output streams: a terminal's when the process has one (the renderer asks isTTY and columns). */
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** The model, given instead of the provider's CLI: a session the command starts talks to it. */
  backend?: ModelBackend;
}

/** The process's own working directory, environment and output streams. */
export function processIo(): CliIo {
  return { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr };
}

/** The io the dispatcher gave, else the process's (a command called without the dispatcher). */
export function ioOf(cli: CliContext | undefined): CliIo {
  return cli?.io ?? processIo();
}

export function defineCommand(c: Command): Command {
  return c;
}

const FLAG_LINE = /^\s*(?:-(\w), )?--([\w-]+)(?: <([^>]+)>)?\s{2,}(\S.*)$/;

/**
 * Flags written as they read in --help, one per line: `-m, --model <name>  what it does`. A flag
 * with a <value> takes a string; one without is a switch.
 */
export function flagTable(text: string): Flags {
  const out: Flags = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const m = FLAG_LINE.exec(line);
    if (!m) throw new Error(`bad flag line: ${line}`);
    out[m[2]] = { type: m[3] ? 'string' : 'boolean', ...(m[1] ? { short: m[1] } : {}), ...(m[3] ? { value: m[3] } : {}), desc: m[4].trim() };
  }
  return out;
}

/** Subcommands one per line: `name | usage (without "devx ") | what it does`. */
export function subcommandTable(text: string): SubcommandSpec[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const parts = l.split(' | ').map((p) => p.trim());
      if (parts.length !== 3) throw new Error(`bad subcommand line: ${l}`);
      return { name: parts[0], usage: parts[1], summary: parts[2] };
    });
}

/** Some flags of a shared table. */
export function pickFlags(flags: Flags, ...names: string[]): Flags {
  return Object.fromEntries(names.map((n) => [n, flags[n]]));
}

export function parseFlags(flags: Flags, argv: string[]): ParsedArgs {
  const options = Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, f.short ? { type: f.type, short: f.short } : { type: f.type }]));
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  return { values: values as FlagValues, positionals };
}

const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', desc: 'this help' };

function flagLines(flags: Flags): string[] {
  const rows = Object.entries({ ...flags, help: HELP_FLAG }).map(([name, f]) => [
    `${f.short ? `-${f.short}, ` : '    '}--${name}${f.type === 'string' ? ` <${f.value ?? 'value'}>` : ''}`,
    f.desc,
  ]);
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
    '  devx help [<command> [<subcommand>]]',
    '',
    'Commands (devx <command> --help for each):',
    ...commands.map((c) => `  ${c.name.padEnd(w)}${c.summary}${c.aliases?.length ? ` (also: ${c.aliases.join(', ')})` : ''}`),
    '',
    'Options (REPL and run):',
    ...flagLines(repl.flags),
    '',
    footer,
  ].join('\n');
}
