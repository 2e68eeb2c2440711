// `${name}` variables in a bundle's JSON, filled the way each tool fills them: Gemini CLI's ${extensionPath},
// ${workspacePath}, ${/} and ${pathSeparator}; Claude Code's ${CLAUDE_PLUGIN_ROOT}. A name not in `vars` stays
// as written (an MCP server's ${GITHUB_TOKEN} is expanded later, from the environment, as for any server).
import path from 'node:path';

/** Keys never copied out of parsed JSON. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Every string inside `value` with its known `${…}` variables filled; a new value, the input untouched. */
export function fillVariables<T>(value: T, vars: Record<string, string>): T {
  if (typeof value === 'string') return value.replace(/\$\{([^}]*)\}/g, (m, key: string) => (Object.hasOwn(vars, key) ? vars[key] : m)) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => fillVariables(v, vars)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (!UNSAFE_KEYS.has(k)) out[k] = fillVariables(v, vars);
    return out as T;
  }
  return value;
}

/** Gemini CLI's variables for an extension in `dir` used in `workspace`. */
export function geminiVariables(dir: string, workspace: string): Record<string, string> {
  return { extensionPath: dir, workspacePath: workspace, '/': path.sep, pathSeparator: path.sep };
}

/** Claude Code's variables for a plugin in `dir`. */
export function claudeVariables(dir: string): Record<string, string> {
  return { CLAUDE_PLUGIN_ROOT: dir };
}
