// Names of MCP tools and their arguments in devx's protocol. Claude Code names a server's tool
// `mcp__<server>__<tool>`; the protocol takes lowercase [a-z0-9_] names and keys, so the Claude Code
// spelling stays an alias (its permission rules and agent files carry over).

/** The protocol name: `mcp__<server>__<tool>`, lowercased, other characters as `_`. */
export function protocolToolName(server: string, tool: string): string {
  const clean = (s: string) => s.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  return `mcp__${clean(server)}__${clean(tool)}`;
}

/** Claude Code's name for the tool (letters, digits, `_` and `-` kept). */
export function claudeToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  return `mcp__${clean(server)}__${clean(tool)}`;
}

/** A JSON Schema property name as a protocol key: camelCase to snake_case, other characters as `_`. */
export function protocolKey(prop: string): string {
  const snake = prop
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');
  return /^[a-z_]/.test(snake) ? snake : `_${snake}`;
}

/** The argument that carries a whole JSON object of arguments (for nested values). */
export const JSON_KEY = 'json';
