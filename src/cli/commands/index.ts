// Every CLI command, one table: name, aliases and the module that holds its summary, usage, flags,
// subcommands and run function. A command's module loads only when it runs: a one-shot `devx run`
// loads none of the others. `devx --help`, `devx help`, the REPL's /help footer and `devx completion`
// are all written from this table. Adding a command is a module in this folder and one line here.
import type { Command, CommandEntry } from '../command.js';

export type { CommandEntry };

/** In the order `devx --help` lists them. */
export const COMMAND_TABLE: CommandEntry[] = [
  { name: 'repl', load: async () => (await import('./repl.js')).replCommand },
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  { name: 'agent', load: async () => (await import('./agent.js')).agentCommand },
  { name: 'sessions', aliases: ['session'], load: async () => (await import('./sessions.js')).sessionsCommand },
  { name: 'handoff', load: async () => (await import('./handoff.js')).handoffCommand },
  { name: 'undo', load: async () => (await import('./undo.js')).undoCommand },
  { name: 'memory', load: async () => (await import('./memory.js')).memoryCommand },
  { name: 'policy', load: async () => (await import('./policy.js')).policyCommand },
  { name: 'audit', load: async () => (await import('./audit.js')).auditCommand },
  { name: 'trust', load: async () => (await import('./trust.js')).trustCommand },
  { name: 'protocol', load: async () => (await import('./protocol.js')).protocolCommand },
  { name: 'task', load: async () => (await import('./task.js')).taskCommand },
  { name: 'queue', load: async () => (await import('./queue.js')).queueCommand },
  { name: 'workflow', load: async () => (await import('./workflow.js')).workflowCommand },
  { name: 'mcp', load: async () => (await import('./mcp.js')).mcpCommand },
  { name: 'extensions', aliases: ['extension', 'plugin'], load: async () => (await import('./extensions.js')).extensionsCommand },
  { name: 'help', load: async () => (await import('./help.js')).helpCommand },
  { name: 'completion', aliases: ['completions'], load: async () => (await import('./completion.js')).completionCommand },
];

/** Command name → its module (the table by name). */
export const COMMANDS: Record<string, () => Promise<Command>> = Object.fromEntries(COMMAND_TABLE.map((e) => [e.name, e.load]));

/** The command `devx` runs with no command name. */
export const DEFAULT_COMMAND = 'repl';

/** The entry a word names, by name or alias; undefined for none. */
export function findCommand(word: string | undefined): CommandEntry | undefined {
  if (!word) return undefined;
  return COMMAND_TABLE.find((e) => e.name === word || e.aliases?.includes(word));
}

/** Every command with its aliases, for `devx --help` and completion. */
export function loadAllCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_TABLE.map(async (e) => ({ ...(await e.load()), ...(e.aliases ? { aliases: e.aliases } : {}) })));
}
