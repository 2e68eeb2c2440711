// Every CLI command, each loaded only when it runs: a one-shot `devx run` loads none of the others
// (the task queue, workflows, MCP and the rest stay on disk). Adding a command is a module in this
// folder and one line here.
import type { Command } from '../command.js';

/** Command name → its module, in the order `devx --help` lists them. */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  repl: async () => (await import('./repl.js')).replCommand,
  run: async () => (await import('./run.js')).runCommand,
  agent: async () => (await import('./agent.js')).agentCommand,
  sessions: async () => (await import('./sessions.js')).sessionsCommand,
  handoff: async () => (await import('./handoff.js')).handoffCommand,
  undo: async () => (await import('./undo.js')).undoCommand,
  memory: async () => (await import('./memory.js')).memoryCommand,
  policy: async () => (await import('./policy.js')).policyCommand,
  audit: async () => (await import('./audit.js')).auditCommand,
  trust: async () => (await import('./trust.js')).trustCommand,
  protocol: async () => (await import('./protocol.js')).protocolCommand,
  task: async () => (await import('./task.js')).taskCommand,
  workflow: async () => (await import('./workflow.js')).workflowCommand,
  mcp: async () => (await import('./mcp.js')).mcpCommand,
};

/** The command `devx` runs with no command name. */
export const DEFAULT_COMMAND = 'repl';

/** Every command, for `devx --help`. */
export function loadAllCommands(): Promise<Command[]> {
  return Promise.all(Object.values(COMMANDS).map((load) => load()));
}
