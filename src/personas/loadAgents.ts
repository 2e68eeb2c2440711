// Agent definitions: Markdown with YAML front-matter (name, description, tools, model, provider,
// memory; the body is the system prompt). Read from these places, project over user over builtin:
//   prompts/agents/*.md in devx's package               (builtin: the roles devx ships)
//   ~/.devx/agents/*.md, ~/.claude/agents/*.md         (user)
//   .gemini/extensions/<name>.json, .claude/agents/*.md, .devx/agents/*.md   (project)
// and installed extensions' agents/*.md (extensions/: a Claude Code plugin's in Claude Code's format), above
// the builtin ones and below the user's own. Files are re-read on every load, so edits apply without a
// restart. A broken file is reported with its path and reason; the others still load.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// yaml loads only when a file needs parsing (start-up stays light).
const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');
import { readAgentText, resolveImports, type ImportScope } from './resolveImports.js';
import { knownToolNames, resolveToolName } from '../tools/registry.js';
import { AGENT_TOOL_PREFIX } from '../tools/agentTool.js';
import { packageRoot } from '../util/packageRoot.js';
import { isTrusted } from '../config/trust.js';
import { findProvider, providerNames } from '../providers/registry.js';
import { loadExtensions } from '../extensions/loadExtensions.js';

export type AgentScope = 'project' | 'user' | 'builtin';
export type AgentFormat = 'devx' | 'claude' | 'gemini-extension';

/** An agent: one definition file, loaded (docs/agents.md, "Words used here"). A session's persona is one of these. */
export interface AgentDef {
  name: string;
  description: string;
  /** devx tool names, `agent:<name>` for callable agents, MCP tools as mcp__server__tool or mcp__server__*; undefined means the agent inherits every permitted tool. */
  tools?: string[];
  model?: string;
  provider?: string;
  /** The system prompt: the body with @imports resolved and the memory file appended. */
  prompt: string;
  scope: AgentScope;
  format: AgentFormat;
  file: string;
  /** The memory file its front-matter names (included in the prompt). */
  memoryFile?: string;
}

export interface AgentIssue {
  file: string;
  /** The line the problem is on (1-based), when it is one line's. */
  line?: number;
  message: string;
}

/** `file:line: message`, as `agent list` and the commands that load an agent print it. */
export function formatIssue(e: AgentIssue): string {
  return `${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`;
}

/** An error in an agent file, at a line when known. */
class AgentFileError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

export interface LoadedAgents {
  agents: Map<string, AgentDef>;
  /** Definitions hidden by a higher-precedence one with the same name. */
  overridden: AgentDef[];
  errors: AgentIssue[];
  warnings: AgentIssue[];
}

const KNOWN_KEYS = new Set(['name', 'description', 'tools', 'model', 'provider', 'memory']);
/** Claude Code keys devx accepts silently (they have no devx meaning). */
const CLAUDE_IGNORED = new Set(['color']);
const NAME = /^[a-z0-9][a-z0-9_-]*$/i;
const MCP_TOOL = /^mcp__[A-Za-z0-9_-]+(__([A-Za-z0-9_-]+|\*))?$|^mcp__\*$/;

export function splitFrontMatter(text: string): { data: Record<string, unknown>; body: string } | null {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m) return null;
  let data: unknown;
  try {
    data = yaml().parse(m[1]) as unknown;
  } catch (err) {
    // The YAML error's line is within the front-matter, which starts on the file's second line.
    const line = (err as { linePos?: { line: number }[] }).linePos?.[0]?.line;
    throw new AgentFileError(`front-matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`, line ? line + 1 : undefined);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new AgentFileError('front-matter must be a YAML mapping', 2);
  return { data: data as Record<string, unknown>, body: m[2] };
}

/** The line of a front-matter key (1-based), for an error about its value. */
function keyLine(text: string, key: string): number | undefined {
  const lines = text.split('\n');
  // Compared as text: a key is the file's (a repository's), never a pattern.
  for (let i = 1; i < lines.length && !/^---\s*$/.test(lines[i]); i++) {
    const line = lines[i];
    if (line.startsWith(key) && /^\s*:/.test(line.slice(key.length))) return i + 1;
  }
  return undefined;
}

function asToolList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new Error('"tools" must be a list of tool names or a comma-separated string');
}

interface Source {
  dir: string;
  scope: AgentScope;
  format: AgentFormat;
  /** The files to read (an extension's agents), instead of the folder's. */
  files?: string[];
}

/** The agents devx ships (workflow roles); the lowest precedence, so any scope can override them. */
export function builtinAgentsDir(): string {
  return path.join(packageRoot(), 'prompts', 'agents');
}

export function agentSources(root: string, home: string, devxHome: string): Source[] {
  // Lowest precedence first: later sources override earlier ones.
  return [
    { dir: builtinAgentsDir(), scope: 'builtin', format: 'devx' },
    ...loadExtensions(devxHome, root).bundles.map((b): Source => ({
      dir: path.join(b.dir, 'agents'),
      scope: 'user',
      format: b.format === 'claude' ? 'claude' : 'devx',
      files: b.agents,
    })),
    { dir: path.join(home, '.claude', 'agents'), scope: 'user', format: 'claude' },
    { dir: path.join(devxHome, 'agents'), scope: 'user', format: 'devx' },
    { dir: path.join(root, '.gemini', 'extensions'), scope: 'project', format: 'gemini-extension' },
    { dir: path.join(root, '.claude', 'agents'), scope: 'project', format: 'claude' },
    { dir: path.join(root, '.devx', 'agents'), scope: 'project', format: 'devx' },
  ];
}

/**
 * How an agent file itself is read: one of the user's, or of a trusted project, may be a link they made to a
 * shared one (only its kind and size are checked); an untrusted project's is bounded by the project like its
 * imports (a committed link to a file of the user's is not read).
 */
function ownFileScope(scope: ImportScope): ImportScope {
  return scope.projectRoot && !scope.trusted ? { home: scope.home, projectRoot: scope.projectRoot, trusted: false } : { home: scope.home };
}

function parseMarkdownAgent(file: string, src: Source, scope: ImportScope, warnings: AgentIssue[]): AgentDef {
  const home = scope.home;
  const text = readAgentText(file, ownFileScope(scope));
  const fm = splitFrontMatter(text);
  if (!fm) throw new Error('missing YAML front-matter (a file starting with --- ... ---)');
  const d = fm.data;
  const at = (key: string) => keyLine(text, key);
  const fail = (key: string, message: string) => new AgentFileError(message, at(key));
  for (const k of Object.keys(d)) {
    if (!KNOWN_KEYS.has(k) && !(src.format === 'claude' && CLAUDE_IGNORED.has(k)))
      warnings.push({ file, line: at(k), message: `unknown key "${k}" is ignored` });
  }
  if (typeof d.name !== 'string' || !d.name.trim()) throw fail('name', '"name" is required');
  if (!NAME.test(d.name)) throw fail('name', `"name" must be letters, digits, - or _ (got "${d.name}")`);
  if (typeof d.description !== 'string' || !d.description.trim()) throw fail('description', '"description" is required');
  let tools: string[] | undefined;
  try {
    tools = asToolList(d.tools);
  } catch (err) {
    throw fail('tools', (err as Error).message);
  }
  if (d.model !== undefined && d.model !== null && (typeof d.model !== 'string' || !d.model.trim())) throw fail('model', '"model" must be a model name');
  let model = typeof d.model === 'string' ? d.model : undefined;
  // Claude Code's tool names are valid in every format; each name is resolved through the tools' own aliases.
  if (tools) tools = resolveTools(tools, file, warnings, at('tools'));
  if (d.provider !== undefined && d.provider !== null && (typeof d.provider !== 'string' || !findProvider(d.provider))) {
    throw fail('provider', `"provider: ${String(d.provider)}" is not a provider devx has (${providerNames()})`);
  }
  if (d.memory !== undefined && d.memory !== null && typeof d.memory !== 'string') throw fail('memory', '"memory" must be a file path');
  // An alias ("openai") names its provider ("codex").
  let provider = typeof d.provider === 'string' ? findProvider(d.provider)?.id : undefined;
  // A Claude Code agent runs on Claude with its own model, unless it names another provider.
  if (src.format === 'claude') provider ??= 'claude';
  // "inherit" (Claude Code's word) means the session's model.
  if (model && /^inherit$/i.test(model)) model = undefined;
  let prompt = resolveImports(fm.body, file, scope).trim();
  let memoryFile: string | undefined;
  if (typeof d.memory === 'string' && d.memory.trim()) {
    const mem = d.memory.startsWith('~/') ? path.join(home, d.memory.slice(2)) : path.resolve(path.dirname(file), d.memory);
    memoryFile = mem;
    if (!fs.existsSync(mem)) throw fail('memory', `memory file not found: ${mem}`);
    prompt += `\n\n# Memory (${path.basename(mem)})\n${resolveImports(readAgentText(mem, scope, `memory file ${d.memory}`, d.memory.startsWith('~/')), mem, scope).trim()}`;
  }
  return {
    name: d.name,
    description: d.description.trim(),
    tools,
    model,
    provider,
    prompt,
    scope: src.scope,
    format: src.format,
    file,
    ...(memoryFile ? { memoryFile } : {}),
  };
}

function resolveTools(names: string[], file: string, warnings: AgentIssue[], line?: number): string[] {
  const out: string[] = [];
  for (const t of names) {
    // MCP tools (mcp__server__tool, mcp__server__*) are known only once their servers start: kept as written.
    if (MCP_TOOL.test(t)) {
      if (!out.includes(t)) out.push(t);
      continue;
    }
    if (t.startsWith(AGENT_TOOL_PREFIX)) {
      const name = t.slice(AGENT_TOOL_PREFIX.length);
      if (!NAME.test(name)) throw new AgentFileError(`"${t}" in tools must be agent:<name> with a name of letters, digits, - or _`, line);
      if (!out.includes(t)) out.push(t);
      continue;
    }
    const m = resolveToolName(t);
    if (m === null) warnings.push({ file, line, message: `devx has no equivalent of Claude Code's ${t}; the agent runs without it` });
    else if (m === undefined) {
      // Kept as written: it may name a custom tool (.devx/tools); the allowlist only narrows.
      warnings.push({
        file,
        line,
        message: `unknown tool "${t}"; valid names are ${knownToolNames().join(', ')} (or a custom tool's name, or an MCP tool as mcp__<server>__<tool>)`,
      });
      if (!out.includes(t)) out.push(t);
    } else if (!out.includes(m)) out.push(m);
  }
  return out;
}

/** Gemini CLI extension agents: {"name", "prompt", "contextFileName"} in .gemini/extensions/<name>.json. */
function parseExtension(file: string, src: Source, scope: ImportScope, warnings: AgentIssue[]): AgentDef {
  const j = JSON.parse(readAgentText(file, ownFileScope(scope))) as Record<string, unknown>;
  for (const k of Object.keys(j))
    if (!['name', 'prompt', 'contextFileName', 'description', 'version'].includes(k)) warnings.push({ file, message: `unknown key "${k}" is ignored` });
  if (typeof j.name !== 'string' || !NAME.test(j.name)) throw new Error('"name" is required (letters, digits, - or _)');
  let prompt = typeof j.prompt === 'string' ? j.prompt : '';
  if (typeof j.contextFileName === 'string') {
    const ctxFile = path.resolve(path.dirname(file), j.contextFileName);
    const alt = path.resolve(path.dirname(file), j.name, j.contextFileName);
    const found = [ctxFile, alt].find((p) => fs.existsSync(p));
    if (!found) warnings.push({ file, message: `contextFileName not found: ${ctxFile}; the agent runs with its prompt only` });
    else prompt = `${prompt}\n\n${resolveImports(readAgentText(found, scope, `contextFileName ${j.contextFileName}`), found, scope)}`.trim();
  }
  if (!prompt) throw new Error('"prompt" or "contextFileName" is required');
  const description = typeof j.description === 'string' ? j.description : prompt.split('\n')[0].slice(0, 120);
  return { name: j.name, description, prompt, scope: src.scope, format: src.format, file };
}

/** The files of a folder ending in `ext`, sorted; none when it is missing. */
function filesIn(dir: string, ext: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .sort()
      .filter((n) => n.endsWith(ext))
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** Every agent of every scope (builtin < extensions < user < project), with broken files as errors. */
export function loadAgents(root: string, home: string, devxHome: string): LoadedAgents {
  let trusted: boolean | undefined;
  const out: LoadedAgents = { agents: new Map(), overridden: [], errors: [], warnings: [] };
  for (const src of agentSources(root, home, devxHome)) {
    const ext = src.format === 'gemini-extension' ? '.json' : '.md';
    for (const file of src.files ?? filesIn(src.dir, ext)) {
      try {
        const scope: ImportScope = {
          home,
          projectRoot: src.scope === 'project' ? root : undefined,
          trusted: src.scope === 'project' ? (trusted ??= isTrusted(devxHome, root)) : undefined,
        };
        const def = src.format === 'gemini-extension' ? parseExtension(file, src, scope, out.warnings) : parseMarkdownAgent(file, src, scope, out.warnings);
        const prev = out.agents.get(def.name);
        if (prev) out.overridden.push(prev);
        out.agents.set(def.name, def);
      } catch (err) {
        out.errors.push({ file, ...(err instanceof AgentFileError && err.line ? { line: err.line } : {}), message: (err as Error).message });
      }
    }
  }
  // A memory file kept beside its agent (`memory: agent-memory.md`) is not an agent of its own.
  const memories = new Set([...out.agents.values(), ...out.overridden].map((a) => a.memoryFile).filter(Boolean));
  out.errors = out.errors.filter((e) => !memories.has(e.file));
  for (const def of out.agents.values()) {
    for (const t of def.tools ?? []) {
      const callee = t.startsWith(AGENT_TOOL_PREFIX) ? t.slice(AGENT_TOOL_PREFIX.length) : null;
      if (callee !== null && !out.agents.has(callee))
        out.warnings.push({ file: def.file, message: `"${t}": there is no agent named "${callee}"; a call to it will fail` });
    }
  }
  return out;
}

export class PersonaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PersonaError';
  }
}

/**
 * The agent of that name, or a PersonaError naming the broken file and why (never a silent fall-back
 * to another scope's agent of the same name), or listing the known agents.
 */
export function findAgent(loaded: LoadedAgents, name: string): AgentDef {
  const broken = loaded.errors.filter((e) => path.basename(e.file).replace(/\.(md|json)$/, '') === name);
  if (broken.length) throw new PersonaError(broken.map((e) => `agent "${name}" cannot be loaded: ${formatIssue(e)}`).join('\n'));
  const def = loaded.agents.get(name);
  if (def) return def;
  throw new PersonaError(`no agent named "${name}". Known: ${[...loaded.agents.keys()].join(', ') || '(none)'}; see devx agent list`);
}
