import * as z from 'zod';
import { defineTool } from './types.js';
import { intArg } from './argTypes.js';
import { movedNote, runContained } from './runContained.js';

export const runCommandTool = defineTool({
  name: 'run_command',
  needs: ['commandTimeoutMs', 'output', 'root', 'runner', 'sandbox', 'signal'],
  kind: 'execute',
  descriptionFile: 'tools/run_command.md',
  example: 'TOOL_CALL: run_command | cmd=npm test -- --run | timeout=300',
  commandFor: (args) => String(args.cmd ?? ''),
  describe: (a) => `run: ${a.cmd}`,
  aliases: ['Bash'],
  limits: { maxChars: 60_000, keep: 'head-tail' },
  schema: z.object({
    cmd: z.string().trim().min(1, 'cmd must not be empty').describe('shell command, run with bash in the project root'),
    timeout: intArg('seconds before the command is killed (default 120, max 1800)', 1, 1800).optional(),
  }),
  preview: async (ctx) => `in ${ctx.root}`,
  async execute(ctx, args) {
    const timeoutMs = args.timeout ? args.timeout * 1000 : ctx.commandTimeoutMs;
    const { r, moved } = await runContained(ctx, ['bash', '-c', args.cmd], {
      timeoutMs,
      signal: ctx.signal,
      maxBuffer: 10 * 1024 * 1024,
      reapGroup: true,
      onStdout: ctx.output && ((t) => ctx.output!('run_command', t)),
      onStderr: ctx.output && ((t) => ctx.output!('run_command', t)),
    });
    const parts: string[] = [];
    if (r.timedOut) parts.push(`[killed after ${Math.round(timeoutMs / 1000)}s timeout; pass timeout= for longer commands]`);
    if (r.cancelled) parts.push('[cancelled by the user]');
    if (r.outputCapped) parts.push('[output exceeded 10 MB; the command was stopped]');
    if (r.reaped) parts.push("[stopped what the command left running in the background: a command's processes end when it does]");
    parts.push(`exit_code=${r.exitCode ?? 'none'}${r.signal ? ` signal=${r.signal}` : ''}`);
    parts.push(`stdout:\n${r.stdout}`);
    if (r.stderr) parts.push(`stderr:\n${r.stderr}`);
    parts.push(...movedNote(moved));
    return {
      content: parts.join('\n'),
      meta: { cmd: args.cmd, exit_code: r.exitCode ?? 'none', sandbox: ctx.sandbox ? `bwrap:${ctx.sandbox.claim.profile}` : undefined },
      isError: r.exitCode !== 0,
    };
  },
});
