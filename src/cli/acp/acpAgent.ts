// `devx --acp`: devx as an Agent Client Protocol agent on stdio, so Zed and other ACP clients host
// it. Each ACP session is a devx session (same policy, audit log, history and personas as the REPL):
// its messages and tool calls stream as session/update notifications, every `ask` becomes
// session/request_permission, session/cancel stops the turn, session/load resumes a devx session, and
// personas are the session's modes. Nothing but the protocol is written to stdout.
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { applyResume, endSession, startSession, type Started } from '../../runtime/startSession.js';
import type { ApprovalAnswer, ApprovalRequest } from '../../tools/runToolCall.js';
import type { AgentEvent } from '../../core/loop.js';
import { packageVersion } from '../../util/packageRoot.js';
import { diffOf, mcpFromClient, promptText, text, toolCallStart, toolKind, toolLocations } from './acpUpdates.js';

interface AcpSession {
  id: string;
  started: Started;
  running: AbortController | null;
  /** Ids of calls started and not yet ended, per tool name (calls of one tool end in order). */
  open: Map<string, string[]>;
  next: number;
}

/** Errors the client shows as they are (busy project, bad settings, unknown persona), not as "Internal error". */
async function reported<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof acp.RequestError) throw err;
    throw new acp.RequestError(-32603, (err as Error).message);
  }
}

const NOT_FOUND = -32002;

const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow in this session', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

export interface AcpOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  log: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** The command line's model, provider, approval mode, ... for every session. */
  session?: Pick<Parameters<typeof startSession>[0], 'overrides' | 'yes' | 'approvalMode'>;
}

export async function runAcp(io: AcpOptions): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  let conn: acp.AgentConnection;
  const update = (sessionId: string, u: acp.SessionUpdate) => void conn.client.notify(acp.methods.client.session.update, { sessionId, update: u }).catch(() => undefined);

  const modesOf = (s: AcpSession): acp.SessionModeState => ({
    currentModeId: s.started.run.persona?.name ?? 'default',
    availableModes: [{ id: 'default', name: 'devx', description: 'devx without a persona' }, ...[...s.started.run.loadAgents().agents.values()].filter((a) => a.scope !== 'builtin').map((a) => ({ id: a.name, name: a.name, description: a.description }))],
  });

  const onEvent = (s: AcpSession) => (e: AgentEvent) => {
    const root = s.started.run.agent.root;
    const tools = s.started.run.agent.deps.tools;
    if (e.type === 'assistant_text' && e.text) update(s.id, { sessionUpdate: 'agent_message_chunk', content: text(`${e.text}\n`) });
    else if (e.type === 'tool_start') {
      const id = `call_${++s.next}`;
      s.open.set(e.tool, [...(s.open.get(e.tool) ?? []), id]);
      update(s.id, { sessionUpdate: 'tool_call', ...toolCallStart(id, tools.get(e.tool), e.tool, e.args, root) });
    } else if (e.type === 'tool_end') {
      const o = e.outcome;
      const id = s.open.get(o.tool)?.shift();
      if (!id) return;
      const diff = o.status === 'ok' ? diffOf(o.tool, o.args, root) : null;
      update(s.id, { sessionUpdate: 'tool_call_update', toolCallId: id, status: o.status === 'ok' ? 'completed' : 'failed', content: [...(diff ? [diff] : []), { type: 'content', content: text(o.content) }], rawOutput: { status: o.status, decision: o.decision?.decision ?? null } });
    }
  };

  /** Every `ask` goes to the client; its answer (or a cancel) decides. */
  const approve = async (s: AcpSession, req: ApprovalRequest): Promise<ApprovalAnswer> => {
    const ids = s.open.get(req.tool) ?? [];
    const id = ids[ids.length - 1] ?? `call_${++s.next}`;
    const tool = s.started.run.agent.deps.tools.get(req.tool);
    const root = s.started.run.agent.root;
    const diff = diffOf(req.tool, req.args, root);
    const r = await conn.client
      .request(acp.methods.client.session.requestPermission, {
        sessionId: s.id,
        toolCall: { toolCallId: id, title: `${req.summary} (asks because ${req.decision.reason})`, kind: toolKind(tool), status: 'pending', locations: toolLocations(tool, req.args, root), rawInput: req.args, ...(diff ? { content: [diff] } : {}) },
        options: PERMISSION_OPTIONS,
      })
      .catch(() => ({ outcome: { outcome: 'cancelled' as const } }));
    const chosen = r.outcome.outcome === 'selected' ? r.outcome.optionId : 'reject';
    if (chosen === 'allow' || chosen === 'always') update(s.id, { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' });
    return chosen === 'allow' ? 'yes' : chosen === 'always' ? 'always' : 'no';
  };

  const open = async (id: string | null, cwd: string, servers: acp.McpServer[]): Promise<AcpSession> => {
    const holder: { s?: AcpSession } = {};
    const started = await startSession({ ...io.session, cwd, env: io.env, prompt: (req) => approve(holder.s!, req), extraMcpServers: mcpFromClient(servers) });
    for (const w of started.run.agent.warnings) io.log.write(`devx: warning: ${w}\n`);
    const s: AcpSession = { id: id ?? started.session.record.id, started, running: null, open: new Map(), next: 0 };
    holder.s = s;
    started.run.subscribe(onEvent(s));
    sessions.set(s.id, s);
    return s;
  };

  const sessionOf = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw new acp.RequestError(NOT_FOUND, `no session ${id} in this connection`);
    return s;
  };

  const load = async (params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> => {
    const s = await open(params.sessionId, params.cwd, params.mcpServers);
    if (!applyResume(s.started, params.sessionId)) {
      sessions.delete(s.id);
      await close(s);
      throw new acp.RequestError(NOT_FOUND, `no devx session ${params.sessionId} in ${params.cwd}; devx sessions lists them`);
    }
    // The conversation so far, as the client shows it.
    for (const m of s.started.run.history) {
      if (m.role === 'user') update(s.id, { sessionUpdate: 'user_message_chunk', content: text(m.content) });
      else if (m.role === 'assistant') update(s.id, { sessionUpdate: 'agent_message_chunk', content: text(m.content) });
    }
    return { modes: modesOf(s) };
  };

  const app = acp
    .agent({ name: 'devx' })
    .onRequest(acp.methods.agent.initialize, () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { embeddedContext: true }, mcpCapabilities: { http: true, sse: true } },
      agentInfo: { name: 'devx', version: packageVersion() },
      authMethods: [],
    }))
    .onRequest(acp.methods.agent.session.new, ({ params }) =>
      reported(async () => {
        const s = await open(null, params.cwd, params.mcpServers);
        return { sessionId: s.id, modes: modesOf(s) };
      }),
    )
    .onRequest(acp.methods.agent.session.load, ({ params }) => reported(() => load(params)))
    .onRequest(acp.methods.agent.session.setMode, ({ params }) =>
      reported(async () => {
        const s = sessionOf(params.sessionId);
        s.started.run.usePersona(params.modeId === 'default' ? null : params.modeId);
        update(s.id, { sessionUpdate: 'current_mode_update', currentModeId: params.modeId });
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.prompt, async ({ params, signal }) => {
      const s = sessionOf(params.sessionId);
      if (s.running) throw new acp.RequestError(-32603, 'a prompt is already running in this session');
      const controller = new AbortController();
      s.running = controller;
      const onAbort = () => controller.abort();
      signal.addEventListener('abort', onAbort);
      try {
        const r = await s.started.run.prompt(promptText(params.prompt), { signal: controller.signal });
        if (r.status === 'error') update(s.id, { sessionUpdate: 'agent_message_chunk', content: text(`devx: ${r.error?.message ?? 'the turn failed'}\n`) });
        const stopReason: acp.StopReason = r.status === 'cancelled' ? 'cancelled' : r.status === 'max_rounds' ? 'max_turn_requests' : 'end_turn';
        return { stopReason };
      } finally {
        signal.removeEventListener('abort', onAbort);
        s.running = null;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort();
    });

  const close = async (s: AcpSession) => {
    s.running?.abort();
    try {
      await endSession(s.started, { draft: 'none' });
    } finally {
      s.started.session.abandon();
      await s.started.run.dispose();
    }
  };

  conn = app.connect(acp.ndJsonStream(Writable.toWeb(io.output as Writable) as WritableStream<Uint8Array>, Readable.toWeb(io.input as Readable) as ReadableStream<Uint8Array>));
  await conn.closed;
  await Promise.all([...sessions.values()].map((s) => close(s).catch((err: Error) => io.log.write(`devx: ${err.message}\n`))));
  return 0;
}
