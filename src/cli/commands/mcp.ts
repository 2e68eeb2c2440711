// `devx mcp list [--json]`: the MCP servers this project's sessions would start, each started now
// (as a session would) to show its state and tools, then stopped. `/mcp` in the REPL shows the live ones.
// `devx mcp login|logout <server>`: OAuth sign-in to an HTTP server (mcp/oauthLogin.ts), and its undoing.
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { loadEffectiveSettings } from '../../config/effectiveSettings.js';
import { McpManager, type ServerStatus } from '../../mcp/manager.js';
import { programsWorkDir } from '../../util/untrustedWorkDir.js';
import { packageVersion } from '../../util/packageRoot.js';
import { devxHome } from '../../util/devxHome.js';
import { runProcess } from '../../util/processRunner.js';
import { openUrl } from '../../util/openUrl.js';
import type { McpServerEntry } from '../../config/mcpSettings.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

/** Servers, state and tools as lines (shared with /mcp); a server's names, descriptions and errors shown, never obeyed. */
export function renderMcpStatus(statuses: ServerStatus[], untrusted: string | undefined): string {
  const lines: string[] = [];
  if (!statuses.length) lines.push('no MCP servers configured (add "mcpServers" to ~/.devx/settings.json or .devx/settings.json)');
  for (const s of statuses) {
    const policy = s.outsideRoot ? `asks: works on ${s.outsideRoot}, outside the project` : s.trusted ? 'trusted' : 'asks before each call';
    lines.push(`${s.name}  ${s.state}  ${s.transport}  ${policy}  (${s.file})`);
    if (s.error) lines.push(`  error: ${s.error}`);
    for (const t of s.tools) lines.push(`  ${t.name}${t.description ? `  ${t.description.slice(0, 100)}` : ''}`);
    if (s.filtered.length) lines.push(`  (left out by includeTools/excludeTools: ${s.filtered.join(', ')})`);
  }
  if (untrusted) lines.push(untrusted);
  return escapeControls(`${lines.join('\n')}\n`);
}

export const mcpCommand = defineCommand({
  name: 'mcp',
  summary: 'MCP servers from settings: their state and tools',
  usage: ['mcp list [--json]', 'mcp login <server>', 'mcp logout <server>'],
  flags: flagTable('      --json  machine-readable output'),
  subcommands: subcommandTable(
    [
      'list | mcp list [--json] | start every configured server, show its state and tools, stop it',
      'login | mcp login <server> | sign in to an HTTP server with OAuth (a browser opens, or the URL is printed)',
      'logout | mcp logout <server> | forget the tokens devx keeps for a server',
    ].join('\n'),
  ),
  async run({ values, positionals }) {
    if ((positionals[0] === 'login' || positionals[0] === 'logout') && positionals.length === 2) return signInOrOut(positionals[0], positionals[1]!);
    if (positionals[0] !== 'list' || positionals.length > 1)
      throw new UsageError('usage: devx mcp list [--json] | devx mcp login <server> | devx mcp logout <server>');
    const { root, settings } = loadEffectiveSettings({ cwd: process.cwd(), env: process.env });
    const home = devxHome(process.env);
    const workDir = programsWorkDir(root, settings.trusted, home, settings.mcpServers.length > 0);
    const mgr = await McpManager.start(settings.mcpServers, { root, workDir, env: process.env, version: packageVersion(), devxHome: home });
    try {
      const statuses = mgr.statuses();
      const untrusted = settings.warnings.find((w) => w.includes("this project's MCP servers"));
      if (values.json) process.stdout.write(`${printableJson({ servers: statuses, ...(untrusted ? { warning: untrusted } : {}) }, 2)}\n`);
      else process.stdout.write(renderMcpStatus(statuses, untrusted));
      return statuses.some((s) => s.state === 'failed') ? EXIT.failed : EXIT.ok;
    } finally {
      await mgr.stop();
    }
  },
});

function findServer(servers: McpServerEntry[], name: string): McpServerEntry {
  const entry = servers.find((s) => s.name === name);
  if (!entry) throw new UsageError(`no MCP server named "${name}"; configured: ${servers.map((s) => s.name).join(', ') || '(none)'}`);
  return entry;
}

async function signInOrOut(verb: 'login' | 'logout', name: string): Promise<number> {
  const { root, settings } = loadEffectiveSettings({ cwd: process.cwd(), env: process.env });
  const entry = findServer(settings.mcpServers, name);
  const home = devxHome(process.env);
  const { serverUrlOf } = await import('../../mcp/oauthClient.js');
  const { expandEnv } = await import('../../mcp/expandEnv.js');
  const url = serverUrlOf(entry, (s) => expandEnv(s, process.env));
  if (!url) throw new UsageError(`"${name}" is a stdio server (${entry.file}); OAuth sign-in is for HTTP servers`);
  if (verb === 'logout') {
    const { OAuthStore } = await import('../../mcp/oauthStore.js');
    const had = OAuthStore.for(home, name, url).remove();
    process.stdout.write(had ? `signed out of "${name}" (${url}): its tokens are deleted\n` : `devx kept no tokens for "${name}" (${url})\n`);
    return EXIT.ok;
  }
  const { loginServer } = await import('../../mcp/oauthLogin.js');
  try {
    const { file } = await loginServer(entry, {
      devxHome: home,
      env: process.env,
      showUrl: (u) => {
        process.stdout.write(
          `Sign in to "${name}" in your browser. If it does not open, open this URL:\n\n  ${escapeControls(u)}\n\nWaiting for the browser (Ctrl-C to give up)...\n`,
        );
        void openUrl(u, process.env, runProcess, root);
      },
    });
    process.stdout.write(`signed in to "${name}"; tokens kept in ${file} (mode 0600)\n`);
    return EXIT.ok;
  } catch (err) {
    process.stderr.write(`devx: could not sign in to "${name}" (${url}): ${escapeControls((err as Error).message)}\n`);
    return EXIT.failed;
  }
}
