// The session's MCP servers start in the background (mcp/manager.ts) while devx starts; the first turn
// waits for them here. Their tools join the agent's tools and manual, their prompts its slash commands,
// and a server that did not start becomes one warning, handed out once.
import type { McpManager } from '../mcp/manager.js';
import type { Tool } from '../tools/types.js';
import type { LoadedCommands } from '../commands/loadCommands.js';
import { addMcpPrompts } from './customCommands.js';

export interface McpParts {
  tools: Tool[];
  byName: Map<string, Tool>;
  offeredTools: Tool[];
  /** Whether the model is told about a tool (no bare deny rule, not a write in plan mode). */
  offer: (t: Tool) => boolean;
  commands: LoadedCommands;
  /** Renders the manual again from offeredTools. */
  renderManual: () => void;
}

export async function settleMcp(mcp: McpManager, parts: McpParts): Promise<string[]> {
  await mcp.ready;
  const added = mcp.tools.filter((t) => !parts.byName.has(t.name));
  for (const t of added) {
    parts.tools.push(t);
    parts.byName.set(t.name, t);
    if (parts.offer(t)) parts.offeredTools.push(t);
  }
  addMcpPrompts(parts.commands, mcp.prompts);
  if (added.length) parts.renderManual();
  return mcp
    .statuses()
    .filter((m) => m.state === 'failed')
    .map((m) => `MCP server "${m.name}" (${m.file}) did not start: ${m.error}; its tools are unavailable this session`);
}
