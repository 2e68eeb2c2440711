// Help text that is not generated from a command table: the footer of `devx --help`, and /help's custom commands.
import { nameThatRuns } from '../runtime/customCommands.js';
export const HELP_FOOTER = `Exit codes: 0 done, 1 the task failed or stopped, 2 bad usage or settings,
            3 a provider binary is missing, 4 another session is active here,
            5 the queue database's schema is not this devx's (devx queue migrate), 130 cancelled.

Settings: ~/.devx/settings.json, .devx/settings.json, .devx/settings.local.json.
Environment: DEVX_MODEL, DEVX_GEMINI_BIN, DEVX_HOME, DEVX_TURN_TIMEOUT_SEC, DEVX_HANDOFF, DEVX_PRESTART (off: no head start for devx run), DEVX_DEBUG, NO_COLOR.
`;

/** The custom commands of this session for /help, with where each comes from. */
export function renderCustomHelp(loaded: import('../commands/loadCommands.js').LoadedCommands): string {
  // Each under the name that runs it: /user:… or /project:… when devx's own command has its name.
  const list = [...loaded.commands.values()].map((c) => ({ ...c, name: nameThatRuns(c) })).sort((a, b) => a.name.localeCompare(b.name));
  if (!list.length) return '';
  const w = Math.min(28, Math.max(...list.map((c) => c.name.length + 1)));
  return `Custom commands:\n${list.map((c) => `  ${`/${c.name}`.padEnd(w + 1)} ${c.description}${c.argumentHint ? ` ${c.argumentHint}` : ''} (${whence(c)})`).join('\n')}\n`;
}

/** Where a custom command comes from, short: `user: .claude/commands/x.md`, `extension weather: commands/x.toml`. */
function whence(c: import('../commands/loadCommands.js').CustomCommand): string {
  if (c.scope !== 'extension') return `${c.scope}: ${c.file.replace(/^.*?(\.(gemini|claude|devx)\/)/, '$1')}`;
  const marker = `/extensions/${c.extension}/`;
  const at = c.file.lastIndexOf(marker);
  return `extension ${c.extension}: ${at < 0 ? c.file : c.file.slice(at + marker.length)}`;
}
