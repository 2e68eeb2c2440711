import * as z from 'zod';
import { defineTool, ToolError } from './types.js';

export const rememberTool = defineTool({
  name: 'remember',
  needs: ['session'],
  kind: 'meta',
  writesState: true,
  descriptionFile: 'tools/remember.md',
  example: 'TOOL_CALL: remember | fact=The integration tests need a running Postgres on port 5433',
  schema: z.object({ fact: z.string().trim().min(1).max(500).describe('one durable fact, a single line') }),
  async execute(ctx, args) {
    if (!ctx.session) throw new ToolError('remember is not available in this run (no session)');
    const r = ctx.session.remember(args.fact);
    return { content: r.added ? `added to MEMORY.md: ${r.line}` : `not added: ${r.reason}` };
  },
});
