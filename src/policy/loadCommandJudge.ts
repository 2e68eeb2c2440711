// What judging a shell command needs, loaded on the first command rather than at every start: the
// bash parser (tree-sitter, ~25 ms) and the command rules (~100 KB of tables a one-shot answer never uses).
import type { Parser } from 'web-tree-sitter';
import type { decideCommand } from './decideCommand.js';
import { loadBashParser } from './bashParser.js';

export interface CommandJudge {
  parser: Parser;
  decideCommand: typeof decideCommand;
}

export async function loadCommandJudge(): Promise<CommandJudge> {
  const [parser, rules] = await Promise.all([loadBashParser(), import('./decideCommand.js')]);
  return { parser, decideCommand: rules.decideCommand };
}
