// What a bundle brings, in lines a person reads before saying yes to it (and in `devx extensions list`):
// every program it runs (each MCP server's command line or address, each hook's command), then its
// commands, skills, agents, context files and the tools it keeps from the model.
import path from 'node:path';
import { FORMAT_LABEL, type Bundle } from './types.js';

const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/** A server as it would start: its command line (and folder), or its address. */
export function serverLine(config: Record<string, unknown>): string {
  if (typeof config.command === 'string') {
    const args = Array.isArray(config.args) ? config.args.filter((a): a is string => typeof a === 'string') : [];
    const env = config.env && typeof config.env === 'object' ? Object.keys(config.env) : [];
    return [
      [config.command, ...args].map(shellWord).join(' '),
      ...(typeof config.cwd === 'string' ? [`(in ${config.cwd})`] : []),
      ...(env.length ? [`(env: ${env.join(', ')})`] : []),
    ].join(' ');
  }
  const url = config.url ?? config.httpUrl;
  return typeof url === 'string' ? `${url} (HTTP)` : '(neither a command nor a url: it will not start)';
}

/** Each hook command of a hooks object, as `Event: command`. */
export function hookLines(hooks: unknown): string[] {
  if (!hooks || typeof hooks !== 'object') return [];
  const out: string[] = [];
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    for (const g of Array.isArray(groups) ? groups : []) {
      const list = (g as { hooks?: unknown })?.hooks;
      const matcher = (g as { matcher?: unknown })?.matcher;
      for (const h of Array.isArray(list) ? list : []) {
        const cmd = (h as { command?: unknown })?.command;
        if (typeof cmd === 'string') out.push(`${event}${typeof matcher === 'string' && matcher ? ` (${matcher})` : ''}: ${cmd}`);
      }
    }
  }
  return out;
}

/** Every line of what the bundle brings, indented under headings; one line saying so when it brings nothing. */
export function describeParts(b: Bundle): string[] {
  const section = (title: string, items: string[]) => (items.length ? [`  ${title}:`, ...items.map((i) => `    ${i}`)] : []);
  const joined = (names: string[], note = '') => (names.length ? [`${names.join(', ')}${note}`] : []);
  // A plugin's skills are <plugin>:<skill>; a Gemini CLI command gets its extension's prefix when its name is taken.
  const skillPrefix = b.format === 'claude' ? `${b.name}:` : '';
  const lines = [
    ...section(
      'MCP servers (programs it starts)',
      b.mcpServers.map((s) => `${s.name}: ${serverLine(s.config)}`),
    ),
    ...section(
      'hooks (commands it runs)',
      b.hooks.flatMap((h) => hookLines(h.value)),
    ),
    ...section(
      'commands',
      joined(
        b.commands.map((c) => `/${c.name}`),
        b.format === 'gemini' ? ` (as /${b.name}:<name> where the name is taken)` : '',
      ),
    ),
    ...section('skills', joined(b.skills.map((d) => `${skillPrefix}${path.basename(d)}`))),
    ...section('agents', joined(b.agents.map((f) => path.basename(f, '.md')))),
    ...section(
      'context (sent to the model with every prompt)',
      b.contextFiles.map((f) => path.relative(b.dir, f)),
    ),
    ...section('tools it keeps from the model (excludeTools)', joined(b.excludeTools)),
    ...section('parts that do not load', b.issues),
  ];
  return lines.length ? lines : ['  (it brings nothing devx loads)'];
}

/** The heading line: name, version, format. */
export function bundleTitle(b: Bundle): string {
  return `${b.name}${b.version ? ` ${b.version}` : ''} (${FORMAT_LABEL[b.format]})`;
}
