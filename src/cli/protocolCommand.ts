// `devx protocol parse`: a reply on stdin, the parse as JSON on stdout (a stable interface).
import { parseToolCalls } from '../protocol/parseToolCalls.js';
import { UsageError } from './runCli.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function runProtocolCommand(args: string[]): Promise<number> {
  if (args[0] !== 'parse' || args.length > 1) throw new UsageError('usage: devx protocol parse < reply.txt');
  const r = parseToolCalls(await readStdin());
  const out = {
    calls: r.calls.map((c) => ({ tool: c.tool, args: c.args })),
    errors: r.errors.map((e) => ({ line: e.line, message: e.message })),
    warnings: r.warnings,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
  return 0;
}
