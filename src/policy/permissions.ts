// Permission rules from settings, in Claude Code's syntax: `Bash(npm run test:*)`, `Bash(git status)`,
// `Read(./secrets/**)`, `Edit(src/**)`, `Write(...)`, and bare tool names (`spawn_gemini`, `Bash`).
// Lists from every scope are merged; deny beats ask beats allow.
import path from 'node:path';
import picomatch from 'picomatch';
import type { PathIntent, PolicyTool } from './types.js';

export type RuleKind = 'allow' | 'ask' | 'deny';
export type RuleSource = 'user' | 'project' | 'local';

export interface PermissionRule {
  raw: string;
  kind: RuleKind;
  source: RuleSource;
  /** 'Bash' | 'Read' | 'Edit' | 'Write' | a devx tool name. */
  tool: string;
  pattern?: string;
}

export interface PermissionRules {
  rules: PermissionRule[];
  root: string;
  home: string;
}

const RULE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?$/s;
/** MCP tool rules, in Claude Code's naming: `mcp__server`, `mcp__server__*`, `mcp__server__tool` (names may hold `-`). */
const MCP_RULE = /^mcp__[A-Za-z0-9_-]+(?:__(?:[A-Za-z0-9_-]+|\*))?$|^mcp__\*$/;
/** Bare rules that cover every tool reading (Read) or writing (Edit, Write) a path, as in Claude Code. */
const BROAD = new Set(['Read', 'Edit', 'Write', 'MultiEdit']);

/** Path rules follow Claude Code: Read(...) covers every read of a path, Edit(...)/Write(...) every write. */
const PATH_RULE_INTENTS: Record<string, PathIntent[]> = {
  Read: ['read', 'list'],
  Grep: ['read', 'list'],
  Glob: ['read', 'list'],
  LS: ['read', 'list'],
  Edit: ['write'],
  Write: ['write'],
  MultiEdit: ['write'],
};

/** Returns an error message for an invalid rule string, or null. */
export function validateRule(raw: string): string | null {
  if (raw.trim().startsWith('mcp__')) return MCP_RULE.test(raw.trim()) ? null : 'MCP rules are mcp__<server>, mcp__<server>__* or mcp__<server>__<tool>';
  const m = RULE.exec(raw.trim());
  if (!m) return 'expected ToolName or ToolName(pattern), e.g. Bash(npm run test:*) or Read(./secrets/**)';
  const [, tool, pattern] = m;
  if (pattern !== undefined && pattern.trim() === '') return `${tool}() needs a pattern inside the parentheses`;
  if (tool === 'WebFetch' && pattern !== undefined)
    return /^domain:\s*(\*\.)?[A-Za-z0-9.:_-]+$/.test(pattern.trim())
      ? null
      : 'WebFetch takes domain:<host>, e.g. WebFetch(domain:docs.python.org) or WebFetch(domain:*.example.com)';
  if (pattern !== undefined && !['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Glob', 'LS', 'MultiEdit'].includes(tool)) return `${tool} does not take a pattern`;
  return null;
}

export function parseRule(raw: string, kind: RuleKind, source: RuleSource): PermissionRule {
  if (raw.trim().startsWith('mcp__')) return { raw, kind, source, tool: raw.trim() };
  const m = RULE.exec(raw.trim())!;
  return { raw, kind, source, tool: m[1], pattern: m[2]?.trim() };
}

const ORDER: RuleKind[] = ['deny', 'ask', 'allow'];

function commandMatches(pattern: string, words: string[]): boolean {
  const cmd = words.join(' ');
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2).trim();
    return cmd === prefix || cmd.startsWith(`${prefix} `);
  }
  if (pattern.includes('*')) {
    const re = new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return re.test(cmd);
  }
  return cmd === pattern.trim();
}

export interface RuleMatch {
  kind: RuleKind;
  rule: string;
  source: RuleSource;
}

/** Bash(...) rules against one simple command's words (never the whole command line). */
export function matchCommandRules(words: string[], rules: PermissionRules): RuleMatch | null {
  for (const kind of ORDER) {
    const hit = rules.rules.find((r) => r.kind === kind && r.tool === 'Bash' && r.pattern !== undefined && commandMatches(r.pattern, words));
    if (hit) return { kind, rule: hit.raw, source: hit.source };
  }
  return null;
}

function pathMatches(pattern: string, realPath: string, rules: PermissionRules): boolean {
  let abs: string;
  if (pattern.startsWith('~/')) abs = path.join(rules.home, pattern.slice(2));
  else if (pattern.startsWith('//')) abs = pattern.slice(1);
  else if (path.isAbsolute(pattern)) abs = pattern;
  else abs = path.join(rules.root, pattern.replace(/^\.\//, ''));
  const isMatch = picomatch(abs, { dot: true, nocase: true });
  // `dir/**` also covers `dir` itself; a plain directory name covers everything below it.
  return isMatch(realPath) || picomatch(`${abs.replace(/\/$/, '')}/**`, { dot: true, nocase: true })(realPath);
}

/**
 * Whether a tool name as an agent file or a rule writes it names this tool: its own name, an alias
 * (Claude Code's spelling), or for MCP tools `mcp__server` / `mcp__server__*` (every tool of the server)
 * and `mcp__*`.
 */
export function toolNameMatches(pattern: string, tool: Pick<PolicyTool, 'name' | 'aliases' | 'mcp'>): boolean {
  const names = [tool.name, ...(tool.aliases ?? [])];
  if (names.includes(pattern)) return true;
  if (!tool.mcp || !pattern.startsWith('mcp__')) return false;
  if (pattern === 'mcp__*') return true;
  const server = pattern.endsWith('__*') ? pattern.slice(0, -3) : /^mcp__[^_]+(?:_[^_]+)*$/.test(pattern) ? pattern : null;
  return server !== null && names.some((n) => n.startsWith(`${server}__`));
}

/**
 * Rules for a tool call: a bare name matches the tool's own name or a Claude Code alias it declares;
 * Read/Edit/Write patterns match the real paths it touches with the rule's intent, whatever the tool.
 */
export function matchToolRules(
  tool: Pick<PolicyTool, 'name' | 'aliases' | 'mcp'>,
  touched: { path: string; intent: PathIntent }[],
  rules: PermissionRules,
): RuleMatch | null {
  for (const kind of ORDER) {
    const hit = rules.rules.find((r) => {
      if (r.kind !== kind || (r.pattern !== undefined && (r.tool === 'Bash' || r.tool === 'WebFetch'))) return false;
      const intents = PATH_RULE_INTENTS[r.tool];
      if (r.pattern === undefined) {
        const byIntent = BROAD.has(r.tool) && touched.some((t) => intents!.includes(t.intent));
        return toolNameMatches(r.tool, tool) || byIntent;
      }
      return intents !== undefined && touched.some((t) => intents.includes(t.intent) && pathMatches(r.pattern!, t.path, rules));
    });
    if (hit) return { kind, rule: hit.raw, source: hit.source };
  }
  return null;
}

/**
 * Read(...)/Edit(...)/Write(...) rules with a pattern against one path a command touches (commands
 * are held to the same path rules as the file tools). Bare rules and Bash rules are not considered.
 */
export function matchPathRules(realPath: string, intent: PathIntent, rules: PermissionRules): RuleMatch | null {
  for (const kind of ORDER) {
    const hit = rules.rules.find(
      (r) => r.kind === kind && r.pattern !== undefined && PATH_RULE_INTENTS[r.tool]?.includes(intent) && pathMatches(r.pattern, realPath, rules),
    );
    if (hit) return { kind, rule: hit.raw, source: hit.source };
  }
  return null;
}
