import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { describeState } from './backgroundCommands.js';
import { knownIds } from './commandOutput.js';

export const stopCommandTool = defineTool({
  name: 'stop_command',
  needs: ['background'],
  kind: 'meta',
  // Stopping a server that runs changes what is there: plan mode only looks.
  writesState: true,
  descriptionFile: 'tools/stop_command.md',
  example: 'TOOL_CALL: stop_command | id=bg1',
  describe: (a) => `stop ${a.id}`,
  aliases: ['KillShell', 'KillBash'],
  schema: z.object({
    id: z.string().trim().min(1, 'id must not be empty').describe('the id run_command gave the background command (bg1, bg2, ...)'),
  }),
  async execute(ctx, args) {
    const bg = ctx.background;
    if (!bg) throw new ToolError('background commands are not available in this run');
    const before = bg.list().find((v) => v.id === args.id);
    if (!before) throw new ToolError(`no background command "${args.id}"; ${knownIds(bg)}`);
    if (before.state !== 'running') {
      bg.acknowledge(args.id);
      return { content: `${args.id} had already ended: ${describeState(before)}`, meta: { id: args.id } };
    }
    const v = (await bg.stop(args.id, 'model'))!;
    const unread = v.unread ? ` It printed ${v.unread} characters you have not read (command_output | id=${v.id} shows them).` : '';
    return { content: `${v.id} ${describeState(v)}: its process group was stopped.${unread}`, meta: { id: v.id } };
  },
});
