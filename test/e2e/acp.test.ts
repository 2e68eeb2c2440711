// devx as an ACP agent: a real `devx --acp` process driven by the SDK's client side, with the real
// gemini binary answering from the fake API. What a session shows the client (tool calls, permission requests,
// modes, plans, the client's MCP servers) runs in-process in test/integration/acpSessions.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, fakeEnv, makeProject } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';
import { editorClient } from '../helpers/acpClient.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

interface Editor {
  child: ChildProcess;
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  /** The option the client picks when asked. */
  answer: { optionId: string };
  /** Everything devx wrote on stdout (only protocol lines may be there). */
  stdout: () => string;
  stderr: () => string;
  newSession(cwd: string, mcpServers?: acp.McpServer[]): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  /** Closes stdin and waits for devx to exit. */
  close(): Promise<number | null>;
}

/** Starts `devx --acp` in `cwd` and initializes the connection as an editor would. */
async function startEditor(cwd: string): Promise<Editor> {
  const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const { app, updates, permissions, answer } = editorClient();
  const conn = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );
  const agent = conn.agent;
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
  expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { embeddedContext: true }, sessionCapabilities: { list: {} } });
  return {
    child,
    agent,
    updates,
    permissions,
    answer,
    stdout: () => out,
    stderr: () => err,
    newSession: (dir, mcpServers = []) => agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers }),
    prompt: (sessionId, text) => agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }),
    close: async () => {
      const exited = new Promise<number | null>((r) => child.on('close', r));
      child.stdin!.end();
      return exited;
    },
  };
}

const chunks = (e: Editor, kind: 'agent_message_chunk' | 'user_message_chunk' = 'agent_message_chunk') =>
  e.updates.flatMap((n) => (n.update.sessionUpdate === kind && n.update.content.type === 'text' ? [n.update.content.text] : [])).join('');
const toolCalls = (e: Editor) => e.updates.flatMap((n) => (n.update.sessionUpdate === 'tool_call' ? [n.update] : []));

describe('devx --acp', () => {
  it('answers a prompt in streamed prose chunks, and a client offering MCP servers still gets a session', async () => {
    const project = makeProject({});
    fake.push({ text: 'Hello from devx.\nThe second line.\nThe third line.', chunkDelayMs: 300 });
    const e = await startEditor(project);
    const mcpServers: acp.McpServer[] = [{ name: 'files', command: '/bin/false', args: [], env: [] }];
    const { sessionId, modes } = await e.newSession(project, mcpServers);
    expect(modes?.currentModeId).toBe('default');
    const res = await e.prompt(sessionId, 'say hello');
    expect(res.stopReason).toBe('end_turn');
    expect(chunks(e)).toBe('Hello from devx.\nThe second line.\nThe third line.');
    // Streamed: more than one chunk, the first a whole line.
    const parts = e.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk');
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(fake.modelCalls[0].promptText).toContain('say hello');
    // The session is devx's own: its record and audit trail are in the project.
    expect(fs.existsSync(path.join(project, '.devx', 'sessions', `${sessionId}.json`))).toBe(true);
    expect(await e.close()).toBe(0);
    // Nothing but protocol messages went to stdout.
    for (const line of e.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    expect(e.stderr()).toMatch(/with the client's MCP servers: files\)/);
    const record = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'sessions', `${sessionId}.json`), 'utf8'));
    expect(record).toMatchObject({ status: 'ended', turns: 1 });
  });

  it("devx's own commands are announced, and a prompt naming one runs it without a model call", async () => {
    const project = makeProject({});
    fake.push({ text: 'Hi there.' });
    const e = await startEditor(project);
    const { sessionId } = await e.newSession(project);
    await until(() => e.updates.some((n) => n.update.sessionUpdate === 'available_commands_update'), 10_000);
    const announced = e.updates.flatMap((n) => (n.update.sessionUpdate === 'available_commands_update' ? n.update.availableCommands : []));
    expect(announced.map((c) => c.name)).toEqual(expect.arrayContaining(['help', 'compact', 'undo', 'clear', 'history']));
    expect(announced.map((c) => c.name)).not.toContain('exit');
    expect((await e.prompt(sessionId, 'say hi')).stopReason).toBe('end_turn');
    expect((await e.prompt(sessionId, '/history')).stopReason).toBe('end_turn');
    expect(chunks(e)).toMatch(/user +say hi/);
    expect((await e.prompt(sessionId, '/clear')).stopReason).toBe('end_turn');
    expect(chunks(e)).toContain('Conversation cleared.');
    expect((await e.prompt(sessionId, '/compact')).stopReason).toBe('end_turn');
    expect(chunks(e)).toMatch(/nothing to compact/);
    expect(fake.modelCalls).toHaveLength(1);
    expect(await e.close()).toBe(0);
  });

  it('the queue and knowledge commands run from a prompt as in the REPL (/agent:start queues, /agent:status lists); REPL-only ones say so', async () => {
    const project = makeProject({ '.devx/agents/helper.md': '---\nname: helper\ndescription: helps\ntools: [read_file]\n---\nYou help.\n' });
    const e = await startEditor(project);
    const { sessionId } = await e.newSession(project);
    await until(() => e.updates.some((n) => n.update.sessionUpdate === 'available_commands_update'), 10_000);
    const announced = e.updates.flatMap((n) => (n.update.sessionUpdate === 'available_commands_update' ? n.update.availableCommands : []));
    expect(announced.map((c) => c.name)).toEqual(expect.arrayContaining(['agent', 'memory', 'workflow']));
    expect(announced.map((c) => c.name)).not.toContain('edit');
    expect((await e.prompt(sessionId, '/agent:start helper "write math.py"')).stopReason).toBe('end_turn');
    const id = /Task (task_\w+) created for agent 'helper' and is now pending\./.exec(chunks(e))![1];
    expect(fs.existsSync(path.join(project, `.devx/agents/tasks/${id}.json`))).toBe(true);
    expect((await e.prompt(sessionId, '/agent:status')).stopReason).toBe('end_turn');
    expect(chunks(e)).toMatch(new RegExp(`\\| ${id} \\| helper \\| pending `));
    expect((await e.prompt(sessionId, '/edit')).stopReason).toBe('end_turn');
    expect(chunks(e)).toContain('/edit opens your editor');
    expect(fake.modelCalls).toHaveLength(0);
    for (const line of e.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    expect(await e.close()).toBe(0);
  });

  it('session/cancel stops a running turn: the prompt resolves cancelled and no gemini process is left', async () => {
    const project = makeProject({});
    fake.push({ hang: true });
    const e = await startEditor(project);
    const { sessionId } = await e.newSession(project);
    const turn = e.prompt(sessionId, 'think forever');
    await until(() => fake.modelCalls.length >= 1);
    expect(processesUnder(path.join(home, '.devx')).length).toBeGreaterThan(0);
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000);
    // The session goes on after a cancel.
    fake.push({ text: 'Back again.' });
    expect((await e.prompt(sessionId, 'hello?')).stopReason).toBe('end_turn');
    expect(chunks(e)).toContain('Back again.');
  });

  it('a cancel while a permission request is open ends the turn without running the call', async () => {
    const project = makeProject({ 'notes.txt': 'keep me\n' });
    fake.push({ text: 'TOOL_CALL: write_file | path=notes.txt | content=gone' });
    const e = await startEditor(project);
    e.answer.optionId = 'hold';
    const { sessionId } = await e.newSession(project);
    const turn = e.prompt(sessionId, 'overwrite the notes');
    await until(() => e.permissions.length === 1);
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await turn).stopReason).toBe('cancelled');
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('keep me\n');
    expect(fake.modelCalls).toHaveLength(1);
  });

  it('session/load replays a saved devx session and continues its conversation', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'Noted: the secret word is pineapple.' });
    const first = await startEditor(project);
    const { sessionId } = await first.newSession(project);
    await first.prompt(sessionId, 'remember the word pineapple');
    expect(await first.close()).toBe(0);

    const e = await startEditor(project);
    const loaded = await e.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('default');
    expect(chunks(e, 'user_message_chunk')).toBe('remember the word pineapple');
    expect(chunks(e)).toContain('Noted: the secret word is pineapple.');
    expect(toolCalls(e)).toMatchObject([{ kind: 'read', status: 'completed', title: 'read a.txt' }]);
    fake.push({ text: 'It was pineapple.' });
    expect((await e.prompt(sessionId, 'what was the word?')).stopReason).toBe('end_turn');
    expect(fake.modelCalls[2].promptText).toContain('remember the word pineapple');
    expect(fake.modelCalls[2].promptText).toContain('what was the word?');

    // The client can list it (one entry for the session and its continuation).
    const listed = await e.agent.request(acp.methods.agent.session.list, { cwd: project });
    expect(listed.sessions).toEqual([{ sessionId, cwd: project, title: 'what was the word?', updatedAt: expect.any(String) }]);
    await e.close();

    // Loading the same id again brings back both parts of the conversation.
    const again = await startEditor(project);
    await again.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
    expect(chunks(again, 'user_message_chunk')).toBe('remember the word pineapplewhat was the word?');

    await expect(again.agent.request(acp.methods.agent.session.load, { sessionId: '20000101-000000-dead', cwd: project, mcpServers: [] })).rejects.toThrow(
      /no devx session 20000101-000000-dead/,
    );
  });

  it("a failed model call is the prompt's error, with its message, not an answer", async () => {
    const project = makeProject({});
    fake.push({ status: 400 });
    const e = await startEditor(project);
    const { sessionId } = await e.newSession(project);
    await expect(e.prompt(sessionId, 'hello')).rejects.toThrow(/fake API error 400/);
    expect(chunks(e)).not.toMatch(/✗/);
  });

  it('broken settings, or a project another devx holds, give session/new a clear error', async () => {
    const project = makeProject({ '.devx/settings.json': '{ not json' });
    const e = await startEditor(project);
    await expect(e.newSession(project)).rejects.toThrow(/bad settings: .*settings\.json/);
    fs.rmSync(path.join(project, '.devx', 'settings.json'));
    const { sessionId } = await e.newSession(project);
    const other = await startEditor(project);
    await expect(other.newSession(project)).rejects.toThrow(/another devx session \(pid \d+, session [\w-]+, .*is active in this project/);
    // The first editor's session is unaffected.
    fake.push({ text: 'Still here.' });
    expect((await e.prompt(sessionId, 'ping')).stopReason).toBe('end_turn');
  });
});
