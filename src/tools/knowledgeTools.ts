// store_qdrant / query_qdrant: the seed's tool names, on whichever backend is configured (the
// embedded store by default, Qdrant with QDRANT_URL). Everything devx stores is tagged agent "gemini".
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { intArg } from './argTypes.js';
import { KnowledgeError, type KnowledgeStore } from '../knowledge/types.js';

const tagList = z.string().optional().describe('comma-separated tags');
const parseTags = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

function storeOf(ctx: { knowledge?: () => KnowledgeStore }): KnowledgeStore {
  if (!ctx.knowledge) throw new ToolError('the knowledge store is not available in this run');
  return ctx.knowledge();
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof KnowledgeError) throw new ToolError(`knowledge store error: ${err.message}. The session goes on without it.`);
    throw err;
  }
}

export const storeKnowledgeTool = defineTool({
  name: 'store_qdrant',
  needs: ['knowledge', 'root'],
  kind: 'meta',
  writesState: true,
  describe: (a) => `store a note in the knowledge store (${String(a.content ?? '').length} chars)`,
  descriptionFile: 'tools/store_qdrant.md',
  example:
    'TOOL_CALL: store_qdrant | type=research | tags=auth,sessions | content=```\nSessions expire after 30 minutes of inactivity; see src/auth/session.ts.\n```',
  schema: z.object({
    content: z.string().describe('the text to store (fenced when it spans lines)'),
    type: z.string().optional().describe('kind of entry: note, research, decision, doc (default note)'),
    tags: tagList,
    project: z.string().optional().describe('project name (default: this project)'),
  }),
  async execute(ctx, args) {
    const store = storeOf(ctx);
    return guard(async () => {
      const [id] = await store.add([
        {
          content: args.content,
          metadata: {
            agent: 'gemini',
            timestamp: new Date().toISOString(),
            project: args.project ?? path.basename(ctx.root),
            type: args.type ?? 'note',
            tags: parseTags(args.tags),
          },
        },
      ]);
      return { content: `stored as ${id} in the ${store.backend} store`, meta: { id }, artifacts: [`knowledge:${id}`] };
    });
  },
});

export const queryKnowledgeTool = defineTool({
  name: 'query_qdrant',
  needs: ['knowledge', 'root'],
  kind: 'read',
  describe: (a) => `search the knowledge store for "${a.query}"`,
  limits: { maxChars: 30_000 },
  descriptionFile: 'tools/query_qdrant.md',
  example: 'TOOL_CALL: query_qdrant | query=how do sessions expire | agent=claude | limit=5',
  schema: z.object({
    query: z.string().describe('what to look for, in words'),
    agent: z.string().optional().describe('only entries stored by this agent (gemini, claude)'),
    project: z.string().optional().describe('only entries of this project'),
    type: z.string().optional().describe('only entries of this type'),
    tags: tagList,
    limit: intArg('how many results (default 5, max 50)', 1, 50).optional(),
  }),
  async execute(ctx, args) {
    const store = storeOf(ctx);
    return guard(async () => {
      const hits = await store.search(args.query, {
        limit: args.limit ?? 5,
        filter: { agent: args.agent, project: args.project, type: args.type, tags: parseTags(args.tags) },
      });
      if (!hits.length) return { content: 'no matching entries', meta: { hits: 0 } };
      const body = hits
        .map(
          (h, i) =>
            `${i + 1}. [${h.id}] score=${h.score.toFixed(3)} agent=${h.metadata.agent} type=${h.metadata.type} project=${h.metadata.project} tags=${h.metadata.tags.join(',') || '-'} at=${h.metadata.timestamp}\n${h.content}`,
        )
        .join('\n\n');
      return { content: body, meta: { hits: hits.length } };
    });
  },
});
