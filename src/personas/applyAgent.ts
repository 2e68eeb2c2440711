// Switching persona: an agent's system prompt, tool allowlist (after the permission rules) and model.
import type { LoopDeps } from '../agent/loop.js';
import type { Tool } from '../tools/types.js';
import type { AgentDef } from './loadAgents.js';
import { renderSystemPrompt } from '../agent/systemPrompt.js';

export class AgentConfigError extends Error {}

export function applyAgent(base: LoopDeps, allTools: Tool[], root: string, agent: AgentDef, over: { model?: string; provider?: string } = {}): LoopDeps {
  const provider = over.provider ?? agent.provider ?? 'gemini';
  if (provider !== 'gemini') throw new AgentConfigError(`provider "${provider}" is not available; devx drives the Gemini CLI (provider "gemini")`);
  // An allowlist only narrows: tools the session cannot use stay unavailable.
  const permitted = allTools.filter((t) => base.tools.has(t.name));
  const visible = agent.tools ? permitted.filter((t) => agent.tools!.includes(t.name)) : permitted;
  const role = `\n\n# Your role: the ${agent.name} agent\n${agent.description}\n\n${agent.prompt}\n`;
  return {
    ...base,
    systemPrompt: renderSystemPrompt(root, visible) + role,
    allowedTools: agent.tools ? { agent: agent.name, names: new Set(visible.map((t) => t.name)) } : base.allowedTools,
    model: over.model ?? agent.model ?? base.model,
  };
}
