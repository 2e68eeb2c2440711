// The MCP servers of one session: started together once the session has started (the first `ready`), in
// parallel and each within its start-up timeout, their tools offered as devx tools once ready, and
// stopped with the session (one still starting is cancelled). A server that fails to start,
// times out or dies mid-call costs the model an error result and the user one line; nothing else.
import type { McpServerEntry } from '../config/mcpSettings.js';
import type { Tool } from '../tools/types.js';
import { ToolError } from '../tools/types.js';
import { connectServer, transportOf, type Connection, type TransportKind } from './connect.js';
import { expandEnv } from './expandEnv.js';
import { serverRoots, toMcpTool, type ListedTool } from './mcpTool.js';
import { formatCallResult } from './formatResult.js';
import { claudeToolName, protocolToolName } from './names.js';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

export type ServerState = 'starting' | 'ready' | 'failed' | 'disconnected' | 'disabled' | 'stopped';

export interface ServerStatus {
  name: string;
  file: string;
  transport: TransportKind;
  state: ServerState;
  error?: string;
  trusted: boolean;
  /** A directory outside the project the server works on (its calls always ask). */
  outsideRoot?: string;
  tools: { name: string; tool: string; description: string }[];
  /** Tools the server lists that includeTools/excludeTools left out. */
  filtered: string[];
}

interface Server {
  entry: McpServerEntry;
  status: ServerStatus;
  conn?: Connection;
  tools: Tool[];
  prompts?: McpPrompt[];
  /** Cancels the start while it is under way (the session ended first). */
  abort?: AbortController;
}

/** A prompt an MCP server offers: a slash command `/mcp__<server>__<prompt>` in devx. */
export interface McpPrompt {
  server: string;
  name: string;
  description: string;
  arguments: { name: string; required: boolean; description?: string }[];
}

export interface McpOptions {
  root: string;
  /** Where a stdio server starts (and its relative cwd is taken from): the project, or outside an untrusted one. */
  workDir?: string;
  env: NodeJS.ProcessEnv;
  version: string;
  /** Where `devx mcp login` keeps OAuth tokens. */
  devxHome?: string;
}

function firstLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** "did not start: why" / "is disconnected: why", for messages to the model. */
function stateText(s: ServerStatus): string {
  const verb = {
    starting: 'is still starting',
    failed: 'did not start',
    disconnected: 'is disconnected',
    disabled: 'is disabled in settings',
    stopped: 'has stopped',
    ready: 'is ready',
  }[s.state];
  return `${verb}${s.error ? `: ${s.error}` : ''}`;
}

/** includeTools/excludeTools name a tool as the server does (get-sum), as devx shows it (get_sum), or in full (mcp__server__get_sum). */
function keep(entry: McpServerEntry, tool: string): boolean {
  const full = [protocolToolName(entry.name, tool), claudeToolName(entry.name, tool)];
  const named = (list?: string[]) => list?.some((n) => n === tool || full.includes(n) || protocolToolName(entry.name, n) === full[0]);
  if (named(entry.excludeTools)) return false;
  return !entry.includeTools || Boolean(named(entry.includeTools));
}

async function listAllTools(conn: Connection, signal: AbortSignal): Promise<ListedTool[]> {
  const out: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await conn.client.listTools(cursor ? { cursor } : undefined, { signal });
    out.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

export class McpManager {
  private starting?: Promise<void>;

  private constructor(
    private readonly servers: Server[],
    private readonly opts: McpOptions,
  ) {}

  /**
   * Starts every enabled server at once (on first use: the session's own start never waits for them) and
   * resolves when each is ready or has failed. Never rejects; the same promise each time.
   */
  get ready(): Promise<void> {
    return (this.starting ??= Promise.all(this.servers.filter((s) => !s.entry.disabled).map((s) => this.startOne(s, this.opts))).then(() => undefined));
  }

  /** Starts every enabled server at once and resolves when each is ready or has failed. Never throws. */
  static async start(entries: McpServerEntry[], opts: McpOptions): Promise<McpManager> {
    const mgr = McpManager.launch(entries, opts);
    await mgr.ready;
    return mgr;
  }

  /** The servers of a session, not started yet: the first `ready` starts them, in the background. */
  static launch(entries: McpServerEntry[], opts: McpOptions): McpManager {
    const servers = entries.map((entry): Server => {
      const roots = serverRoots(entry, opts.root, (s) => expandEnv(s, opts.env));
      return {
        entry,
        tools: [],
        status: {
          name: entry.name,
          file: entry.file,
          transport: transportOf(entry),
          state: entry.disabled ? 'disabled' : 'starting',
          trusted: Boolean(entry.trust),
          outsideRoot: roots.outside,
          tools: [],
          filtered: [],
        },
      };
    });
    return new McpManager(servers, opts);
  }

  private stopping = false;

  private async startOne(s: Server, opts: McpOptions): Promise<void> {
    if (this.stopping) {
      s.status.state = 'failed';
      s.status.error = 'the session ended before it started';
      return;
    }
    const ms = s.entry.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const abort = new AbortController();
    s.abort = abort;
    const timer = setTimeout(() => abort.abort(new Error(`did not start within ${ms / 1000}s`)), ms);
    try {
      s.conn = await connectServer(s.entry, {
        root: opts.root,
        workDir: opts.workDir,
        env: opts.env,
        version: opts.version,
        signal: abort.signal,
        devxHome: opts.devxHome,
      });
      const listed = await listAllTools(s.conn, abort.signal);
      const roots = serverRoots(s.entry, opts.root, (x) => expandEnv(x, opts.env));
      const policy = { trusted: Boolean(s.entry.trust), outsideRoot: roots.outside, judgePaths: roots.inside && !roots.outside, server: s.entry.name };
      const seen = new Set<string>();
      for (const t of listed) {
        if (!keep(s.entry, t.name)) {
          s.status.filtered.push(t.name);
          continue;
        }
        const name = protocolToolName(s.entry.name, t.name);
        if (seen.has(name)) continue; // two tool names that differ only in case or punctuation
        seen.add(name);
        s.tools.push(toMcpTool(s.entry, t, policy, (tool, args, signal) => this.call(s, tool, args, signal)));
        s.status.tools.push({ name, tool: t.name, description: firstLine(t.description ?? '') });
      }
      // Prompts become slash commands; a server that has none (or fails to list them) still serves its tools.
      if (s.conn.client.getServerCapabilities()?.prompts) {
        const listed = await s.conn.client.listPrompts(undefined, { signal: abort.signal }).catch(() => ({ prompts: [] }));
        s.prompts = listed.prompts.map((p) => ({
          server: s.entry.name,
          name: p.name,
          description: firstLine(p.description ?? ''),
          arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: Boolean(a.required), description: a.description })),
        }));
      }
      if (abort.signal.aborted) throw abort.signal.reason;
      s.status.state = 'ready';
      s.conn.client.onclose = () => {
        if (s.status.state === 'ready') {
          s.status.state = 'disconnected';
          s.status.error = `the server closed the connection${s.conn?.stderrTail() ? ` (stderr: ${s.conn.stderrTail()})` : ''}`;
        }
      };
    } catch (err) {
      const reason = abort.signal.aborted ? (abort.signal.reason as Error).message : (err as Error).message;
      s.status.state = 'failed';
      s.status.error = firstLine(reason);
      s.tools = [];
      s.status.tools = [];
      await s.conn?.close().catch(() => undefined);
      s.conn = undefined;
    } finally {
      clearTimeout(timer);
      s.abort = undefined;
    }
  }

  private async call(s: Server, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<{ text: string; isError: boolean }> {
    if (s.status.state !== 'ready' || !s.conn)
      throw new ToolError(
        `the MCP server "${s.entry.name}" ${stateText(s.status)}. Its tools cannot be used in this session; do without them or tell the user.`,
      );
    const ms = s.entry.timeout ?? DEFAULT_CALL_TIMEOUT_MS;
    // A signal of its own per call, tied to the turn's: the SDK leaves its listener on the signal it is
    // given, and a turn of many calls would pile them up on one (MaxListenersExceededWarning after 10).
    const own = new AbortController();
    const relay = () => own.abort(signal.reason);
    if (signal.aborted) own.abort(signal.reason);
    else signal.addEventListener('abort', relay, { once: true });
    try {
      const r = await s.conn.client.callTool({ name: tool, arguments: args }, undefined, { signal: own.signal, timeout: ms });
      return formatCallResult(r as Parameters<typeof formatCallResult>[0]);
    } catch (err) {
      if (signal.aborted) throw new ToolError('the call was cancelled');
      const e = err as Error & { code?: number };
      const dead = (s.status.state as ServerState) !== 'ready';
      if (e.code === -32001 || /timed out/i.test(e.message))
        throw new ToolError(
          `the MCP server "${s.entry.name}" did not answer within ${ms / 1000}s (${tool}). Do not retry the same call; try something smaller or tell the user.`,
        );
      if (dead)
        throw new ToolError(
          `the MCP server "${s.entry.name}" stopped during the call (${s.status.error ?? e.message}). Its tools cannot be used for the rest of this session.`,
        );
      throw new ToolError(`the MCP server "${s.entry.name}" returned an error for ${tool}: ${firstLine(e.message)}`);
    } finally {
      signal.removeEventListener('abort', relay);
    }
  }

  /** Every prompt of every ready server. */
  get prompts(): McpPrompt[] {
    return this.servers.flatMap((s) => (s.status.state === 'ready' ? (s.prompts ?? []) : []));
  }

  /** A server's prompt filled with `args`, as the text of its messages. */
  async getPrompt(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<string> {
    const s = this.servers.find((x) => x.entry.name === server);
    if (!s?.conn || s.status.state !== 'ready') throw new Error(`the MCP server "${server}" ${s ? stateText(s.status) : 'is not configured'}`);
    const r = await s.conn.client.getPrompt({ name, arguments: args }, { signal });
    return r.messages
      .map((m) => {
        const c = m.content as { type: string; text?: string; resource?: { text?: string; uri?: string } };
        return c.type === 'text' ? (c.text ?? '') : c.type === 'resource' ? (c.resource?.text ?? `[resource ${c.resource?.uri}]`) : `[${c.type} content]`;
      })
      .join('\n\n');
  }

  /** A resource of a server (`@server:uri` in a message), as text. */
  async readResource(server: string, uri: string, signal: AbortSignal): Promise<string> {
    const s = this.servers.find((x) => x.entry.name === server);
    if (!s?.conn || s.status.state !== 'ready') throw new Error(`the MCP server "${server}" ${s ? stateText(s.status) : 'is not configured'}`);
    const r = await s.conn.client.readResource({ uri }, { signal });
    return r.contents
      .map((c) => ('text' in c && typeof c.text === 'string' ? c.text : `[binary resource ${c.uri}, ${c.mimeType ?? 'unknown type'}]`))
      .join('\n');
  }

  /** Every tool of every ready server. */
  get tools(): Tool[] {
    return this.servers.flatMap((s) => s.tools);
  }

  statuses(): ServerStatus[] {
    return this.servers.map((s) => ({ ...s.status }));
  }

  /** Why `mcp__<server>__...` is not a tool, when its server did not start. */
  explainUnknown(name: string): string | undefined {
    const s = this.servers.find((x) => name.startsWith(`${protocolToolName(x.entry.name, '')}`));
    if (!s) return undefined;
    if (s.status.state === 'ready')
      return `the MCP server "${s.entry.name}" has no tool named ${name.slice(protocolToolName(s.entry.name, '').length)}. Its tools: ${s.status.tools.map((t) => t.name).join(', ') || '(none)'}.`;
    return `the MCP server "${s.entry.name}" ${stateText(s.status)}. Its tools cannot be used in this session; do without them or tell the user.`;
  }

  /** Stops every server: stdin closed, then the process is terminated (nothing is left behind). */
  async stop(): Promise<void> {
    // A server still starting is cancelled, and waited for, so that nothing it started outlives the session.
    this.stopping = true;
    for (const s of this.servers) s.abort?.abort(new Error('the session ended before it started'));
    await this.starting;
    await Promise.all(
      this.servers.map(async (s) => {
        const conn = s.conn;
        s.conn = undefined;
        if (s.status.state === 'ready') s.status.state = 'stopped';
        if (!conn) return;
        const pid = conn.pid;
        await Promise.race([conn.close().catch(() => undefined), new Promise((r) => setTimeout(r, 3000).unref())]);
        if (pid) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        }
      }),
    );
  }
}
