// /agent commands inside the REPL, persona switching, and autodelegation suggestions.
import { suggestAgent } from '../personas/suggestAgent.js';
import { formatIssue } from '../personas/loadAgents.js';
import { PersonaError } from '../runtime/agentRun.js';
import type { Started } from '../runtime/startSession.js';
import { UsageError } from './shared.js';
import { agentCommand, runAgentCommand } from './commands/agent.js';
import type { Ask } from './agentScaffold.js';
import { parseFlags, renderCommandHelp } from './command.js';
import { pickerItems, type PickItem } from './agentPicker.js';
import { escapeControls } from '../util/terminalText.js';

/** Switches the session's persona (prompt, tools, model); "default" goes back to plain devx. */
export function switchAgent(s: Started, name: string): string {
  if (name === 'default' || name === 'none') {
    s.run.usePersona(null);
    return 'Back to plain devx (no persona).';
  }
  try {
    const def = s.run.usePersona(name)!;
    return `Now working as ${def.name}${def.tools ? ` (tools: ${def.tools.join(', ')})` : ''}${def.model ? `, model ${def.model}` : ''}.`;
  } catch (err) {
    if (err instanceof PersonaError) return err.message;
    throw err;
  }
}

/**
 * `/agent` alone (or `/agent pick`) opens the picker when there is a terminal (`pick` set), else lists.
 * `ask` reads the answers of /agent create and /agent init through the REPL's own input.
 */
export async function handleAgentSlash(
  input: string,
  s: Started,
  out: NodeJS.WritableStream,
  pick?: (items: PickItem[]) => Promise<string | null>,
  ask?: Ask,
): Promise<number> {
  const words = (input.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
  let [cmd, ...rest] = words;
  // /agent:start, /agent:run, /agent:status are the seed's spellings.
  if (cmd.startsWith('/agent:')) rest = [cmd.slice('/agent:'.length), ...rest];
  if (rest[0] === 'use') {
    out.write(`${switchAgent(s, rest[1] ?? '')}\n`);
    return 0;
  }
  if (pick && (!rest.length || (rest.length === 1 && rest[0] === 'pick'))) {
    const loaded = s.run.loadAgents();
    for (const e of loaded.errors) out.write(`error: ${escapeControls(formatIssue(e))}\n`);
    const name = await pick(pickerItems(loaded));
    out.write(name ? `${switchAgent(s, name)}\n` : '(no agent chosen)\n');
    return 0;
  }
  if (!rest.length) rest = ['list'];
  if (rest.includes('--help') || rest.includes('-h')) {
    out.write(renderCommandHelp(agentCommand, rest[0]));
    return 0;
  }
  try {
    return await runAgentCommand(parseFlags(agentCommand.flags, rest), { ask });
  } catch (err) {
    if (!(err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith?.('ERR_PARSE_ARGS'))) throw err;
    out.write(`${(err as Error).message}\n`);
    return 2;
  }
}

/** Suggests (or, when opted in, offers to apply) the agent whose description fits the prompt. */
export async function maybeDelegate(input: string, s: Started, out: NodeJS.WritableStream, ask: (() => Promise<string | null>) | null): Promise<void> {
  const mode = s.run.agent.settings.autoDelegate;
  if (mode === 'off' || s.run.persona) return;
  const best = suggestAgent(input, [...s.run.loadAgents().agents.values()]);
  if (!best) return;
  if (mode === 'apply' && ask) {
    out.write(escapeControls(`The ${best.agent.name} agent fits this (${best.agent.description}). Use it? [Y/n] `));
    const a = ((await ask()) ?? 'n').trim().toLowerCase();
    if (a === '' || a === 'y' || a === 'yes') out.write(`${switchAgent(s, best.agent.name)}\n`);
    return;
  }
  out.write(`(tip: the ${best.agent.name} agent fits this; /agent use ${best.agent.name})\n`);
}
