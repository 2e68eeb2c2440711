// The MCP servers an ACP client sends with `session/new` / `session/load`, in the `mcpServers`
// settings shape Claude Code and Gemini CLI use (stdio: command/args/env; HTTP: url/headers). devx
// does not start MCP servers on this branch: sessions keep these for whatever starts them.
import type * as acp from '@agentclientprotocol/sdk';

export type McpServerSetting =
  | { command: string; args: string[]; env: Record<string, string> }
  | { url: string; headers: Record<string, string>; transport: 'http' | 'sse' };

const pairs = (list: { name: string; value: string }[]) => Object.fromEntries(list.map((p) => [p.name, p.value]));

export function mcpServerSettings(servers: acp.McpServer[]): Record<string, McpServerSetting> {
  const out: Record<string, McpServerSetting> = {};
  for (const s of servers) {
    if ('type' in s && (s.type === 'http' || s.type === 'sse')) out[s.name] = { url: s.url, headers: pairs(s.headers ?? []), transport: s.type };
    else {
      const stdio = s as acp.McpServerStdio;
      out[stdio.name] = { command: stdio.command, args: stdio.args ?? [], env: pairs(stdio.env ?? []) };
    }
  }
  return out;
}
