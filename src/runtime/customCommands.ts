// Running a custom slash command (commands/): its text with the arguments put in, and each injection
// fetched through the tool wrapper as a call the model might have made, so the policy, confirmations and
// the audit log apply to `!{git diff}` and `@{src/app.ts}` exactly as to run_command and read_file.
import { expandCommand, promptArgs } from '../commands/expandCommand.js';
import { loadCustomCommands, type CustomCommand, type LoadedCommands } from '../commands/loadCommands.js';
import type { AgentEvent, LoopDeps } from '../core/loop.js';
import { runToolCall } from '../tools/runToolCall.js';
import type { FileWarning } from '../session/toldOnce.js';

/** devx's own slash commands: a custom command of the same name is reachable only as /user:… or /project:….
 * The names of cli/slashCommands.ts's table (the runtime cannot import cli); test/unit/slashCommands.test.ts holds them equal. */
export const BUILTIN_COMMANDS = [
  'help',
  'tools',
  'mcp',
  'history',
  'todos',
  'resume',
  'clear',
  'compact',
  'undo',
  'plan',
  'bg',
  'stats',
  'context',
  'agent',
  'workflow',
  'memory',
  'edit',
  'exit',
  'quit',
  'drop',
];
const isBuiltin = (name: string, extra: string[]) => extra.includes(name) || BUILTIN_COMMANDS.includes(name) || /^(agent|workflow):/.test(name);

/**
 * The custom commands this session may use, with the lines to say at start: `fileWarnings` about one file
 * (did not load, its name taken by devx's own command), said once per version of the file; `warnings` each time.
 */
export function customCommandsFor(
  opts: { root: string; home: string; devxHome: string; trusted: boolean; importSetup?: boolean },
  builtins: string[],
): { loaded: LoadedCommands; warnings: string[]; fileWarnings: FileWarning[] } {
  const loaded = loadCustomCommands(opts);
  const fileWarnings: FileWarning[] = loaded.errors.map((e) => ({
    file: e.file,
    text: `custom command ${e.file}${e.line ? `:${e.line}` : ''} was not loaded: ${e.message}`,
  }));
  const warnings: string[] = [];
  if (loaded.untrusted.length)
    warnings.push(
      `this project has custom commands (${loaded.untrusted.slice(0, 5).join(', ')}${loaded.untrusted.length > 5 ? `, and ${loaded.untrusted.length - 5} more` : ''}); run \`devx trust\` to allow them`,
    );
  for (const n of loaded.notes ?? []) fileWarnings.push({ file: n.file, text: n.message });
  for (const c of loaded.commands.values()) {
    if (isBuiltin(c.name, builtins))
      fileWarnings.push({ file: c.file, text: `/${c.name} (${c.file}) has the name of a devx command, which wins; run it as /${prefixOf(c)}:${c.name}` });
  }
  return { loaded, warnings, fileWarnings };
}

/** What a custom command's name is prefixed with when a devx command has its name: its scope, or its extension's name. */
const prefixOf = (c: Pick<CustomCommand, 'scope' | 'extension'>) => (c.scope === 'extension' ? c.extension : c.scope);

/** The name a custom command runs under: its own, or /user:…, /project:… and /<extension>:… when a devx command has its name. */
export function nameThatRuns(c: Pick<CustomCommand, 'name' | 'scope' | 'extension'>): string {
  return isBuiltin(c.name, []) && c.scope !== 'mcp' ? `${prefixOf(c)}:${c.name}` : c.name;
}

/** An MCP server's prompts as slash commands (`/mcp__<server>__<prompt>`, Claude Code's spelling). */
export function addMcpPrompts(
  loaded: LoadedCommands,
  prompts: { server: string; name: string; description: string; arguments: { name: string; required: boolean }[] }[],
): void {
  for (const p of prompts) {
    const name = `mcp__${p.server}__${p.name}`.replace(/[^A-Za-z0-9_.:-]/g, '_');
    if (loaded.commands.has(name)) continue;
    const hint = p.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
    loaded.commands.set(name, {
      name,
      description: p.description || `prompt ${p.name} of the MCP server ${p.server}`,
      body: '',
      syntax: 'mcp',
      scope: 'mcp',
      file: `MCP server ${p.server}`,
      ...(hint ? { argumentHint: hint } : {}),
      mcp: { server: p.server, prompt: p.name, args: p.arguments },
    });
  }
}

/** The command a `/name args` line names: by name, or by `/user:name`, `/project:name` and `/<extension>:name`. */
export function findCustomCommand(loaded: LoadedCommands, line: string): { cmd: CustomCommand; args: string } | null {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!m) return null;
  // devx's own /agent:… and /workflow:… are never an extension's.
  const scoped = isBuiltin(m[1], []) ? null : /^([A-Za-z0-9][A-Za-z0-9_-]*):(.+)$/.exec(m[1]);
  const plain = isBuiltin(m[1], []) ? undefined : loaded.commands.get(m[1]);
  const cmd = plain ?? (scoped ? [...loaded.commands.values()].find((c) => c.scope !== 'mcp' && prefixOf(c) === scoped[1] && c.name === scoped[2]) : undefined);
  return cmd ? { cmd, args: (m[2] ?? '').trim() } : null;
}

function shellOutput(content: string): string {
  const out = /(?:^|\n)stdout:\n([\s\S]*?)(?:\nstderr:\n([\s\S]*))?$/.exec(content);
  if (!out) return content;
  return `${out[1].trimEnd()}${out[2]?.trim() ? `\n[stderr]\n${out[2].trimEnd()}` : ''}`;
}

/** The message the command sends, or why it cannot (an injection refused or failed). */
export async function expandCustomCommand(
  cmd: CustomCommand,
  args: string,
  deps: LoopDeps,
  emit: (e: AgentEvent) => void,
  signal: AbortSignal,
  mcp?: { getPrompt(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<string> } | null,
): Promise<{ text: string } | { error: string }> {
  if (cmd.syntax === 'mcp' && cmd.mcp) {
    const filled = promptArgs(cmd.mcp.args, args);
    if ('missing' in filled)
      return { error: `/${cmd.name} needs ${filled.missing.join(', ')} (its arguments, in order: ${cmd.mcp.args.map((a) => a.name).join(' ')})` };
    try {
      return { text: (await mcp!.getPrompt(cmd.mcp.server, cmd.mcp.prompt, filled.values, signal)).trim() };
    } catch (err) {
      return { error: `/${cmd.name}: the MCP server "${cmd.mcp.server}" did not give its prompt: ${(err as Error).message}` };
    }
  }
  let text = '';
  const ctxDeps = { ...deps, ctx: { ...deps.ctx, signal } };
  for (const part of expandCommand(cmd, args)) {
    if ('text' in part) {
      text += part.text;
      continue;
    }
    const call: { tool: string; args: Record<string, string> } =
      'shell' in part ? { tool: 'run_command', args: { cmd: part.shell } } : { tool: 'read_file', args: { path: part.file } };
    emit({ type: 'tool_start', tool: call.tool, args: call.args });
    const o = await runToolCall(call, ctxDeps);
    emit({ type: 'tool_end', outcome: o });
    if ('file' in part && o.status === 'error' && /file not found/.test(o.content) && cmd.syntax === 'claude') {
      text += part.raw; // `@name` that is no file stays as written
      continue;
    }
    if (o.status === 'error' && !('shell' in part && /^exit_code=/m.test(o.content))) {
      return {
        error: `/${cmd.name}: ${'shell' in part ? `its command \`${part.shell}\`` : `its file ${part.file}`} was not used: ${o.content.split('\n')[0]}`,
      };
    }
    text += 'shell' in part ? shellOutput(o.content) : o.content;
  }
  return { text: text.trim() };
}
