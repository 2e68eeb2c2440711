// devx's tool calls in Agent Client Protocol terms: the kind, title and locations of a call, its
// result as content, edits as diffs; and an ACP client's MCP servers as devx server entries.
import fs from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import type { Tool } from '../../tools/types.js';
import { describeCall } from '../../tools/types.js';
import type { McpServerEntry } from '../../config/mcpSettings.js';

const SEARCH_TOOLS = new Set(['list_directory', 'glob', 'search_code']);

export function toolKind(tool: Tool | undefined): acp.ToolKind {
  if (!tool) return 'other';
  if (SEARCH_TOOLS.has(tool.name)) return 'search';
  return ({ read: 'read', write: 'edit', execute: 'execute', meta: 'other' } as const)[tool.kind];
}

export function toolLocations(tool: Tool | undefined, args: Record<string, unknown>, root: string): acp.ToolCallLocation[] {
  try {
    return (tool?.locations?.(args) ?? []).map((l) => ({ path: path.resolve(root, l.path) }));
  } catch {
    return [];
  }
}

/** An edit or a write as a diff of the text it replaces (the whole file for a write). */
export function diffOf(tool: string, args: Record<string, unknown>, root: string): acp.ToolCallContent | null {
  const p = typeof args.path === 'string' ? path.resolve(root, args.path) : null;
  if (!p) return null;
  if (tool === 'edit_file' && typeof args.old_text === 'string' && typeof args.new_text === 'string') return { type: 'diff', path: p, oldText: args.old_text, newText: args.new_text };
  if (tool === 'write_file' && typeof args.content === 'string') {
    let old: string | null = null;
    try {
      old = fs.readFileSync(p, 'utf8');
    } catch {
      /* a new file */
    }
    return { type: 'diff', path: p, oldText: old, newText: args.content };
  }
  return null;
}

export function toolCallStart(id: string, tool: Tool | undefined, name: string, args: Record<string, unknown>, root: string): acp.ToolCall {
  const diff = diffOf(name, args, root);
  return { toolCallId: id, title: describeCall(tool, name, args), kind: toolKind(tool), status: 'pending', locations: toolLocations(tool, args, root), rawInput: args, ...(diff ? { content: [diff] } : {}) };
}

export const text = (t: string): acp.ContentBlock => ({ type: 'text', text: t });

/** The servers an ACP client passes with session/new, as devx entries (asked before each call, like any untrusted server). */
export function mcpFromClient(servers: acp.McpServer[]): McpServerEntry[] {
  return servers.map((s) => {
    const pairs = (list: { name: string; value: string }[] | undefined) => Object.fromEntries((list ?? []).map((h) => [h.name, h.value]));
    const file = '(the ACP client)';
    if ('type' in s && (s.type === 'http' || s.type === 'sse')) return { name: s.name, file, type: s.type, url: s.url, headers: pairs(s.headers) };
    const stdio = s as acp.McpServerStdio;
    return { name: stdio.name, file, command: stdio.command, args: stdio.args, env: pairs(stdio.env) };
  });
}

/** The user's text of a prompt (resources and images by their uri). */
export function promptText(blocks: acp.ContentBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'resource_link') return `[${b.name}](${b.uri})`;
      if (b.type === 'resource' && 'text' in b.resource) return `${b.resource.uri}:\n${b.resource.text}`;
      return `[${b.type}]`;
    })
    .join('\n');
}
