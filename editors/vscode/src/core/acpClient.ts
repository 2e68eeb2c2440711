// The extension as an ACP client of `devx --acp` (a child process it starts): devx keeps the policy, the
// audit log and the session; the editor answers devx's permission requests (file edits shown as diffs),
// serves fs/read_text_file from its buffers (unsaved text included) and applies fs/write_text_file as
// its own edit. This module holds the wiring and takes the editor as an EditorHost; no `vscode` import.
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { answerFor, proposalFromPermission, type Choice, type Proposal } from './proposal.js';

export interface EditorHost {
  /** The text of an open buffer, unsaved changes included; undefined when the file is not open (read from disk). */
  readBuffer(path: string): string | undefined | Promise<string | undefined>;
  /** Writes the file as the editor does (VS Code: a WorkspaceEdit, then save). */
  writeFile(path: string, content: string): Promise<void>;
  /** A permission request devx sends before a tool call that asks: show it (diffs in the diff editor), return the choice. */
  decide(proposal: Proposal, options: acp.PermissionOption[]): Promise<Choice | undefined>;
  /** Every session/update (message chunks, tool calls, commands, modes). */
  onUpdate?(n: acp.SessionNotification): void;
  /** devx's stderr, line by line (its log). */
  log?(line: string): void;
}

export interface StartOptions {
  /** The devx command (resolveDevx); `--acp` is appended. */
  argv: string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  host: EditorHost;
  /** Extra arguments after --acp (--agent NAME, --model M, ...). */
  extraArgs?: string[];
}

export interface PromptResult {
  stopReason: acp.StopReason;
  /** The answer's text (the agent_message_chunk texts of this turn). */
  text: string;
}

/** fs/read_text_file's optional window: `line` is 1-based, `limit` a count of lines. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  return lines.slice(start, limit ? start + limit : undefined).join('\n');
}

/** A session/update as a line for an output channel (null: nothing to show, e.g. a message chunk). */
export function describeUpdate(u: acp.SessionUpdate): string | null {
  switch (u.sessionUpdate) {
    case 'tool_call':
      return `▸ ${u.title}${u.status && u.status !== 'pending' ? ` (${u.status})` : ''}`;
    case 'tool_call_update':
      return u.status === 'completed' || u.status === 'failed' ? `  ${u.status === 'completed' ? '✓' : '✗'} ${u.title ?? u.toolCallId}` : null;
    case 'current_mode_update':
      return `mode: ${u.currentModeId}`;
    default:
      return null;
  }
}

export class DevxAcpClient {
  private turnText: string[] | null = null;
  private exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;
  private stderrTail = '';
  sessionId: string | null = null;

  private constructor(
    readonly child: ChildProcess,
    private readonly conn: acp.ClientConnection,
    readonly init: acp.InitializeResponse | null,
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>,
  ) {
    this.exited = exited;
  }

  /** Starts `devx --acp` in `cwd` and initializes the connection, offering the editor's fs methods. */
  static async start(opts: StartOptions): Promise<DevxAcpClient> {
    const [cmd, ...pre] = opts.argv;
    const child = spawn(cmd, [...pre, '--acp', ...(opts.extraArgs ?? [])], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
      windowsHide: true,
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    let self: DevxAcpClient | undefined;
    let pending = '';
    let early = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) opts.host.log?.(l);
      if (self) self.stderrTail = (self.stderrTail + chunk).slice(-2000);
      else early = (early + chunk).slice(-2000);
    });
    const host = opts.host;
    const app = acp
      .client({ name: 'devx-vscode' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        const u = params.update;
        if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') self?.turnText?.push(u.content.text);
        host.onUpdate?.(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        const choice = await host.decide(proposalFromPermission(params), params.options).catch(() => undefined);
        return answerFor(choice, params.options);
      })
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        const text = (await host.readBuffer(params.path)) ?? (await fs.promises.readFile(params.path, 'utf8'));
        return { content: sliceLines(text, params.line, params.limit) };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        await host.writeFile(params.path, params.content);
        return {};
      });
    const conn = app.connect(
      acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
    );
    const failed = exited.then((e) => {
      throw new Error(
        e.error
          ? `could not start ${opts.argv.join(' ')}: ${e.error.message}`
          : `devx --acp exited (${e.code ?? e.signal}) before it answered: ${early.trim()}`,
      );
    });
    const init = await Promise.race([
      conn.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
        clientInfo: { name: 'devx-vscode', title: 'devx for VS Code', version: '0.1.0' },
      }),
      failed,
    ]);
    self = new DevxAcpClient(child, conn, init, exited);
    self.stderrTail = early;
    return self;
  }

  /** Starts (or restarts) the devx session for a folder; returns its id. */
  async newSession(cwd: string): Promise<string> {
    const r = await this.orExit(this.conn.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] }));
    this.sessionId = r.sessionId;
    return r.sessionId;
  }

  /** One turn: sends the prompt, resolves when devx ends the turn, with the answer's text. */
  async prompt(prompt: string | acp.ContentBlock[]): Promise<PromptResult> {
    if (!this.sessionId) await this.newSession(process.cwd());
    const blocks: acp.ContentBlock[] = typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt;
    this.turnText = [];
    try {
      const r = await this.orExit(this.conn.agent.request(acp.methods.agent.session.prompt, { sessionId: this.sessionId!, prompt: blocks }));
      return { stopReason: r.stopReason, text: this.turnText.join('') };
    } finally {
      this.turnText = null;
    }
  }

  /** Stops the running turn (devx stops the model process behind it). */
  async cancel(): Promise<void> {
    if (this.sessionId) await this.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.sessionId });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends devx: stdin closed (it ends its sessions and exits), killed if it has not after `graceMs`. */
  async dispose(graceMs = 3000): Promise<void> {
    if (!this.running) return;
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGTERM'), graceMs);
    const hard = setTimeout(() => this.child.kill('SIGKILL'), graceMs * 2);
    await this.exited;
    clearTimeout(timer);
    clearTimeout(hard);
  }

  private async orExit<T>(p: Promise<T>): Promise<T> {
    const gone = this.exited.then((e) => {
      throw new Error(`devx --acp exited (${e.error?.message ?? e.code ?? e.signal}): ${this.stderrTail.trim().split('\n').slice(-5).join('\n')}`);
    });
    return Promise.race([p, gone]);
  }
}
