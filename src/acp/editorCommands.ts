// devx's own slash commands offered to an ACP editor (/compact, /undo, /clear, ...): announced with the
// custom commands and MCP prompts as the session's available commands, and run when a prompt names one.
// The commands come from the CLI's slash table (cli/editorCommands.ts hands them in: acp cannot import cli).
import type * as acp from '@agentclientprotocol/sdk';
import type { LoadedCommands } from '../commands/loadCommands.js';
import type { Started } from '../runtime/startSession.js';
import { BUILTIN_COMMANDS } from '../runtime/customCommands.js';

export interface EditorCommand {
  name: string;
  description: string;
  /** What the arguments are, when it takes any. */
  hint?: string;
  /** `/name:…` forms it also takes (`agent:` for /agent:start). */
  prefixes?: string[];
  /** Not announced to the editor (a REPL-only command, run only to say so). */
  unlisted?: boolean;
  /** Runs it; what it says goes to the editor through `write`. */
  run(started: Started, args: string, line: string, io: { write(text: string): void; signal: AbortSignal }): Promise<void>;
}

/** The available commands: devx's own, then the custom commands and MCP prompts (a custom one with a devx name by its scope). */
export function availableCommands(own: EditorCommand[], custom: LoadedCommands): acp.AvailableCommand[] {
  const taken = new Set([...own.map((c) => c.name), ...BUILTIN_COMMANDS]);
  const list: acp.AvailableCommand[] = own
    .filter((c) => !c.unlisted)
    .map((c) => ({ name: c.name, description: c.description, ...(c.hint ? { input: { hint: c.hint } } : {}) }));
  const customs = [...custom.commands.values()].sort((a, b) => a.name.localeCompare(b.name));
  for (const c of customs)
    list.push({
      name: taken.has(c.name) ? `${c.scope}:${c.name}` : c.name,
      description: c.description || `custom command (${c.scope})`,
      input: { hint: c.argumentHint ?? 'arguments' },
    });
  return list;
}

/** The devx command a prompt's text names (`/compact`, `/undo 2`), with its arguments; null for anything else. */
export function findEditorCommand(own: EditorCommand[], text: string): { command: EditorCommand; args: string; line: string } | null {
  const line = text.trim();
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line);
  if (!m || line.includes('\n')) return null;
  const command = own.find((c) => c.name === m[1] || c.prefixes?.some((p) => m[1].startsWith(p)));
  return command ? { command, args: (m[2] ?? '').trim(), line } : null;
}
