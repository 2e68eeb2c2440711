// Connects to one MCP server with the official SDK client: a stdio child process (devx's
// environment minus secrets, plus the server's own env), or streamable HTTP with SSE as fallback.
// The SDK loads only when a server is configured.
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerEntry } from '../config/mcpSettings.js';
import { expandAll, expandEnv } from './expandEnv.js';
import { ownChildren } from '../util/processRunner.js';
import { unwatchProcess, watchProcess } from '../util/processGroups.js';
import { OWNER_ENV } from '../util/reapGroups.js';

export type TransportKind = 'stdio' | 'http' | 'sse';

export interface Connection {
  client: Client;
  kind: TransportKind;
  /** The stdio server's pid. */
  pid?: number;
  /** The last lines the server wrote to stderr (why it failed to start). */
  stderrTail(): string;
  close(): Promise<void>;
}

export interface ConnectContext {
  /** Where a stdio server starts: the project unless given (outside a project that is not trusted). */
  workDir?: string;
  root: string;
  env: NodeJS.ProcessEnv;
  version: string;
  signal?: AbortSignal;
  /** Where OAuth tokens are kept (`devx mcp login`); absent: servers are reached without them. */
  devxHome?: string;
}

function tailBuffer(max = 4000) {
  let buf = '';
  return {
    add: (d: Buffer | string) => {
      buf = (buf + d.toString()).slice(-max);
    },
    get: () => buf.trim().split('\n').slice(-3).join(' / '),
  };
}

async function newClient(version: string): Promise<Client> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  return new Client({ name: 'devx', version }, { capabilities: {} });
}

async function connectStdio(entry: McpServerEntry, ctx: ConnectContext): Promise<Connection> {
  const { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  // Only the basics (PATH, HOME, ...) are inherited; a server gets its tokens from its own env.
  const base = Object.fromEntries(
    DEFAULT_INHERITED_ENV_VARS.flatMap((k) => (ctx.env[k] !== undefined && !ctx.env[k]!.startsWith('()') ? [[k, ctx.env[k]!]] : [])),
  );
  const startIn = ctx.workDir ?? ctx.root;
  const cwd = entry.cwd ? path.resolve(startIn, expandEnv(entry.cwd, ctx.env)) : startIn;
  // The server dies with devx, also on kill -9: it carries the owner marker, and the watchdog is told of it.
  ownChildren();
  const transport = new StdioClientTransport({
    command: expandEnv(entry.command!, ctx.env),
    args: (entry.args ?? []).map((a) => expandEnv(a, ctx.env)),
    env: { ...base, ...expandAll(entry.env, ctx.env), [OWNER_ENV]: String(process.pid) },
    cwd,
    stderr: 'pipe',
  });
  const tail = tailBuffer();
  transport.stderr?.on('data', tail.add);
  const client = await newClient(ctx.version);
  const connecting = client.connect(transport, { signal: ctx.signal });
  connecting.catch(() => undefined); // handled below, after the pid is read
  // The pid, while the transport still has it (a failed connect forgets it).
  await new Promise((r) => setImmediate(r));
  const pid = transport.pid ?? undefined;
  if (pid) watchProcess(pid);
  try {
    await connecting;
  } catch (err) {
    if (pid) unwatchProcess(pid);
    // A server that did not start gets no grace period (the SDK would wait for it to exit on its own).
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await transport.close().catch(() => undefined);
    const why = tail.get();
    throw new Error(`${(err as Error).message}${why ? ` (stderr: ${why})` : ''}`);
  }
  const close = async () => {
    await client.close();
    if (pid) unwatchProcess(pid);
  };
  return { client, kind: 'stdio', pid, stderrTail: tail.get, close };
}

async function connectHttp(entry: McpServerEntry, ctx: ConnectContext): Promise<Connection> {
  const url = new URL(expandEnv((entry.httpUrl ?? entry.url)!, ctx.env));
  const headers = expandAll(entry.headers, ctx.env);
  const authProvider = await signedIn(entry, url.toString(), ctx);
  const attempt = async (kind: 'http' | 'sse'): Promise<Connection> => {
    let transport: Transport;
    if (kind === 'http') {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, authProvider });
    } else {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
      transport = new SSEClientTransport(url, {
        requestInit: { headers },
        authProvider,
        eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
      });
    }
    const client = await newClient(ctx.version);
    try {
      await client.connect(transport, { signal: ctx.signal });
    } catch (err) {
      await transport.close().catch(() => undefined);
      throw explainAuthFailure(err, entry);
    }
    return { client, kind, stderrTail: () => '', close: () => client.close() };
  };
  if (entry.type === 'sse') return attempt('sse');
  if (entry.type === 'http' || entry.type === 'streamable-http' || entry.httpUrl) return attempt('http');
  try {
    return await attempt('http');
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    // Older servers speak only the SSE transport.
    try {
      return await attempt('sse');
    } catch {
      throw err;
    }
  }
}

/** The OAuth client for a server the person signed in to (`devx mcp login`), which presents and refreshes its tokens. */
async function signedIn(entry: McpServerEntry, url: string, ctx: ConnectContext) {
  if (!ctx.devxHome) return undefined;
  const { oauthSettingsOf, DevxOAuthClient } = await import('./oauthClient.js');
  const { OAuthStore } = await import('./oauthStore.js');
  const settings = oauthSettingsOf(entry);
  if (settings.enabled === false) return undefined;
  const store = OAuthStore.for(ctx.devxHome, entry.name, url);
  return store.hasTokens() ? new DevxOAuthClient(store, settings, { server: entry.name }) : undefined;
}

/** A 401 (or a sign-in the session cannot do) says how to sign in, rather than the transport's words. */
function explainAuthFailure(err: unknown, entry: McpServerEntry): unknown {
  const e = err as Error & { code?: number };
  if (e?.name === 'SignInNeededError') return e;
  if (e?.name === 'UnauthorizedError' || e?.code === 401 || /\b401\b|unauthori[sz]ed/i.test(e?.message ?? ''))
    return new Error(`the server refused devx (401): it needs sign-in (OAuth): run \`devx mcp login ${entry.name}\``);
  return err;
}

export function transportOf(entry: McpServerEntry): TransportKind {
  if (entry.command) return 'stdio';
  return entry.type === 'sse' ? 'sse' : 'http';
}

export function connectServer(entry: McpServerEntry, ctx: ConnectContext): Promise<Connection> {
  return entry.command ? connectStdio(entry, ctx) : connectHttp(entry, ctx);
}
