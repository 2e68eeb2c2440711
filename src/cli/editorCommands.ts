// The slash commands an ACP editor is offered (those marked `editor` in SLASH_COMMANDS): the same
// handlers as the REPL's, with their output collected as the answer and no editor or picker to open.
import type { EditorCommand } from '../acp/editorCommands.js';
import type { AgentEvent } from '../core/loop.js';
import { SLASH_COMMANDS, type SlashCommand } from './slashCommands.js';
import { renderCustomHelp } from './help.js';

/** /help for an editor: the commands it offers (its own keys and /edit do not apply there). */
function editorHelp(offered: SlashCommand[]): string {
  const w = Math.max(...offered.map((c) => c.names[0].length + (c.args ? c.args.length + 1 : 0))) + 3;
  return `Commands:\n${offered.map((c) => `  ${`/${c.names[0]}${c.args ? ` ${c.args}` : ''}`.padEnd(w)}${c.summary}`).join('\n')}\n`;
}

/** What a /compact did, as the REPL's renderer says it. */
function compactionLine(e: Extract<AgentEvent, { type: 'compaction' }>): string {
  if (e.phase === 'done')
    return `compacted ${e.messages} messages into a summary (${Math.round(e.beforeChars / 1000)} k → ${Math.round(e.afterChars / 1000)} k characters); the full transcript is in ${e.transcript}\n`;
  if (e.phase === 'failed') return `could not compact the conversation: ${e.error}; nothing was lost\n`;
  return '';
}

export function editorCommands(): EditorCommand[] {
  const offered = SLASH_COMMANDS.filter((c) => c.editor && c.run);
  return offered.map((c) => ({
    name: c.names[0],
    description: c.summary,
    ...(c.args ? { hint: c.args } : {}),
    async run(started, args, line, io) {
      if (c.names[0] === 'help') return void io.write(`${editorHelp(offered)}${renderCustomHelp(started.run.agent.commands)}`);
      const out = { write: (chunk: string | Uint8Array) => (io.write(String(chunk)), true) } as unknown as NodeJS.WritableStream;
      const unsubscribe = started.run.subscribe((e) => void (e.type === 'compaction' && io.write(compactionLine(e))));
      try {
        await c.run!({ started, out, edit: () => null, cancellable: (work) => work(io.signal) }, args, line);
      } finally {
        unsubscribe();
      }
    },
  }));
}
