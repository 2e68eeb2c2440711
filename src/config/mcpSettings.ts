// `mcpServers` in settings, in the shape Claude Code and Gemini CLI use: a stdio server
// ({command, args, env, cwd}) or an HTTP one ({url, headers}: streamable HTTP, SSE as fallback;
// Gemini CLI's `httpUrl` too), plus devx's policy keys (trust, includeTools, excludeTools, timeout).
import * as z from 'zod';

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

// Built on first use, as settings' schemas are (config/settings.ts).
export const McpServerSchema = z.lazy(() =>
  z
    .object({
      /** Claude Code's transport tag; inferred from command/url when absent. */
      type: z.enum(['stdio', 'http', 'sse', 'streamable-http']).optional(),
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().min(1).optional(),
      url: z.string().url().optional(),
      /** Gemini CLI's spelling of a streamable HTTP url. */
      httpUrl: z.string().url().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      /** Calls to a trusted server run without asking (deny rules still apply). */
      trust: z.boolean().optional(),
      includeTools: z.array(z.string().min(1)).optional(),
      excludeTools: z.array(z.string().min(1)).optional(),
      /** Per-call timeout in ms (Gemini CLI's key); default 60000. */
      timeout: z.number().int().min(100).max(3_600_000).optional(),
      /** How long the server may take to start and list its tools, in ms; default 30000. */
      startupTimeout: z.number().int().min(100).max(600_000).optional(),
      description: z.string().optional(),
      disabled: z.boolean().optional(),
      /** Gemini CLI's OAuth settings for an HTTP server (enabled, clientId, clientSecret, scopes, redirectUri are used: mcp/oauthClient.ts). */
      oauth: z.record(z.string(), z.unknown()).optional(),
      authProviderType: z.string().optional(),
    })
    .strict()
    .superRefine((s, ctx) => {
      const remote = s.url ?? s.httpUrl;
      if (!s.command && !remote) ctx.addIssue({ code: 'custom', message: 'needs "command" (a stdio server) or "url" (an HTTP server)' });
      if (s.command && remote) ctx.addIssue({ code: 'custom', message: 'has both "command" and "url"; a server is one or the other' });
      if (s.type === 'stdio' && !s.command) ctx.addIssue({ code: 'custom', message: '"type": "stdio" needs "command"' });
      if (s.type && s.type !== 'stdio' && !remote) ctx.addIssue({ code: 'custom', message: `"type": "${s.type}" needs "url"` });
    }),
);

export type McpServerConfig = z.infer<typeof McpServerSchema>;

export const McpServersSchema = z.lazy(() => z.record(z.string().regex(SERVER_NAME, 'server names are letters, digits, - or _'), McpServerSchema));

/** A configured server with where it came from. */
export interface McpServerEntry extends McpServerConfig {
  name: string;
  file: string;
  /** An extension's folder, where its server's own files are: not a folder the server works on. */
  ownDir?: string;
}
