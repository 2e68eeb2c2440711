// `${VAR}`, `${VAR:-default}` and `$VAR` in MCP server settings, as Claude Code and Gemini CLI expand
// them, from devx's own environment (so tokens stay out of settings files).
export function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, braced: string | undefined, def: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare!;
      const v = env[name];
      return v !== undefined && v !== '' ? v : (def ?? '');
    },
  );
}

export function expandAll(record: Record<string, string> | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, expandEnv(v, env)]));
}
