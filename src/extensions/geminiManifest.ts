// A Gemini CLI extension, read as Gemini CLI reads one: gemini-extension.json (name and version required;
// mcpServers, contextFileName (default GEMINI.md), excludeTools), commands/**/*.toml, hooks/hooks.json (Gemini
// CLI's event names), skills/<name>/SKILL.md and agents/*.md. ${extensionPath}, ${workspacePath}, ${/} and
// ${pathSeparator} are filled in the manifest and in hooks.json.
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { filesUnder } from '../util/filesUnder.js';
import { commandsIn, insideBundle, readBundleJson, schemaError, skillFoldersIn } from './bundleParts.js';
import { fillVariables, geminiVariables } from './variables.js';
import { EXTENSION_NAME, ManifestError, type Bundle } from './types.js';

export const GEMINI_MANIFEST = 'gemini-extension.json';

// Built on first use, as settings' schemas are.
const GeminiManifestSchema = z.lazy(() =>
  z
    .object({
      name: z
        .string({ error: 'is required (the extension\'s name: letters, digits, "-" or "_")' })
        .regex(EXTENSION_NAME, 'must be letters, digits, "-" or "_" (at most 64), starting with a letter or digit'),
      version: z.string({ error: 'is required (a string, e.g. "1.0.0")' }).min(1, 'must not be empty'),
      description: z.string().optional(),
      mcpServers: z.record(z.string(), z.unknown(), { error: 'must be an object of servers' }).optional(),
      contextFileName: z.union([z.string().min(1), z.array(z.string().min(1))], { error: 'must be a file name or a list of them' }).optional(),
      excludeTools: z.array(z.string().min(1), { error: 'must be a list of tool names' }).optional(),
    })
    .passthrough(),
);

export type GeminiManifest = z.infer<typeof GeminiManifestSchema>;

/** The manifest's text, checked: a ManifestError names the file and key when it is not one devx can use. */
export function parseGeminiManifest(raw: unknown, file: string): GeminiManifest {
  if (raw === undefined) throw new ManifestError(file, '', 'not found: a Gemini CLI extension has gemini-extension.json at its top');
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ManifestError(file, '', 'must be a JSON object');
  const parsed = GeminiManifestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(file, parsed.error);
  return parsed.data;
}

/** The extension in `dir`, used in `workspace`; its variables name `installedAt` (where it will be, when it is being installed). */
export function readGeminiBundle(dir: string, workspace: string, installedAt = dir): Bundle {
  const file = path.join(dir, GEMINI_MANIFEST);
  const vars = geminiVariables(installedAt, workspace);
  const m = fillVariables(parseGeminiManifest(readBundleJson(file), file), vars);
  const issues: string[] = [];
  const mcpServers = Object.entries(m.mcpServers ?? {}).flatMap(([name, config]) => {
    if (!config || typeof config !== 'object' || Array.isArray(config)) {
      issues.push(`${file}: "mcpServers.${name}": must be an object; that server is skipped`);
      return [];
    }
    return [{ name, config: config as Record<string, unknown>, file }];
  });
  return {
    name: m.name,
    version: m.version,
    ...(m.description ? { description: m.description } : {}),
    format: 'gemini',
    dir,
    manifestFile: file,
    mcpServers,
    hooks: readGeminiHooks(dir, vars, issues),
    env: {},
    commands: commandsIn(path.join(dir, 'commands'), ['.toml'], undefined, issues),
    skills: skillFoldersIn(path.join(dir, 'skills')).filter((d) => d !== path.join(dir, 'skills')),
    agents: filesUnder(path.join(dir, 'agents'), ['.md']),
    contextFiles: contextFilesOf(m, dir, file, issues),
    excludeTools: m.excludeTools ?? [],
    issues,
  };
}

/** hooks/hooks.json's `hooks`, variables filled; a file that does not read is one issue and no hooks. */
function readGeminiHooks(dir: string, vars: Record<string, string>, issues: string[]): Bundle['hooks'] {
  const file = path.join(dir, 'hooks', 'hooks.json');
  try {
    const raw = readBundleJson(file);
    if (raw === undefined) return [];
    const hooks = (raw as { hooks?: unknown } | null)?.hooks;
    if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) {
      issues.push(`${file}: "hooks": must be an object of events; its hooks are skipped`);
      return [];
    }
    return [{ value: fillVariables(hooks, vars), file, dialect: 'gemini' }];
  } catch (err) {
    issues.push(`${(err as Error).message}; its hooks are skipped`);
    return [];
  }
}

/** contextFileName's files (GEMINI.md when it names none) that exist inside the extension. */
function contextFilesOf(m: GeminiManifest, dir: string, file: string, issues: string[]): string[] {
  const named = m.contextFileName === undefined ? ['GEMINI.md'] : Array.isArray(m.contextFileName) ? m.contextFileName : [m.contextFileName];
  return named.flatMap((n) => {
    const p = insideBundle(dir, n);
    if (!p) {
      issues.push(`${file}: "contextFileName": ${n} leads outside the extension; it is not read`);
      return [];
    }
    if (!fs.existsSync(p)) {
      if (m.contextFileName !== undefined) issues.push(`${file}: "contextFileName": ${n} is not in the extension`);
      return [];
    }
    return [p];
  });
}
