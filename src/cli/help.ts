// Help text that is not generated from the command table: the footer of `devx --help` and /help.
export const HELP_FOOTER = `Exit codes: 0 done, 1 the task failed or stopped, 2 bad usage or settings,
            3 a provider binary is missing, 4 another session is active here, 130 cancelled.

Settings: ~/.devx/settings.json, .devx/settings.json, .devx/settings.local.json.
Environment: DEVX_MODEL, DEVX_GEMINI_BIN, DEVX_HOME, DEVX_TURN_TIMEOUT_SEC, DEVX_HANDOFF, DEVX_PRESTART (off: no head start for devx run), DEVX_DEBUG, NO_COLOR.
`;

export const REPL_HELP = `Commands:
  /help      this help
  /tools     the tools the model can call
  /mcp       MCP servers of this session: state and tools
  /history   the conversation so far
  /clear     forget the conversation and start over
  /compact   summarise the older turns into one note now (done on its own near the context budget)
  /todos     the task checkpoint (objective and todo list)
  /undo [N] [--force] | --list   put back the files devx changed in the newest N turns (default 1)
  /resume [id]  restore an earlier session's checkpoint and conversation
  /agent     pick an agent persona (arrow keys, type to filter, Enter to switch)
  /agent list | show <name> | use <name> | use default   agent personas (/agent --help for all)
  /agent:start <name> "<prompt>" | /agent:run | /agent:status   the task queue
  /workflow list | run --mode bugfix "<request>" | status [id] | resume <id> | ...   multi-phase workflows
  /edit [text]  write a long message in $VISUAL/$EDITOR (Ctrl-X Ctrl-E too)
  /exit      leave (Ctrl-D works too)
Keys: Ctrl-C stops the turn (at a question: no); Ctrl-O shows a running command's whole output;
  /drop typed while devx works takes back what you typed meanwhile.
A pasted block is one message; a line ending in \\ continues on the next.
Ctrl-C cancels a running turn; Ctrl-C twice at the prompt exits.`;

/** The custom commands of this session for /help, with where each comes from. */
export function renderCustomHelp(loaded: import('../commands/loadCommands.js').LoadedCommands): string {
  const list = [...loaded.commands.values()].sort((a, b) => a.name.localeCompare(b.name));
  if (!list.length) return '';
  const w = Math.min(28, Math.max(...list.map((c) => c.name.length + 1)));
  return `Custom commands:\n${list.map((c) => `  ${`/${c.name}`.padEnd(w + 1)} ${c.description}${c.argumentHint ? ` ${c.argumentHint}` : ''} (${c.scope}: ${c.file.replace(/^.*?(\.(gemini|claude|devx)\/)/, '$1')})`).join('\n')}\n`;
}
