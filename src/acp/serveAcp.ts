// `devx --acp`: devx as an Agent Client Protocol agent on stdio, so editors such as Zed host it.
// stdout carries only the protocol (anything else written there goes to stderr); logs go to stderr.
import path from 'node:path';
import { Readable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { ConfigError, type Settings } from '../config/settings.js';
import { findProjectRoot } from '../config/paths.js';
import type { ApprovalMode } from '../policy/decide.js';
import type { ModelBackend } from '../providers/types.js';
import { SessionBusyError, startSession, type Started } from '../runtime/startSession.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { PersonaError } from '../runtime/agentRun.js';
import { packageVersion } from '../util/packageRoot.js';
import { AcpSession } from './acpSession.js';
import { listSessions, resumeChain, sessionChain } from './loadSession.js';
import { replayHistory } from './replayHistory.js';
import { mcpFromClient, mcpServerSettings } from './mcpServers.js';
import type { EditorCommand } from './editorCommands.js';
import { escapeForEditor } from './editorText.js';
import { escapeControls } from '../util/terminalText.js';

export interface AcpOptions {
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  yes?: boolean;
  approvalMode?: ApprovalMode;
  /** The mode (the persona: an agent's name) new sessions start in (`--agent`). */
  persona?: string;
  /** devx's own slash commands to offer the editor (from the CLI's slash table). */
  commands?: EditorCommand[];
  /** The model every session uses in place of the settings' provider (an embedder's own, a scripted one in tests). */
  backend?: ModelBackend;
}

/** Keeps stdout for the protocol: returns a writer to the real stdout and sends every other write to stderr. */
function claimStdout(): WritableStream<Uint8Array> {
  const out = process.stdout;
  const write = out.write.bind(out) as (chunk: Uint8Array, cb: (err?: Error | null) => void) => boolean;
  out.write = ((chunk: never, ...rest: never[]) => process.stderr.write(chunk, ...rest)) as typeof out.write;
  return new WritableStream<Uint8Array>({ write: (chunk) => new Promise((resolve, reject) => void write(chunk, (err) => (err ? reject(err) : resolve()))) });
}

/** What the server keeps while it runs. */
interface AcpServer {
  opts: AcpOptions;
  log: (line: string) => void;
  sessions: Map<string, AcpSession>;
  /** What the client said it can do with files (initialize), for every session it opens. */
  clientFs: { readTextFile?: boolean; writeTextFile?: boolean };
}

export async function serveAcp(opts: AcpOptions): Promise<number> {
  const stream = acp.ndJsonStream(claimStdout(), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const served = connectAcp(opts, stream, (line) => void process.stderr.write(`${escapeControls(line)}\n`));
  process.on('SIGTERM', served.close);
  process.on('SIGINT', served.close);
  try {
    await served.finished;
  } finally {
    process.off('SIGTERM', served.close);
    process.off('SIGINT', served.close);
  }
  return 0;
}

/** The agent on any protocol stream (stdio for `devx --acp`, in memory for an embedder); `finished` settles once it closed and every session it opened ended. */
export function connectAcp(opts: AcpOptions, stream: AcpStream, log: (line: string) => void): { close: () => void; finished: Promise<void> } {
  const server: AcpServer = { opts, log, sessions: new Map(), clientFs: {} };
  const conn = defineAgent(server).connect(stream);
  const finished = (async () => {
    try {
      await conn.closed;
    } finally {
      for (const s of server.sessions.values()) await s.end();
      server.sessions.clear();
    }
  })();
  return { close: () => void conn.close(), finished };
}

type AcpStream = ReturnType<typeof acp.ndJsonStream>;

/** The agent's answer to each request of the protocol. */
function defineAgent(server: AcpServer) {
  const find = (id: string): AcpSession => {
    const s = server.sessions.get(id);
    if (!s) throw acp.RequestError.sessionNotFound(id);
    return s;
  };
  return acp
    .agent({ name: 'devx' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => initialize(server, params))
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const s = await openSession(server, params.cwd, params.mcpServers ?? [], client);
      // A new ACP session is a new conversation (earlier ones stay in .devx/sessions/ for session/load).
      s.run.reset();
      return { sessionId: s.id, modes: s.modes(), configOptions: s.configOptions() };
    })
    .onRequest(acp.methods.agent.session.load, ({ params, client }) => loadSession(server, params, client))
    .onRequest(acp.methods.agent.session.list, ({ params }) => ({ sessions: escapeForEditor(listSessions(findProjectRoot(params.cwd ?? process.cwd()))) }))
    .onRequest(acp.methods.agent.session.prompt, ({ params, signal }) => find(params.sessionId).prompt(params.prompt, signal))
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => ({
      configOptions: find(params.sessionId).setConfigOption(params.configId, params.value),
    }))
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      find(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      server.sessions.get(params.sessionId)?.cancel();
    });
}

function initialize(server: AcpServer, params: acp.InitializeRequest): acp.InitializeResponse {
  server.clientFs = params.clientCapabilities?.fs ?? {};
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    // MCP servers over HTTP and SSE are served as well as stdio ones (mcpServers.ts).
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {} },
    },
    agentInfo: { name: 'devx', title: 'devx', version: packageVersion() },
    authMethods: [],
  };
}

/** Starts a devx session for the client's cwd. One devx session per project: a new one ends the last. */
async function openSession(server: AcpServer, cwd: string, mcpServers: acp.McpServer[], client: acp.AgentContext, id?: string): Promise<AcpSession> {
  const { opts, log, sessions } = server;
  if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, 'cwd must be an absolute path');
  const root = findProjectRoot(cwd);
  for (const s of [...sessions.values()].filter((x) => x.root === root)) {
    sessions.delete(s.id);
    await s.end();
  }
  let session: AcpSession | undefined;
  const started = await startForClient(opts, cwd, mcpServers, (req) => session!.askPermission(req));
  // The editor is told the session's commands, MCP prompts among them, once its servers have started.
  for (const w of [...started.run.agent.warnings, ...(await started.run.ready())]) log(`devx: warning: ${w}`);
  const missing = started.run.agent.missingBinary();
  if (missing) {
    started.session.abandon();
    await started.run.dispose().catch((err: unknown) => log(`devx: ${(err as Error).message}`));
    throw acp.RequestError.internalError({ cwd }, escapeControls(missing));
  }
  session = new AcpSession(id ?? started.session.record.id, client, mcpServerSettings(mcpServers), log, opts.commands);
  session.attach(started);
  useEditorFs(started, client, session.id, server.clientFs);
  sessions.set(session.id, session);
  // After the response that names the session: the client then knows which session the commands belong to.
  const announced = session;
  setTimeout(() => announced.announceCommands(), 0);
  log(`devx: session ${session.id} in ${root}${mcpServers.length ? ` (with the client's MCP servers: ${Object.keys(session.mcpServers).join(', ')})` : ''}`);
  return session;
}

/** startSession for an editor: the errors a person can act on become the request's error. */
async function startForClient(
  opts: AcpOptions,
  cwd: string,
  mcpServers: acp.McpServer[],
  prompt: (req: ApprovalRequest) => Promise<PersonAnswer>,
): Promise<Started> {
  try {
    return await startSession({
      cwd,
      env: opts.env,
      overrides: opts.overrides,
      yes: opts.yes,
      approvalMode: opts.approvalMode,
      prompt,
      stream: true,
      persona: opts.persona,
      extraMcpServers: mcpFromClient(mcpServers),
      backend: opts.backend,
    });
  } catch (err) {
    if (err instanceof SessionBusyError || err instanceof PersonaError) throw acp.RequestError.internalError({ cwd }, escapeControls(err.message));
    if (err instanceof ConfigError) throw acp.RequestError.internalError({ cwd }, `bad settings: ${escapeControls(err.message)}`);
    throw err;
  }
}

/** The editor's own view of files when it offers it: unsaved buffers are read, edits land in the editor. */
function useEditorFs(started: Started, client: acp.AgentContext, sid: string, clientFs: AcpServer['clientFs']): void {
  if (!clientFs.readTextFile && !clientFs.writeTextFile) return;
  started.run.useEditorFs({
    ...(clientFs.readTextFile
      ? { read: async (p: string) => (await client.request(acp.methods.client.fs.readTextFile, { sessionId: sid, path: p })).content }
      : {}),
    ...(clientFs.writeTextFile
      ? {
          write: async (p: string, content: string) => void (await client.request(acp.methods.client.fs.writeTextFile, { sessionId: sid, path: p, content })),
        }
      : {}),
  });
}

/** session/load: the session's conversation is replayed to the editor, with the mode and model it was in. */
async function loadSession(server: AcpServer, params: acp.LoadSessionRequest, client: acp.AgentContext) {
  const root = findProjectRoot(params.cwd);
  if (!sessionChain(root, params.sessionId, ''))
    throw acp.RequestError.invalidParams({ sessionId: params.sessionId }, `no devx session ${params.sessionId} in ${root} (devx sessions lists them)`);
  const s = await openSession(server, params.cwd, params.mcpServers ?? [], client, params.sessionId);
  const chain = sessionChain(root, params.sessionId, s.started.session.record.id)!;
  const transcript = resumeChain(s.started, chain);
  // The mode (persona) the loaded session was in comes back with it.
  const persona = chain
    .map((r) => r.persona)
    .filter(Boolean)
    .at(-1);
  if (persona) {
    try {
      s.setMode(persona);
    } catch (err) {
      server.log(`devx: session ${params.sessionId} was in mode ${persona}, which no longer loads: ${(err as Error).message}`);
    }
  }
  // So does the model chosen in it.
  const model = chain
    .map((r) => r.model)
    .filter(Boolean)
    .at(-1);
  if (model) s.setConfigOption('model', model);
  for (const update of replayHistory(transcript, s.root, s.run.loopDeps.tools)) s.send(update);
  await s.flushed();
  return { modes: s.modes(), configOptions: s.configOptions() };
}
