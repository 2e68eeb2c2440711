// Agents as tools: `TOOL_CALL: agent | name=changelog | input=...` starts a sub-agent (a headless run
// of that agent) and returns its answer. Only agents the caller lists as `agent:<name>` in its tools
// may be called.
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';

/** The prefix an agent file's `tools` entry uses to make another agent callable. */
export const AGENT_TOOL_PREFIX = 'agent:';

let agentCallCounter = 0;

export const agentTool = defineTool({
  name: 'agent',
  needs: ['callableAgents', 'progress', 'runAgent', 'signal'],
  kind: 'meta',
  spawnsAgents: true,
  onlyWhenListed: true,
  descriptionFile: 'tools/agent.md',
  describe: (a) =>
    `agent ${a.name}: ${String(a.input ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, 70)}`,
  example: 'TOOL_CALL: agent | name=changelog | input=Append to tasks/login-bug/changelog.md: Generated initial context, awaiting review.',
  schema: z.object({
    name: z.string().trim().min(1).describe('the agent to run (one listed as agent:<name> in your tools)'),
    input: z.string().trim().min(1).describe('everything that agent needs: it does not see this conversation'),
  }),
  async execute(ctx, args) {
    const allowed = ctx.callableAgents ?? [];
    if (!ctx.runAgent)
      throw new ToolError('the agent tool is not available here: a sub-agent cannot call further agents (depth limit 1). Finish with what you have.');
    if (!allowed.includes(args.name)) {
      throw new ToolError(
        allowed.length
          ? `you may not call the agent "${args.name}". You may call: ${allowed.join(', ')}.`
          : `no agents are callable here: an agent lists the ones it may call in its tools as agent:<name>.`,
      );
    }
    const id = ++agentCallCounter;
    const started = Date.now();
    const label = `[${args.name}] ${args.input.replace(/\s+/g, ' ').slice(0, 70)}`;
    ctx.progress?.({ id, label, phase: 'start' });
    let r: { answer: string; status: string };
    try {
      r = await ctx.runAgent(args.name, args.input, ctx.signal);
    } catch (err) {
      ctx.progress?.({ id, label, phase: 'end', status: 'error', elapsedMs: Date.now() - started });
      throw err;
    }
    ctx.progress?.({ id, label, phase: 'end', status: r.status, elapsedMs: Date.now() - started });
    return { content: r.answer, isError: r.status !== 'answered', meta: { agent: args.name, status: r.status } };
  },
});
