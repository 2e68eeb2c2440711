// `devx mcp list [--json]`: the MCP servers this project's sessions would start, each started now
// (as a session would) to show its state and tools, then stopped. `/mcp` in the REPL shows the live ones.
import { defineCommand, flagTable, subcommandTable } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { loadEffectiveSettings } from '../../config/effectiveSettings.js';
import { McpManager, type ServerStatus } from '../../mcp/manager.js';
import { packageVersion } from '../../util/packageRoot.js';

/** Servers, state and tools as lines (shared with /mcp). */
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
  return `${lines.join('\n')}\n`;
}

export const mcpCommand = defineCommand({
  name: 'mcp',
  summary: 'MCP servers from settings: their state and tools',
  usage: ['mcp list [--json]'],
  flags: flagTable('      --json  machine-readable output'),
  subcommands: subcommandTable('list | mcp list [--json] | start every configured server, show its state and tools, stop it'),
  async run({ values, positionals }) {
    if (positionals[0] !== 'list' || positionals.length > 1) throw new UsageError('usage: devx mcp list [--json]');
    const { root, settings } = loadEffectiveSettings({ cwd: process.cwd(), env: process.env });
    const mgr = await McpManager.start(settings.mcpServers, { root, env: process.env, version: packageVersion() });
    try {
      const statuses = mgr.statuses();
      const untrusted = settings.warnings.find((w) => w.includes("this project's MCP servers"));
      if (values.json) process.stdout.write(`${JSON.stringify({ servers: statuses, ...(untrusted ? { warning: untrusted } : {}) }, null, 2)}\n`);
      else process.stdout.write(renderMcpStatus(statuses, untrusted));
      return statuses.some((s) => s.state === 'failed') ? EXIT.failed : EXIT.ok;
    } finally {
      await mgr.stop();
    }
  },
});
