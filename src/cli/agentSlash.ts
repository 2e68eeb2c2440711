// /agent commands inside the REPL, persona switching, and autodelegation suggestions.
import { loadAgents } from '../agents/loadAgents.js';
import { applyAgent, AgentConfigError } from '../agents/applyAgent.js';
import { suggestAgent } from '../agents/suggestAgent.js';
import { runAgentCommand } from './agentCommand.js';
import type { Started } from './startSession.js';
import { UsageError } from './runCli.js';
import { renderSystemPrompt } from '../agent/systemPrompt.js';

const baseDeps = new WeakMap<object, Started['agent']['deps']>();

/** Switches the session's persona (prompt, tools, model); "default" goes back to plain devx. */
export function switchAgent(s: Started, name: string): string {
  if (!baseDeps.has(s)) baseDeps.set(s, s.agent.deps);
  const base = baseDeps.get(s)!;
  if (name === 'default' || name === 'none') {
    s.agent.deps = { ...base, systemPrompt: renderSystemPrompt(s.agent.root, s.agent.tools) };
    s.agent.activeAgent = undefined;
    return 'Back to the default devx persona.';
  }
  const def = loadAgents(s.agent.root, s.agent.userHome, s.agent.devxHome).agents.get(name);
  if (!def) return `no agent named "${name}"; /agent list shows them`;
  try {
    s.agent.deps = applyAgent(base, s.agent.tools, s.agent.root, def);
  } catch (err) {
    if (err instanceof AgentConfigError) return err.message;
    throw err;
  }
  s.agent.activeAgent = def.name;
  return `Now working as ${def.name}${def.tools ? ` (tools: ${def.tools.join(', ')})` : ''}${def.model ? `, model ${def.model}` : ''}.`;
}

export async function handleAgentSlash(input: string, s: Started, out: NodeJS.WritableStream): Promise<void> {
  const words = (input.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
  let [cmd, ...rest] = words;
  // /agent:start, /agent:run, /agent:status are the seed's spellings.
  if (cmd.startsWith('/agent:')) rest = [cmd.slice('/agent:'.length), ...rest];
  if (rest[0] === 'use') {
    out.write(`${switchAgent(s, rest[1] ?? '')}\n`);
    return;
  }
  if (!rest.length) rest = ['list'];
  try {
    await runAgentCommand(rest);
  } catch (err) {
    if (err instanceof UsageError) out.write(`${err.message}\n`);
    else throw err;
  }
}

/** Suggests (or, when opted in, offers to apply) the agent whose description fits the prompt. */
export async function maybeDelegate(input: string, s: Started, out: NodeJS.WritableStream, ask: (() => Promise<string | null>) | null): Promise<void> {
  const mode = s.agent.settings.autoDelegate;
  if (mode === 'off' || s.agent.activeAgent) return;
  const best = suggestAgent(input, [...loadAgents(s.agent.root, s.agent.userHome, s.agent.devxHome).agents.values()]);
  if (!best) return;
  if (mode === 'apply' && ask) {
    out.write(`The ${best.agent.name} agent fits this (${best.agent.description}). Use it? [Y/n] `);
    const a = ((await ask()) ?? 'n').trim().toLowerCase();
    if (a === '' || a === 'y' || a === 'yes') out.write(`${switchAgent(s, best.agent.name)}\n`);
    return;
  }
  out.write(`(tip: the ${best.agent.name} agent fits this; /agent use ${best.agent.name})\n`);
}
