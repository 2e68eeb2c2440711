// `devx protocol parse`: a reply on stdin, the parse as JSON on stdout (a stable interface).
import { parseToolCalls } from '../../protocol/parseToolCalls.js';
import { UsageError } from '../shared.js';
import { defineCommand, subcommandTable } from '../command.js';
import { printableJson } from '../../util/terminalText.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export const protocolCommand = defineCommand({
  name: 'protocol',
  summary: 'parse a model reply from stdin and print its tool calls and errors as JSON',
  usage: ['protocol parse < reply.txt'],
  flags: {},
  subcommands: subcommandTable('parse | protocol parse < reply.txt | the calls, errors and warnings of a reply, as one JSON line'),
  async run({ positionals: args }) {
    if (args[0] !== 'parse' || args.length > 1) throw new UsageError('usage: devx protocol parse < reply.txt');
    const r = parseToolCalls(await readStdin());
    const out = {
      calls: r.calls.map((c) => ({ tool: c.tool, args: c.args })),
      errors: r.errors.map((e) => ({ line: e.line, message: e.message })),
      warnings: r.warnings,
    };
    process.stdout.write(printableJson(out) + '\n');
    return 0;
  },
});
