// The tools of one run: the built-in ones, the user's custom tools (a project's once trusted), skills, and
// which of them the model is told about (a bare deny rule or plan mode leaves one out of the manual).
import path from 'node:path';
import type { ResolvedSettings } from '../../config/settings.js';
import type { ApprovalMode } from '../../policy/types.js';
import { matchToolRules } from '../../policy/permissions.js';
import { builtinTools } from '../../tools/registry.js';
import { loadCustomTools } from '../../tools/customTools.js';
import { makeSkillTool } from '../../tools/skillTool.js';
import type { Tool } from '../../tools/types.js';
import { loadSkills } from '../../personas/loadSkills.js';
import { yamlFilesIn } from '../../util/yamlFiles.js';

export interface Toolset {
  tools: Tool[];
  byName: Map<string, Tool>;
  offeredTools: Tool[];
  /** Whether the model is told about a tool (MCP tools added later are judged alike). */
  offer(t: Tool): boolean;
  /** One line each: a custom tool or skill that did not load, or a project's that waits for trust. */
  warnings: string[];
}

export function makeToolset(o: { root: string; home: string; userHome: string; settings: ResolvedSettings; mode: ApprovalMode }): Toolset {
  const { root, home, userHome, settings } = o;
  const builtins = builtinTools();
  // A project's own tools run programs of its choosing: loaded only once the user trusts the project.
  const projectTools = path.join(root, '.devx', 'tools');
  const custom = loadCustomTools([path.join(home, 'tools'), ...(settings.trusted ? [projectTools] : [])], new Set(builtins.map((t) => t.name)));
  const untrustedTools = settings.trusted ? [] : yamlFilesIn(projectTools);
  const skills = loadSkills({ root, home: userHome, devxHome: home, trusted: settings.trusted, importSetup: settings.importSetup });
  const skillTools = skills.skills.size ? [makeSkillTool([...skills.skills.values()])] : [];
  const tools = [...builtins, ...custom.tools, ...skillTools];
  // Plan mode is a mode a session enters and leaves (Shift+Tab, /plan, an approved plan): writing tools stay
  // in the manual, and authorization refuses them while it lasts (policy/authorize.ts).
  const offer = (t: Tool) => matchToolRules(t, [], { rules: settings.permissionRules, root, home: userHome })?.kind !== 'deny';
  const warnings: string[] = [];
  for (const e of custom.errors) warnings.push(`custom tool ${e.file} was not loaded: ${e.message}`);
  for (const e of skills.errors) warnings.push(`skill ${e.file}${e.line ? `:${e.line}` : ''} was not loaded: ${e.message}`);
  if (skills.untrusted.length) warnings.push(`this project has skills (${skills.untrusted.join(', ')}); run \`devx trust\` to allow them`);
  if (untrustedTools.length)
    warnings.push(`this project asks for its own tools (${untrustedTools.join(', ')} in .devx/tools); run \`devx trust\` to allow them`);
  return { tools, byName: new Map(tools.map((t) => [t.name, t])), offeredTools: tools.filter(offer), offer, warnings };
}
