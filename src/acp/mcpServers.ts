// The MCP servers an ACP client sends with `session/new` / `session/load`, in the `mcpServers`
// settings shape Claude Code and Gemini CLI use (stdio: command/args/env; HTTP: url/headers). They
// start with the session beside the settings' servers; being the client's, each call asks.
import type * as acp from '@agentclientprotocol/sdk';
import type { McpServerEntry } from '../config/mcpSettings.js';

export type McpServerSetting =
  { command: string; args: string[]; env: Record<string, string> } | { url: string; headers: Record<string, string>; transport: 'http' | 'sse' };

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

/** The same servers as devx entries for the session (untrusted: asked before each call). */
export function mcpFromClient(servers: acp.McpServer[]): McpServerEntry[] {
  return Object.entries(mcpServerSettings(servers)).map(([name, s]) =>
    'url' in s
      ? { name, file: '(the ACP client)', type: s.transport, url: s.url, headers: s.headers }
      : { name, file: '(the ACP client)', command: s.command, args: s.args, env: s.env },
  );
}
