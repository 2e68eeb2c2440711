// One tool of an MCP server as a devx tool: `mcp__<server>__<tool>`, its manual entry generated from
// the server's description and input schema, `k=v` arguments coerced by that schema, the result
// as text. Policy, approval, audit and truncation are runToolCall's, as for every tool.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError, type Location, type Tool } from '../tools/types.js';
import type { McpToolPolicy } from '../policy/types.js';
import { isInside } from '../sandbox/resolvePath.js';
import type { McpServerEntry } from '../config/mcpSettings.js';
import { claudeToolName, JSON_KEY, protocolToolName } from './names.js';
import { argSpecs, ArgumentError, buildArguments, describeType, exampleValue, type ArgSpec, type JsonSchema } from './schemaArgs.js';

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: JsonSchema;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

export type CallTool = (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<{ text: string; isError: boolean }>;

/** Arguments that name files, judged by devx's path policy when the server works inside the project. */
const PATH_KEY = /^(path|paths|file|files|filename|filepath|source|destination|dir|directory|root)$|_?path$|Path$/i;

/**
 * Where a stdio server was pointed: the first existing directory among its arguments and cwd outside
 * the project (a filesystem server's root), and whether any lies inside it.
 */
export function serverRoots(entry: McpServerEntry, root: string, expand: (s: string) => string): { outside?: string; inside: boolean } {
  if (!entry.command) return { inside: false };
  const cwd = entry.cwd ? path.resolve(root, expand(entry.cwd)) : root;
  const candidates = [...(entry.args ?? []).map(expand).filter((a) => !a.startsWith('-')), ...(entry.cwd ? [cwd] : [])];
  let inside = false;
  for (const c of candidates) {
    let real: string;
    try {
      real = fs.realpathSync(path.resolve(cwd, c));
      if (!fs.statSync(real).isDirectory()) continue;
    } catch {
      continue;
    }
    // An extension's server started from its own folder (its code) does not work on that folder.
    if (entry.ownDir && isInside(entry.ownDir, real)) continue;
    if (!isInside(root, real)) return { outside: real, inside };
    inside = true;
  }
  return { inside };
}

function pathValues(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

function renderDescription(server: McpServerEntry, t: ListedTool, specs: ArgSpec[]): string {
  const lines = [(t.description ?? t.annotations?.title ?? '(the server gives no description)').trim()];
  lines.push(
    '',
    `(Tool \`${t.name}\` of the MCP server "${server.name}"${server.description ? `: ${server.description}` : ''}. Arguments are coerced by the server's schema; \`${JSON_KEY}=\` takes a JSON object of arguments, for nested values or all of them at once.)`,
  );
  const nested = specs.filter((s) => describeType(s.schema).includes('(JSON)'));
  if (nested.length) lines.push(`Nested arguments (${nested.map((s) => s.key).join(', ')}) are JSON values.`);
  return lines.join('\n');
}

export function toMcpTool(server: McpServerEntry, t: ListedTool, policy: McpToolPolicy & { judgePaths: boolean }, call: CallTool): Tool {
  const specs = argSpecs(t.inputSchema);
  const name = protocolToolName(server.name, t.name);
  const alias = claudeToolName(server.name, t.name);
  const shape: Record<string, z.ZodType> = { [JSON_KEY]: z.string().optional() };
  for (const s of specs) shape[s.key] = z.string().optional();
  const required = specs.filter((s) => s.required);
  const example = `TOOL_CALL: ${name}${required.map((s) => ` | ${s.key}=${exampleValue(s.schema)}`).join('')}`;
  const intent = t.annotations?.readOnlyHint ? 'read' : 'write';
  return defineTool({
    name,
    needs: ['resolve', 'root', 'signal'],
    aliases: alias !== name ? [alias] : undefined,
    kind: t.annotations?.readOnlyHint ? 'read' : 'execute',
    schema: z.object(shape),
    descriptionFile: '',
    description: renderDescription(server, t, specs),
    example,
    mcp: { server: server.name, trusted: policy.trusted, outsideRoot: policy.outsideRoot },
    manualArgs: [
      ...specs.map((s) => ({
        name: s.key,
        optional: !s.required,
        description: `${describeType(s.schema)}${s.schema.description ? `. ${s.schema.description}` : ''}`,
      })),
      { name: JSON_KEY, optional: true, description: 'a JSON object of arguments (server property names); k=v arguments are applied on top' },
    ],
    locations: policy.judgePaths
      ? (args: Record<string, unknown>): Location[] => {
          let built: Record<string, unknown>;
          try {
            built = buildArguments(specs, args as Record<string, string>);
          } catch {
            built = {};
          }
          return Object.entries(built)
            .filter(([k]) => PATH_KEY.test(k))
            .flatMap(([, v]) => pathValues(v).map((p) => ({ path: p, intent })));
        }
      : undefined,
    async execute(ctx, args) {
      let built: Record<string, unknown>;
      try {
        built = buildArguments(specs, args as Record<string, string>);
      } catch (err) {
        if (err instanceof ArgumentError) throw new ToolError(`invalid arguments for ${name}: ${err.message}. Usage: ${example}`);
        throw err;
      }
      const r = await call(t.name, built, ctx.signal);
      return { content: r.text, isError: r.isError };
    },
  }) as Tool;
}
