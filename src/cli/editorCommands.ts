// The slash commands an ACP editor is offered (those marked `editor` in SLASH_COMMANDS): the same
// handlers as the REPL's, with their output collected as the answer and no editor or picker to open.
// A command that is a CLI command's handler (/agent, /memory, /workflow) runs as `devx <command> …` in the
// session's project, its output the answer; one that only has meaning in the REPL says so.
import type { EditorCommand } from '../acp/editorCommands.js';
import type { AgentEvent } from '../core/loop.js';
import { SLASH_COMMANDS, whyReplOnly, type SlashCommand } from './slashCommands.js';
import type { Started } from '../runtime/startSession.js';
import { runProcess } from '../util/processRunner.js';
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

/** The words of a command line, quotes taken off (as /agent and /memory split them). */
function wordsOf(line: string): string[] {
  return (line.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
}

/** `/agent:start a "b"` as devx's argv: `agent start a b`. */
function cliArgs(line: string): string[] {
  const [head, ...rest] = wordsOf(line);
  const [name, sub] = head.slice(1).split(/:(.*)/s);
  return [name, ...(sub ? [sub] : []), ...rest];
}

/** Runs the command line as `devx …` in the session's project; what it printed, and its exit code when it failed. */
async function runAsCli(started: Started, line: string, io: { write(text: string): void; signal: AbortSignal }): Promise<void> {
  const r = await runProcess(process.execPath, [process.argv[1], ...cliArgs(line)], {
    cwd: started.run.agent.root,
    env: process.env,
    signal: io.signal,
    timeoutMs: 24 * 3600_000,
  });
  io.write(`${r.stdout}${r.stderr}${r.exitCode ? `(exit ${r.exitCode})\n` : ''}`);
}

export function editorCommands(): EditorCommand[] {
  const offered = SLASH_COMMANDS.filter((c) => c.editor && c.run);
  const replOnly = SLASH_COMMANDS.filter((c) => !c.editor && c.run && c.replOnly);
  return [...offered.map((c) => offer(c, offered)), ...replOnly.map(refuse)];
}

/** A REPL-only command: run in an editor, it says what to do instead. */
function refuse(c: SlashCommand): EditorCommand {
  return {
    name: c.names[0],
    description: c.summary,
    unlisted: true,
    async run(_started, args, line, io) {
      io.write(`${line.split(/\s+/)[0]} ${whyReplOnly(c, args) ?? 'needs the REPL'}\n`);
    },
  };
}

function offer(c: SlashCommand, offered: SlashCommand[]): EditorCommand {
  return {
    name: c.names[0],
    description: c.summary,
    ...(c.args ? { hint: c.args } : {}),
    ...(c.prefixes ? { prefixes: c.prefixes } : {}),
    async run(started, args, line, io) {
      if (c.names[0] === 'help') return void io.write(`${editorHelp(offered)}${renderCustomHelp(started.run.agent.commands)}`);
      const why = whyReplOnly(c, args);
      if (why) return void io.write(`${line.split(/\s+/)[0]} ${why}\n`);
      if (c.printsToStdout) return runAsCli(started, line, io);
      const out = { write: (chunk: string | Uint8Array) => (io.write(String(chunk)), true) } as unknown as NodeJS.WritableStream;
      const unsubscribe = started.run.subscribe((e) => void (e.type === 'compaction' && io.write(compactionLine(e))));
      try {
        await c.run!({ started, out, edit: () => null, cancellable: (work) => work(io.signal) }, args, line);
      } finally {
        unsubscribe();
      }
    },
  };
}
