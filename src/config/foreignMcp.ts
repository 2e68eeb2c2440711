// MCP servers where users already keep them: Claude Code's project `.mcp.json`, its `~/.claude.json`
// (user servers, and the per-project ones it keeps for this folder), and Gemini CLI's `mcpServers` in
// `~/.gemini/settings.json` and `.gemini/settings.json`. Merged under devx's own (devx's win by name); a
// project's files only once it is trusted. Entries are read in their tool's own shape: keys devx does not
// use are ignored, and an entry devx cannot use is reported with its file and skipped, never fatal.
import path from 'node:path';
import { McpServerSchema, type McpServerEntry } from './mcpSettings.js';
import { readTextIfPresentSync } from '../util/readRegularFileSync.js';

const KEEP = [
  'type',
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'httpUrl',
  'headers',
  'trust',
  'includeTools',
  'excludeTools',
  'timeout',
  'description',
  'disabled',
  'oauth',
  'authProviderType',
];

/** A file's JSON; `links: 'any'` for the user's own files in their home (a project's must be its own file). */
function readJson(file: string, links: 'one' | 'any'): unknown {
  let text: string | undefined;
  try {
    // ~/.claude.json can hold megabytes of history: its own limit. A project's .mcp.json must be its own file.
    text = readTextIfPresentSync(file, 64 * 1024 * 1024, links);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EUNREADABLE') throw err;
    return undefined;
  }
  if (text === undefined) return undefined;
  // ~/.claude.json can be megabytes of history: parsed only when it names servers at all.
  if (!text.includes('"mcpServers"')) return undefined;
  return JSON.parse(text);
}

/** The servers of one file's `mcpServers`, each checked; one devx cannot use is an error line naming the file, and skipped. */
export function entriesOf(servers: unknown, file: string, errors: string[]): McpServerEntry[] {
  if (!servers || typeof servers !== 'object') return [];
  const out: McpServerEntry[] = [];
  for (const [name, raw] of Object.entries(servers as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object') continue;
    const picked = Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([k]) => KEEP.includes(k)));
    // Claude Code writes "type": "stdio" | "http" | "sse"; Gemini CLI has no type.
    const parsed = McpServerSchema.safeParse(picked);
    if (!parsed.success) {
      errors.push(`MCP server "${name}" in ${file}: ${parsed.error.issues[0].path.join('.') || 'entry'}: ${parsed.error.issues[0].message}; skipped`);
      continue;
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) {
      errors.push(`MCP server "${name}" in ${file}: server names are letters, digits, - or _; skipped`);
      continue;
    }
    out.push({ ...parsed.data, name, file });
  }
  return out;
}

export function readForeignMcp(opts: { root: string; userHome: string; trusted: boolean }): {
  user: McpServerEntry[];
  project: McpServerEntry[];
  untrusted: string[];
  errors: string[];
} {
  const errors: string[] = [];
  const isInside = (dir: string, f: string) => !path.relative(dir, f).startsWith('..');
  const safe = (file: string, pick: (j: Record<string, unknown>) => unknown): McpServerEntry[] => {
    try {
      const j = readJson(file, isInside(opts.userHome, file) && !isInside(opts.root, file) ? 'any' : 'one') as Record<string, unknown> | undefined;
      return j ? entriesOf(pick(j), file, errors) : [];
    } catch (err) {
      errors.push(
        `${(err as NodeJS.ErrnoException).code === 'EUNREADABLE' ? (err as Error).message : `${file}: ${(err as Error).message}`}; its MCP servers were not read`,
      );
      return [];
    }
  };
  const claudeUser = path.join(opts.userHome, '.claude.json');
  const user = [
    ...safe(path.join(opts.userHome, '.gemini', 'settings.json'), (j) => j.mcpServers),
    ...safe(claudeUser, (j) => j.mcpServers),
    // Claude Code's "local" servers: the user's own, kept per project in their ~/.claude.json.
    ...safe(claudeUser, (j) => (j.projects as Record<string, { mcpServers?: unknown }> | undefined)?.[opts.root]?.mcpServers),
  ];
  const projectFiles = [path.join(opts.root, '.gemini', 'settings.json'), path.join(opts.root, '.mcp.json')];
  const project = opts.trusted ? projectFiles.flatMap((f) => safe(f, (j) => j.mcpServers)) : [];
  const untrusted = opts.trusted ? [] : projectFiles.flatMap((f) => safe(f, (j) => j.mcpServers).map((e) => `${e.name} (${path.relative(opts.root, f)})`));
  return { user, project, untrusted, errors: opts.trusted ? errors : errors.filter((e) => !projectFiles.some((f) => e.includes(f))) };
}
