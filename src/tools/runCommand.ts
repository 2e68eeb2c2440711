import * as z from 'zod';
import { defineTool, ToolError, type ToolContext, type ToolOutput } from './types.js';
import { boolArg, intArg } from './argTypes.js';
import { movedNote, runContained } from './runContained.js';
import { bashLine } from '../util/bashLine.js';

export const runCommandTool = defineTool({
  name: 'run_command',
  needs: ['background', 'commandTimeoutMs', 'env', 'output', 'root', 'runner', 'sandbox', 'signal'],
  kind: 'execute',
  descriptionFile: 'tools/run_command.md',
  example: 'TOOL_CALL: run_command | cmd=npm test -- --run | timeout=300',
  commandFor: (args) => String(args.cmd ?? ''),
  describe: (a) => `run: ${a.cmd}`,
  aliases: ['Bash'],
  limits: { maxChars: 60_000, keep: 'head-tail' },
  schema: z.object({
    cmd: z.string().trim().min(1, 'cmd must not be empty').describe('shell command, run with bash in the project root'),
    timeout: intArg(
      'seconds before the command is killed (default 120, max 1800; a background command runs until it ends or is stopped unless given)',
      1,
      1800,
    ).optional(),
    background: boolArg(
      'true: start it and return its id at once (a server, a watcher); read its output with command_output, end it with stop_command',
    ).optional(),
  }),
  preview: async (ctx, args) => `in ${ctx.root}${args.background ? ', in the background' : ''}`,
  async execute(ctx, args) {
    if (args.background) return startInBackground(ctx, args);
    const timeoutMs = args.timeout ? args.timeout * 1000 : ctx.commandTimeoutMs;
    const { r, moved } = await runContained(ctx, bashLine(args.cmd), {
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

/** background=true: the command starts as it would have run (the same sandbox claim or approval), and its id comes back at once. */
function startInBackground(ctx: Pick<ToolContext, 'background' | 'env' | 'root' | 'runner' | 'sandbox'>, args: { cmd: string; timeout?: number }): ToolOutput {
  if (!ctx.background) throw new ToolError('background commands are not available in this run; run it without background=true');
  const sandbox = ctx.sandbox ? `bwrap:${ctx.sandbox.claim.profile}` : null;
  const timeoutMs = args.timeout ? args.timeout * 1000 : undefined;
  const v = ctx.background.start(args.cmd, sandbox, async (l) => {
    const { r, moved } = await runContained(ctx, bashLine(args.cmd), {
      signal: l.signal,
      timeoutMs,
      keepOutput: false,
      reapGroup: true,
      onStdout: l.onOutput,
      onStderr: l.onOutput,
      observer: { started: l.onGroup, ended: () => undefined },
    });
    const notes = r.timedOut ? [`[killed after its ${args.timeout}s timeout]`] : [];
    if (r.reaped) notes.push('[stopped what it left running when it ended]');
    return { exitCode: r.exitCode, signal: r.signal, notes: [...notes, ...movedNote(moved)] };
  });
  return {
    content: [
      `started in the background as ${v.id}${sandbox ? ` (sandboxed: ${sandbox})` : ''}; it runs until it ends, is stopped, or the session ends.`,
      `Read what it prints with: TOOL_CALL: command_output | id=${v.id}`,
      `Stop it with: TOOL_CALL: stop_command | id=${v.id}`,
    ].join('\n'),
    meta: { cmd: args.cmd, id: v.id, sandbox: sandbox ?? undefined },
  };
}
