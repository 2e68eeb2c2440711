// `/workflow ...` in the REPL: the same command as `devx workflow ...`, its words split as a shell would.
import { parse } from 'shell-quote';
import { parseFlags } from './command.js';
import { workflowCommand } from './commands/workflow.js';

export async function runWorkflowSlash(text: string, out: NodeJS.WritableStream): Promise<void> {
  const words = parse(text.slice('/workflow'.length)).filter((w): w is string => typeof w === 'string');
  try {
    const args = parseFlags(workflowCommand.flags, words);
    await workflowCommand.run(args);
  } catch (err) {
    out.write(`${(err as Error).message}\n`);
  }
}
