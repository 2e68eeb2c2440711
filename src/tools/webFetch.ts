import * as z from 'zod';
import { defineTool, ToolError } from './types.js';

/** web_fetch: a page as Markdown (HTML) or text. The policy judges the URL (policy/webRules.ts). */
export const webFetchTool = defineTool({
  name: 'web_fetch',
  needs: ['signal', 'webHostNamed'],
  kind: 'read',
  descriptionFile: 'tools/web_fetch.md',
  urlFor: (a) => String(a.url ?? ''),
  describe: (a) => `fetch ${a.url}`,
  aliases: ['WebFetch'],
  example: 'TOOL_CALL: web_fetch | url=https://docs.python.org/3/library/json.html',
  limits: { maxChars: 100_000, keep: 'head' },
  schema: z.object({
    url: z.string().trim().min(1, 'url must not be empty').describe('an absolute http:// or https:// URL'),
    prompt: z.string().optional().describe('what you are looking for (devx returns the page; you read it)'),
  }),
  async execute(ctx, args) {
    try {
      // Loaded on first use: its HTML-to-Markdown converter was a tenth of every devx start's CPU.
      const { fetchPage, MAX_BYTES } = await import('./fetchPage.js');
      const MAX_MB = MAX_BYTES / 1024 / 1024;
      const page = await fetchPage(args.url, { signal: ctx.signal, privateAllowed: (host) => ctx.webHostNamed?.(host) ?? false });
      if (page.redirectedTo) {
        return {
          content: `${args.url} redirects to ${page.redirectedTo}, another host. Fetch that URL with web_fetch if you need it (it is judged by its own host).`,
          meta: { url: args.url, status: page.status },
        };
      }
      const head = `${page.url} (${page.status}, ${page.contentType || 'no content type'}, ${page.bytes} bytes)`;
      // Said first: a long page's end is also cut to the tool's output limit.
      const cut = page.cut ? `\n[devx: the page is longer than ${MAX_MB} MB; what follows is its first ${MAX_MB} MB]` : '';
      return { content: `${head}${cut}\n\n${page.text}`, meta: { url: args.url, status: page.status }, isError: page.status >= 400 };
    } catch (err) {
      throw new ToolError(`could not fetch ${args.url}: ${(err as Error).message}`);
    }
  },
});
