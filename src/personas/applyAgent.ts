// Switching persona: an agent's system prompt, tool allowlist (after the permission rules), model
// and provider.
import type { LoopDeps } from '../core/loop.js';
import type { ModelBackend } from '../providers/types.js';
import type { Tool } from '../tools/types.js';
import type { AgentDef } from './loadAgents.js';
import { renderSystemPrompt } from '../core/systemPrompt.js';
import { AGENT_TOOL_PREFIX } from '../tools/agentTool.js';
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
  // `agent:<name>` entries make those agents callable through the agent tool; MCP names match by pattern.
  const callable = callableAgents(agent);
  const listed = (t: Tool) => agent.tools!.some((n) => toolNameMatches(n, t)) || (t.name === 'agent' && callable.length > 0);
  const visible = agent.tools ? permitted.filter(listed) : permitted.filter((t) => !t.onlyWhenListed);
  // Inside a sub-agent the agent tool is not offered (depth limit), so the role names no callees.
  if (!visible.some((t) => t.name === 'agent')) callable.length = 0;
  const calls = callable.length ? `\nYou may call these agents with the agent tool: ${callable.join(', ')}.\n` : '';
  const role = `\n\n# Your role: the ${agent.name} agent\n${agent.description}\n\n${agent.prompt}\n${calls}`;
  return {
    ...base,
    backend,
    systemPrompt: renderSystemPrompt(root, visible) + role,
    ctx: { ...base.ctx, callableAgents: callable },
    allowedTools: agent.tools ? { agent: agent.name, names: new Set(visible.map((t) => t.name)) } : base.allowedTools,
    model: over.model ?? agent.model ?? base.model,
  };
}

/** The agents an agent may call: its `agent:<name>` tools entries. */
export function callableAgents(agent: Pick<AgentDef, 'tools'>): string[] {
  return (agent.tools ?? []).filter((t) => t.startsWith(AGENT_TOOL_PREFIX)).map((t) => t.slice(AGENT_TOOL_PREFIX.length));
}
