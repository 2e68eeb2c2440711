// What enabled extensions add to the settings (extensions/loadExtensions.ts reads them): their MCP servers,
// their hooks and the tools they keep from the model (Gemini CLI's excludeTools, as deny rules). They are the
// user's own choice, so they count as the user's scope in every project, trusted or not; they never widen
// the policy: a server of theirs cannot mark itself trusted (as in Gemini CLI), and a deny of the user's holds.
import path from 'node:path';
import { entriesOf } from './foreignMcp.js';
import { parseHooks, type HookEntry } from './hookSettings.js';
import type { McpServerEntry } from './mcpSettings.js';
import type { PermissionRule } from '../policy/permissions.js';
import { excludeRule } from '../extensions/excludeTools.js';
import { loadExtensions } from '../extensions/loadExtensions.js';

export interface ExtensionSettings {
  mcpServers: McpServerEntry[];
  hooks: HookEntry[];
  denyRules: PermissionRule[];
  /** Lines to say at start: what did not load, which hooks run. */
  warnings: string[];
}

export function readExtensionSettings(devxHome: string, projectRoot: string): ExtensionSettings {
  const loaded = loadExtensions(devxHome, projectRoot);
  const out: ExtensionSettings = { mcpServers: [], hooks: [], denyRules: [], warnings: [...loaded.warnings] };
  for (const b of loaded.bundles) {
    for (const s of b.mcpServers) {
      const errors: string[] = [];
      const { trust: _t, ...config } = s.config;
      for (const e of entriesOf({ [s.name]: config }, s.file, errors)) out.mcpServers.push({ ...e, ownDir: b.dir });
      out.warnings.push(...errors.map((e) => `extension "${b.name}": ${e}`));
    }
    const events = new Set<string>();
    for (const h of b.hooks) {
      const parsed = parseHooks(h.value, h.file, h.dialect);
      out.warnings.push(...parsed.notes.map((n) => `extension "${b.name}": ${n}`));
      for (const e of parsed.hooks) {
        out.hooks.push(Object.keys(b.env).length ? { ...e, env: b.env } : e);
        events.add(e.name);
      }
    }
    if (events.size)
      out.warnings.push(
        `running the hooks of extension "${b.name}" (${[...events].join(', ')}, in ${[...new Set(b.hooks.map((h) => path.relative(b.dir, h.file)))].join(', ')}); \`devx extensions disable ${b.name}\` leaves them out`,
      );
    for (const t of b.excludeTools) {
      const rule = excludeRule(t);
      if (!rule) {
        out.warnings.push(`extension "${b.name}": excludeTools names ${t}, a tool devx does not have; nothing to leave out`);
        continue;
      }
      const raw = `${rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`} (excludeTools of extension ${b.name})`;
      out.denyRules.push({ raw, kind: 'deny', source: 'user', tool: rule.tool, ...(rule.pattern === undefined ? {} : { pattern: rule.pattern }) });
    }
  }
  return out;
}
