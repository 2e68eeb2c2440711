// `@server:uri` in a message attaches an MCP server's resource (Claude Code's syntax, e.g.
// `@docs:file:///guide.md`): its text is added to the message, and the mention stays as written.
import type { McpManager } from '../mcp/manager.js';

const MENTION = /(^|\s)@([A-Za-z0-9][A-Za-z0-9_-]*):([a-z][a-z0-9+.-]*:\/\/\S+)/g;

export async function attachResources(
  input: string,
  mcp: McpManager | null,
  signal: AbortSignal,
): Promise<{ ok: true; input: string } | { ok: false; message: string }> {
  if (!mcp || !input.includes('@')) return { ok: true, input };
  const servers = new Set(mcp.statuses().map((s) => s.name));
  const blocks: string[] = [];
  for (const m of input.matchAll(MENTION)) {
    const [, , server, uri] = m;
    if (!servers.has(server)) continue;
    try {
      blocks.push(`[resource ${server}:${uri}]\n${await mcp.readResource(server, uri, signal)}`);
    } catch (err) {
      return { ok: false, message: `@${server}:${uri} could not be attached: ${(err as Error).message.split('\n')[0]}` };
    }
  }
  return { ok: true, input: blocks.length ? `${input}\n\n${blocks.join('\n\n')}` : input };
}
