// What shell completion knows, taken from the command table: every command and alias, its subcommands,
// its flags (which take a value), and the values of the flags whose values are cheap to know.
import type { Command, FlagSpec } from './command.js';

export interface CompletedFlag {
  long: string;
  short?: string;
  takesValue: boolean;
  desc: string;
  /** The values to offer: a fixed list, or 'agents' (the agent files the shell finds at completion time). */
  values?: string[] | 'agents';
}

export interface CompletedCommand {
  name: string;
  aliases: string[];
  summary: string;
  /** Words the first operand may be: the subcommands, or for help the commands, for completion the shells. */
  operands: { word: string; desc: string }[];
  flags: CompletedFlag[];
}

export interface CompletionSpec {
  commands: CompletedCommand[];
  /** Flags of `devx` with no command word (the REPL's), with --help and --version. */
  topFlags: CompletedFlag[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Values a flag takes, known without asking anything: `--provider`, `--approval-mode`, `--agent`, `<a|b>` value names. */
export interface KnownValues {
  providers: string[];
  approvalModes: string[];
}

function completedFlags(flags: Record<string, FlagSpec>, known: KnownValues): CompletedFlag[] {
  const out: CompletedFlag[] = Object.entries(flags).map(([long, f]) => {
    const takesValue = f.type === 'string';
    let values: CompletedFlag['values'];
    if (long === 'provider') values = known.providers;
    else if (long === 'approval-mode') values = known.approvalModes;
    else if (long === 'agent' && f.value === 'name') values = 'agents';
    else if (f.value?.includes('|')) values = f.value.split('|');
    return { long, ...(f.short ? { short: f.short } : {}), takesValue, desc: f.desc, ...(values ? { values } : {}) };
  });
  out.push({ long: 'help', short: 'h', takesValue: false, desc: 'this help' });
  return out;
}

export function buildCompletionSpec(commands: Command[], known: KnownValues): CompletionSpec {
  const all = commands.map((c): CompletedCommand => {
    let operands = (c.subcommands ?? []).map((s) => ({ word: s.name, desc: s.summary }));
    if (c.name === 'help') operands = commands.map((x) => ({ word: x.name, desc: x.summary }));
    if (c.name === 'completion') operands = SHELLS.map((s) => ({ word: s, desc: `the ${s} script` }));
    return { name: c.name, aliases: c.aliases ?? [], summary: c.summary, operands, flags: completedFlags(c.flags, known) };
  });
  const repl = commands.find((c) => c.name === 'repl');
  const topFlags = [...completedFlags(repl?.flags ?? {}, known), { long: 'version', short: 'v', takesValue: false, desc: "devx's version" }];
  return { commands: all, topFlags };
}
