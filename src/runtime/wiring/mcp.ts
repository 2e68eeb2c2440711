// The MCP servers of one run: they start in the background, and the first turn waits for them (settle), when
// their tools join the run's tools and manual and their prompts its slash commands.
import type { ResolvedSettings } from '../../config/settings.js';
import type { McpServerEntry } from '../../config/mcpSettings.js';
import type { LoadedCommands } from '../../commands/loadCommands.js';
import type { McpManager } from '../../mcp/manager.js';
import { packageVersion } from '../../util/packageRoot.js';
import { settleMcp } from '../settleMcp.js';
import type { Toolset } from './toolset.js';

/** MCP servers start in the background, in parallel, each within its start-up timeout: the session does not
 * wait for them, its first turn does (settle). The MCP client (and its SDK) loads only for a session that has servers. */
export async function launchMcp(
  settings: ResolvedSettings,
  o: { root: string; workDir: string; home: string; env: NodeJS.ProcessEnv; extra?: McpServerEntry[] },
): Promise<McpManager | null> {
  const extra = o.extra ?? [];
  const servers = [...settings.mcpServers.filter((m) => !extra.some((e) => e.name === m.name)), ...extra];
  return servers.length
    ? (await import('../../mcp/manager.js')).McpManager.launch(servers, {
        root: o.root,
        workDir: o.workDir,
        env: o.env,
        version: packageVersion(),
        devxHome: o.home,
      })
    : null;
}

/** The run's settle(): waits for the servers and adds what they offer, the same promise each call. */
export function settleOnce(mcp: McpManager | null, toolset: Toolset, commands: LoadedCommands, renderManual: () => void): () => Promise<string[]> {
  let settled: Promise<string[]> | undefined;
  const { tools, byName, offeredTools, offer } = toolset;
  return () => (settled ??= mcp ? settleMcp(mcp, { tools, byName, offeredTools, offer, commands, renderManual }) : Promise.resolve([]));
}
