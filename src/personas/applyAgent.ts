// Switching persona: an agent's system prompt, tool allowlist (after the permission rules), model
// and provider.
import type { LoopDeps } from '../core/loop.js';
import type { ModelBackend } from '../providers/types.js';
import type { Tool } from '../tools/types.js';
import type { AgentDef } from './loadAgents.js';
import { renderSystemPrompt } from '../core/systemPrompt.js';
import { toolNameMatches } from '../policy/permissions.js';

export class AgentConfigError extends Error {}

export interface PersonaOverrides {
  model?: string;
  provider?: string;
  /** The backend of another provider (the runtime creates it); absent means the session's own. */
  backendFor?: (provider: string) => ModelBackend;
}

export function applyAgent(base: LoopDeps, allTools: Tool[], root: string, agent: AgentDef, over: PersonaOverrides = {}): LoopDeps {
  const provider = over.provider ?? agent.provider;
  let backend = base.backend;
  if (provider !== undefined && over.backendFor) {
    try {
      backend = over.backendFor(provider);
    } catch (err) {
      throw new AgentConfigError(`${agent.file}: ${(err as Error).message}`);
    }
  }
  // An allowlist only narrows: tools the session cannot use stay unavailable.
  const permitted = allTools.filter((t) => base.tools.has(t.name));
  const visible = agent.tools ? permitted.filter((t) => agent.tools!.some((n) => toolNameMatches(n, t))) : permitted;
  const role = `\n\n# Your role: the ${agent.name} agent\n${agent.description}\n\n${agent.prompt}\n`;
  return {
    ...base,
    backend,
    systemPrompt: renderSystemPrompt(root, visible) + role,
    allowedTools: agent.tools ? { agent: agent.name, names: new Set(visible.map((t) => t.name)) } : base.allowedTools,
    model: over.model ?? agent.model ?? base.model,
  };
}
