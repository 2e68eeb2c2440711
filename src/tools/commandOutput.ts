import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { intArg } from './argTypes.js';
import { describeState, type BackgroundCommands } from './backgroundCommands.js';

/** The longest command_output may wait for output, in seconds. */
const MAX_WAIT_S = 300;

export const commandOutputTool = defineTool({
  name: 'command_output',
  needs: ['background', 'signal'],
  kind: 'meta',
  descriptionFile: 'tools/command_output.md',
  example: 'TOOL_CALL: command_output | id=bg1 | until=listening on | wait=30',
  describe: (a) => `output of ${a.id}${a.until ? ` until /${a.until}/` : ''}`,
  aliases: ['BashOutput'],
  limits: { maxChars: 30_000, keep: 'head-tail' },
  schema: z.object({
    id: z.string().trim().min(1, 'id must not be empty').describe('the id run_command gave the background command (bg1, bg2, ...)'),
    until: z.string().min(1).optional().describe('a regular expression: wait until what it printed since the last look matches it (or it ends)'),
    wait: intArg(`seconds to wait for output (with until: default 30; without: default 0, max ${MAX_WAIT_S})`, 0, MAX_WAIT_S).optional(),
  }),
  async execute(ctx, args) {
    const bg = ctx.background;
    if (!bg) throw new ToolError('background commands are not available in this run');
    const until = args.until === undefined ? undefined : untilPattern(args.until);
    const waitS = args.wait ?? (until ? 30 : 0);
    await bg.wait(args.id, { until, ms: waitS * 1000, signal: ctx.signal });
    const r = readOrFail(bg, args.id);
    const v = r.view;
    const lines = [v.state === 'running' ? `${v.id} is still running` : `${v.id} ${describeState(v)}`];
    if (until && v.state === 'running' && !until.test(r.text)) lines.push(`[nothing matching /${args.until}/ within ${waitS}s]`);
    if (r.dropped) lines.push(`[${r.dropped} earlier characters were dropped: devx keeps the newest output of a background command]`);
    lines.push(r.text ? `output since the last look:\n${r.text}` : '(no new output since the last look)');
    if (v.state !== 'running') lines.push(...v.notes);
    return {
      content: lines.join('\n'),
      meta: { id: v.id, running: v.state === 'running', exit_code: v.state === 'running' ? undefined : (v.exitCode ?? 'none') },
      isError: v.state === 'exited' && v.exitCode !== 0,
    };
  },
});

/** The model's `until` as a regular expression, or a ToolError saying why it is not one. */
function untilPattern(source: string): RegExp {
  try {
    return new RegExp(source, 'm');
  } catch (err) {
    throw new ToolError(`until is not a regular expression: ${(err as Error).message}`);
  }
}

/** The command's output since the last look, or a ToolError naming the ids there are. */
export function readOrFail(bg: BackgroundCommands, id: string): NonNullable<ReturnType<BackgroundCommands['read']>> {
  const r = bg.read(id);
  if (!r) throw new ToolError(`no background command "${id}"; ${knownIds(bg)}`);
  return r;
}

/** The ids of the session's background commands, in words. */
export function knownIds(bg: BackgroundCommands): string {
  const ids = bg.list().map((v) => v.id);
  return ids.length ? `this session has ${ids.join(', ')}` : 'none was started in this session (run_command with background=true starts one)';
}
