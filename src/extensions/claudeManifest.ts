// A Claude Code plugin, read as Claude Code reads one: .claude-plugin/plugin.json (name required; version,
// description; commands, agents, skills, hooks and mcpServers may name more paths or hold inline config), and
// the default folders beside it: commands/**/*.md (each `/<plugin>:<command>`), agents/*.md,
// skills/<name>/SKILL.md, hooks/hooks.json and .mcp.json. ${CLAUDE_PLUGIN_ROOT} is filled in hooks and
// servers, and given to them as a variable too. Servers are named as Claude Code names their tools:
// `plugin_<plugin>_<server>` (tools `mcp__plugin_<plugin>_<server>__<tool>`).
import path from 'node:path';
import * as z from 'zod';
import { filesUnder } from '../util/filesUnder.js';
import { commandsIn, insideBundle, pathList, readBundleJson, schemaError, skillFoldersIn } from './bundleParts.js';
import { claudeVariables, fillVariables } from './variables.js';
import { EXTENSION_NAME, ManifestError, type Bundle, type BundleCommand } from './types.js';

export const CLAUDE_MANIFEST = path.join('.claude-plugin', 'plugin.json');

const PathOrPaths = z.union([z.string().min(1), z.array(z.string().min(1))], { error: 'must be a path or a list of paths' });

// Built on first use, as settings' schemas are.
const ClaudeManifestSchema = z.lazy(() =>
  z
    .object({
      name: z
        .string({ error: 'is required (the plugin\'s name: letters, digits, "-" or "_")' })
        .regex(EXTENSION_NAME, 'must be letters, digits, "-" or "_" (at most 64), starting with a letter or digit'),
      version: z.string().optional(),
      description: z.string().optional(),
      commands: PathOrPaths.optional(),
      agents: PathOrPaths.optional(),
      skills: PathOrPaths.optional(),
      hooks: z.union([z.string().min(1), z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'must be a path or hooks' }).optional(),
      mcpServers: z.union([z.string().min(1), z.record(z.string(), z.unknown()), z.array(z.unknown())], { error: 'must be a path or servers' }).optional(),
    })
    .passthrough(),
);

export type ClaudeManifest = z.infer<typeof ClaudeManifestSchema>;

/** plugin.json, checked: a ManifestError names the file and key when it is not one devx can use. */
export function parseClaudeManifest(raw: unknown, file: string): ClaudeManifest {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ManifestError(file, '', 'must be a JSON object');
  const parsed = ClaudeManifestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(file, parsed.error);
  return parsed.data;
}

/** What a marketplace entry says of a plugin that has no plugin.json of its own. */
export interface PluginFallback {
  name: string;
  version?: string;
  description?: string;
  /** The marketplace file the entry is in. */
  file: string;
}

/** The plugin in `dir`; without plugin.json, `fallback` (its marketplace entry) names it. Its variables name `installedAt`. */
export function readClaudeBundle(dir: string, fallback?: PluginFallback, installedAt = dir): Bundle {
  const file = path.join(dir, CLAUDE_MANIFEST);
  const raw = readBundleJson(file);
  if (raw === undefined && !fallback) throw new ManifestError(file, '', 'not found: a Claude Code plugin has .claude-plugin/plugin.json');
  const m: ClaudeManifest =
    raw === undefined ? { name: fallback!.name, version: fallback!.version, description: fallback!.description } : parseClaudeManifest(raw, file);
  const vars = claudeVariables(installedAt);
  const issues: string[] = [];
  const paths = (key: 'commands' | 'agents' | 'skills', dflt: string) => [path.join(dir, dflt), ...named(dir, file, key, pathList(m[key]), issues)];
  return {
    name: m.name,
    ...(m.version ? { version: m.version } : {}),
    ...(m.description ? { description: m.description } : {}),
    format: 'claude',
    dir,
    manifestFile: raw === undefined ? fallback!.file : file,
    mcpServers: pluginServers(dir, file, m, vars, issues),
    hooks: pluginHooks(dir, file, m, vars, issues),
    env: { ...vars },
    commands: unique(paths('commands', 'commands').flatMap((p) => commandsAt(p, m.name, issues))),
    skills: [...new Set(paths('skills', 'skills').flatMap((p) => skillFoldersIn(p)))],
    agents: [...new Set(paths('agents', 'agents').flatMap((p) => (p.endsWith('.md') ? [p] : filesUnder(p, ['.md']))))],
    contextFiles: [],
    excludeTools: [],
    issues,
  };
}

/** The paths a manifest key names, kept inside the plugin. */
function named(dir: string, file: string, key: string, rels: string[], issues: string[]): string[] {
  return rels.flatMap((rel) => {
    const p = insideBundle(dir, rel);
    if (!p) issues.push(`${file}: "${key}": ${rel} leads outside the plugin; skipped`);
    return p ? [p] : [];
  });
}

/** A commands folder, or one command file, under the plugin's name. */
function commandsAt(p: string, plugin: string, issues: string[]): BundleCommand[] {
  if (p.endsWith('.md')) return [{ name: `${plugin}:${path.basename(p, '.md')}`, file: p }];
  return commandsIn(p, ['.md'], plugin, issues);
}

function unique(list: BundleCommand[]): BundleCommand[] {
  const seen = new Set<string>();
  return list.filter((c) => !seen.has(c.file) && seen.add(c.file));
}

/** A JSON value holding servers or hooks: `{ "<key>": {…} }` or the bare object. */
function unwrap(v: unknown, key: string): unknown {
  const inner = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return inner && typeof inner === 'object' && !Array.isArray(inner) ? inner : v;
}

/** The values a manifest key holds inline or in the files it names (default file first), each with its file. */
function sources(dir: string, file: string, dflt: string, value: unknown, key: string, issues: string[]): { value: unknown; file: string }[] {
  const out: { value: unknown; file: string }[] = [];
  const files = new Set<string>([path.join(dir, dflt)]);
  for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
    if (typeof v === 'string') named(dir, file, key, [v], issues).forEach((p) => files.add(p));
    else out.push({ value: v, file });
  }
  for (const f of files) {
    try {
      const raw = readBundleJson(f);
      if (raw !== undefined) out.unshift({ value: raw, file: f });
    } catch (err) {
      issues.push(`${(err as Error).message}; skipped`);
    }
  }
  return out;
}

function pluginServers(dir: string, file: string, m: ClaudeManifest, vars: Record<string, string>, issues: string[]): Bundle['mcpServers'] {
  const out: Bundle['mcpServers'] = [];
  for (const src of sources(dir, file, '.mcp.json', m.mcpServers, 'mcpServers', issues)) {
    const servers = unwrap(src.value, 'mcpServers');
    if (!servers || typeof servers !== 'object' || Array.isArray(servers)) {
      issues.push(`${src.file}: "mcpServers": must be an object of servers; skipped`);
      continue;
    }
    for (const [name, config] of Object.entries(servers as Record<string, unknown>)) {
      if (!config || typeof config !== 'object' || Array.isArray(config)) {
        issues.push(`${src.file}: "mcpServers.${name}": must be an object; that server is skipped`);
        continue;
      }
      const filled = fillVariables(config as Record<string, unknown>, vars);
      const env = { ...vars, ...(filled.env && typeof filled.env === 'object' ? (filled.env as Record<string, unknown>) : {}) };
      out.push({ name: `plugin_${m.name}_${name}`.replace(/[^A-Za-z0-9_-]/g, '_'), config: filled.command ? { ...filled, env } : filled, file: src.file });
    }
  }
  return out;
}

function pluginHooks(dir: string, file: string, m: ClaudeManifest, vars: Record<string, string>, issues: string[]): Bundle['hooks'] {
  return sources(dir, file, path.join('hooks', 'hooks.json'), m.hooks, 'hooks', issues).flatMap((src) => {
    const hooks = unwrap(src.value, 'hooks');
    if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) {
      issues.push(`${src.file}: "hooks": must be an object of events; skipped`);
      return [];
    }
    // A hooks file may carry a description beside its events.
    const { description: _d, ...events } = hooks as Record<string, unknown>;
    return [{ value: fillVariables(events, vars), file: src.file, dialect: 'claude' as const }];
  });
}
