import * as z from 'zod';
import { defineTool, ToolError } from './types.js';

/** Parses a Markdown checklist ("- [ ] a", "- [x] b"); plain bullets count as open. */
export function parseChecklist(text: string): { text: string; done: boolean }[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^([-*]|\d+\.)\s+/.test(l))
    .map((l) => {
      const m = /^(?:[-*]|\d+\.)\s+(?:\[([ xX])\]\s*)?(.*)$/.exec(l)!;
      return { text: m[2].trim(), done: (m[1] ?? ' ').toLowerCase() === 'x' };
    })
    .filter((t) => t.text);
}

export const todoTool = defineTool({
  name: 'todo',
  needs: ['session'],
  kind: 'meta',
  aliases: ['TodoWrite'],
  descriptionFile: 'tools/todo.md',
  example:
    'TOOL_CALL: todo | objective=Fix the login bug | items=```\n- [x] Reproduce the failure\n- [ ] Fix the session check\n- [ ] Add a regression test\n```',
  schema: z.object({
    objective: z.string().optional().describe('the current objective, in one line'),
    items: z.string().optional().describe('the whole todo list as a Markdown checklist (replaces the previous list)'),
  }),
  async execute(ctx, args) {
    if (!ctx.session) throw new ToolError('todo is not available in this run (no session)');
    const current = ctx.session.getCheckpoint();
    if (args.objective === undefined && args.items === undefined) {
      return { content: renderCheckpoint(current) };
    }
    const todos = args.items !== undefined ? parseChecklist(args.items) : current.todos;
    if (args.items !== undefined && todos.length === 0 && args.items.trim())
      throw new ToolError('items must be a Markdown checklist: one "- [ ] task" or "- [x] done task" per line');
    const next = ctx.session.setCheckpoint({ objective: args.objective ?? current.objective, todos });
    return { content: `checkpoint saved\n${renderCheckpoint(next)}` };
  },
});

export function renderCheckpoint(c: { objective?: string; todos: { text: string; done: boolean }[] }): string {
  const lines = [`objective: ${c.objective ?? '(none)'}`];
  for (const t of c.todos) lines.push(`- [${t.done ? 'x' : ' '}] ${t.text}`);
  if (!c.todos.length) lines.push('(no todos)');
  return lines.join('\n');
}
