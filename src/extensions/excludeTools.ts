// Gemini CLI's excludeTools, in devx's terms: each entry a deny rule (policy/permissions.ts), which keeps the
// tool out of the model's manual and refuses a call to it in every approval mode. `run_shell_command(git push)`
// keeps the commands that start with those words, as Gemini CLI does: `Bash(git push:*)`.

/** Gemini CLI's tool names and devx's tool for each; null where devx has no such tool. */
const GEMINI_TOOLS: Record<string, string | null> = {
  run_shell_command: 'run_command',
  read_file: 'read_file',
  read_many_files: 'read_file',
  write_file: 'write_file',
  replace: 'edit_file',
  glob: 'glob',
  search_file_content: 'search_code',
  grep_search: 'search_code',
  list_directory: 'list_directory',
  web_fetch: 'web_fetch',
  save_memory: 'remember',
  write_todos: 'todo',
  google_web_search: null,
};

/** The deny rule an excludeTools entry stands for (a tool, or Bash with a command prefix), or null when devx has no such tool. */
export function excludeRule(entry: string): { tool: string; pattern?: string } | null {
  const m = /^([A-Za-z_][\w-]*)\((.+)\)$/s.exec(entry.trim());
  if (m && m[1] === 'run_shell_command') return { tool: 'Bash', pattern: `${m[2].trim()}:*` };
  const name = m ? m[1] : entry.trim();
  if (Object.hasOwn(GEMINI_TOOLS, name)) {
    const tool = GEMINI_TOOLS[name];
    return tool ? { tool } : null;
  }
  // devx's own names, Claude Code's, a custom tool's or an MCP tool's pass as written.
  return /^[A-Za-z_][\w-]*$/.test(name) ? { tool: name } : null;
}
