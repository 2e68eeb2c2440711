// devx's own slash commands outside the REPL: `devx run "/agent:start helper \"…\""` and an ACP editor's
// prompt run the REPL's handler (slashCommands.ts) as the REPL runs it, with nobody at a terminal (no picker,
// no wizard questions, no editor to open); a command that only has meaning in the REPL is refused, saying
// what to run instead.
import type { Started } from '../runtime/startSession.js';
import { findSlash, whyReplOnly, type SlashCommand } from './slashCommands.js';
import { textOnly } from './visible.js';

/** What running a command headless came to: its exit code, or why it does not run outside the REPL. */
export type HeadlessSlashResult = { code: number } | { refused: string };

/** devx's own command a one-shot prompt names, with its arguments; null for a message or a custom command. */
export function findHeadlessSlash(prompt: string): { command: SlashCommand; args: string; line: string } | null {
  const line = prompt.trim();
  const found = findSlash(line);
  return found ? { ...found, line } : null;
}

/** Runs the command as the REPL would, writing what it says to `out`. */
export async function runHeadlessSlash(
  found: { command: SlashCommand; args: string; line: string },
  started: Started,
  io: { out: NodeJS.WritableStream; signal: AbortSignal },
): Promise<HeadlessSlashResult> {
  const name = found.line.split(/\s+/)[0];
  const why = whyReplOnly(found.command, found.args);
  if (why) return { refused: `${name} ${why}` };
  let code = 0;
  await found.command.run!(
    {
      started,
      out: textOnly(io.out),
      edit: () => null,
      cancellable: (work) => work(io.signal),
      failed: (c) => (code = c),
    },
    found.args,
    found.line,
  );
  return { code };
}
