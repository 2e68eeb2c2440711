import * as z from 'zod';
import { defineTool, ToolError } from './types.js';

let spawnCounter = 0;

export const spawnGeminiTool = defineTool({
  name: 'spawn_gemini',
  needs: ['progress', 'signal', 'spawn'],
  kind: 'meta',
  aliases: ['Task'],
  spawnsAgents: true,
  describe: (a) =>
    `spawn ${a.agent ? `${a.agent} ` : ''}sub-agent: ${String(a.query ?? '')
      .replace(/\s+/g, ' ')
      .slice(0, 70)}`,
  concurrent: true,
  descriptionFile: 'tools/spawn_gemini.md',
  example: 'TOOL_CALL: spawn_gemini | query=Summarise how src/auth handles session expiry, with file and line references',
  schema: z.object({
    query: z.string().trim().min(1).describe('the complete, self-contained request for the sub-agent'),
    agent: z.string().optional().describe('the agent the sub-agent runs as (its prompt, tools and model)'),
    account: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('make its model calls on this account only (a name or a 1-based number from the configured accounts); default: the accounts in turn'),
  }),
  async execute(ctx, args) {
    if (!ctx.spawn) throw new ToolError('spawn_gemini is not available here: sub-agents cannot spawn further sub-agents (depth limit 1)');
    const id = ++spawnCounter;
    const started = Date.now();
    const label = `${args.agent ? `[${args.agent}] ` : ''}${args.query.replace(/\s+/g, ' ').slice(0, 70)}`;
    ctx.progress?.({ id, label, phase: 'start' });
    let r: { answer: string; status: string };
    try {
      r = await ctx.spawn(args.query, args.agent, ctx.signal, args.account);
    } catch (err) {
      ctx.progress?.({ id, label, phase: 'end', status: 'error', elapsedMs: Date.now() - started });
      throw err;
    }
    ctx.progress?.({ id, label, phase: 'end', status: r.status, elapsedMs: Date.now() - started });
    return { content: r.answer, isError: r.status !== 'answered', meta: { status: r.status, agent: args.agent, account: args.account } };
  },
});
