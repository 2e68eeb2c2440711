// What judging a shell command needs, loaded on the first command rather than at every start: the
// bash parser (tree-sitter, WebAssembly) and the command rules (tables a one-shot answer never uses).
import type { Parser } from 'web-tree-sitter';
import type { decideCommand } from './decideCommand.js';

export interface CommandJudge {
  parser: Parser;
  decideCommand: typeof decideCommand;
}

export async function loadCommandJudge(): Promise<CommandJudge> {
  // Both are dynamic imports: web-tree-sitter's own module is not even compiled until then.
  const [parser, rules] = await Promise.all([import('./bashParser.js').then((m) => m.loadBashParser()), import('./decideCommand.js')]);
  return { parser, decideCommand: rules.decideCommand };
}
