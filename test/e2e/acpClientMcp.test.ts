// devx as an ACP agent: a real `devx --acp` process driven by the SDK's client side, real gemini
// against the fake API. A prompt with a read, an edit that asks and is approved (the file changes),
// one that is rejected (it does not), a cancel mid-turn (no orphan), personas as modes, session/load.
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeProject } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
let home: string;
const children: ChildProcess[] = [];
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

interface Client {
  child: ChildProcess;
  conn: acp.ClientConnection;
  updates: acp.SessionUpdate[];
  permissions: acp.RequestPermissionRequest[];
  stderr: () => string;
}

async function startAcp(project: string, answers: string[] = []): Promise<Client> {
  const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd: project, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const updates: acp.SessionUpdate[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const app = acp
    .client({ name: 'test-client' })
    .onNotification(acp.methods.client.session.update, async ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: 'selected' as const, optionId: answers.shift() ?? 'reject' } };
    });
  const conn = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  const init = await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  expect(init.agentCapabilities?.loadSession).toBe(true);
  return { child, conn, updates, permissions, stderr: () => err };
}

const ask = (c: Client, sessionId: string, t: string) => c.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: t }] });

async function stop(c: Client): Promise<void> {
  c.child.stdin!.end();
  await new Promise((r) => (c.child.exitCode !== null ? r(null) : c.child.on('exit', r)));
}

describe('devx --acp', () => {
  it('a prompt with a read; an edit asked and approved (the file changes); one rejected (it does not); all audited', async () => {
    const project = makeProject({ 'a.txt': 'hello\n' });
    const c = await startAcp(project, ['allow', 'reject', 'always']);
    const { sessionId } = await c.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });

    fake.push({ text: 'Let me look.\nTOOL_CALL: read_file | path=a.txt' }, { text: 'The file says hello.' });
    expect(await ask(c, sessionId, 'what does a.txt say?')).toEqual({ stopReason: 'end_turn' });
    const call = c.updates.find((u) => u.sessionUpdate === 'tool_call') as acp.ToolCall & { sessionUpdate: string };
    expect(call).toMatchObject({ kind: 'read', status: 'pending', locations: [{ path: path.join(project, 'a.txt') }], rawInput: { path: 'a.txt' } });
    expect(c.updates.find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ toolCallId: call.toolCallId, status: 'completed' });
    expect(JSON.stringify(c.updates)).toContain('hello');
    const chunks = c.updates.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
    expect(chunks).toEqual(['Let me look.\n', 'The file says hello.\n']);
    expect(c.permissions).toEqual([]);

    c.updates.length = 0;
    fake.push({ text: 'TOOL_CALL: edit_file | path=a.txt | old_text=hello | new_text=bye' }, { text: 'Changed it.' });
    expect(await ask(c, sessionId, 'say bye')).toEqual({ stopReason: 'end_turn' });
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('bye\n');
    expect(c.permissions).toHaveLength(1);
    expect(c.permissions[0].options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(c.permissions[0].toolCall).toMatchObject({ kind: 'edit', content: [{ type: 'diff', path: path.join(project, 'a.txt'), oldText: 'hello', newText: 'bye' }] });
    const edit = c.updates.filter((u) => u.sessionUpdate === 'tool_call_update');
    expect(edit.map((u) => (u as acp.ToolCallUpdate).status)).toEqual(['in_progress', 'completed']);
    expect((edit[1] as acp.ToolCallUpdate).content?.[0]).toEqual({ type: 'diff', path: path.join(project, 'a.txt'), oldText: 'hello', newText: 'bye' });

    c.updates.length = 0;
    fake.push({ text: 'TOOL_CALL: edit_file | path=a.txt | old_text=bye | new_text=nope' }, { text: 'You said no.' });
    expect(await ask(c, sessionId, 'say nope')).toEqual({ stopReason: 'end_turn' });
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('bye\n');
    expect(c.updates.find((u) => u.sessionUpdate === 'tool_call_update')).toMatchObject({ status: 'failed' });
    expect(fake.modelCalls[5].promptText).toContain('the user declined this edit_file call');

    // "Always" covers the rest of the session: the second edit is not asked about.
    fake.push({ text: 'TOOL_CALL: edit_file | path=a.txt | old_text=bye | new_text=one' }, { text: 'TOOL_CALL: edit_file | path=a.txt | old_text=one | new_text=two' }, { text: 'Two edits.' });
    expect(await ask(c, sessionId, 'two edits')).toEqual({ stopReason: 'end_turn' });
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('two\n');
    expect(c.permissions).toHaveLength(3);

    await stop(c);
    const audit = fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.filter((a) => a.tool === 'edit_file').map((a) => a.answer)).toEqual(['yes', 'no', 'always', 'yes']);
  }, 90_000);

  it('session/cancel mid-turn: the prompt ends cancelled and no gemini process is left', async () => {
    const project = makeProject({});
    const c = await startAcp(project);
    const { sessionId } = await c.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    fake.push({ hang: true });
    const pending = ask(c, sessionId, 'think forever');
    await until(() => fake.modelCalls.length === 1);
    await until(() => processesUnder(path.join(home, '.devx')).length > 0);
    await c.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await pending).toEqual({ stopReason: 'cancelled' });
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000);
    // The session goes on after a cancel.
    fake.push({ text: 'Back.' });
    expect(await ask(c, sessionId, 'again')).toEqual({ stopReason: 'end_turn' });
    await stop(c);
    expect(c.child.exitCode).toBe(0);
  }, 60_000);

  it("the client's MCP servers: their tools are offered, and a call asks the client first", async () => {
    const project = makeProject({});
    const c = await startAcp(project, ['allow']);
    const everything = { name: 'everything', command: path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything'), args: ['stdio'], env: [] };
    const { sessionId } = await c.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [everything] });
    fake.push({ text: 'TOOL_CALL: mcp__everything__echo | message=from zed' }, { text: 'Echoed.' });
    expect(await ask(c, sessionId, 'echo')).toEqual({ stopReason: 'end_turn' });
    expect(fake.modelCalls[0].systemText).toContain('### mcp__everything__echo');
    expect(c.permissions[0].toolCall.title).toContain('mcp__everything__echo message=from zed (asks because mcp__everything__echo is a tool of the MCP server everything, which is not trusted)');
    expect(fake.modelCalls[1].promptText).toContain('Echo: from zed');
    await stop(c);
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it('personas are modes; session/load resumes a devx session and replays its conversation', async () => {
    const project = makeProject({ '.devx/agents/reviewer.md': '---\nname: reviewer\ndescription: reviews code\n---\nReview.' });
    const c = await startAcp(project);
    const created = await c.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(['default', 'reviewer']);
    expect(created.modes?.currentModeId).toBe('default');
    await c.conn.agent.request(acp.methods.agent.session.setMode, { sessionId: created.sessionId, modeId: 'reviewer' });
    fake.push({ text: 'Reviewed as reviewer.' });
    await ask(c, created.sessionId, 'remember the word pineapple');
    expect(fake.modelCalls[0].systemText).toContain('# Your role: the reviewer agent');
    await stop(c);

    const d = await startAcp(project);
    await expect(d.conn.agent.request(acp.methods.agent.session.load, { sessionId: 'nope', cwd: project, mcpServers: [] })).rejects.toThrow(/no devx session nope/);
    await d.conn.agent.request(acp.methods.agent.session.load, { sessionId: created.sessionId, cwd: project, mcpServers: [] });
    const replay = d.updates.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk') && u.content.type === 'text' ? [`${u.sessionUpdate}:${u.content.text}`] : []);
    expect(replay).toEqual(['user_message_chunk:remember the word pineapple', 'agent_message_chunk:Reviewed as reviewer.']);
    fake.push({ text: 'It was pineapple.' });
    expect(await ask(d, created.sessionId, 'which word?')).toEqual({ stopReason: 'end_turn' });
    expect(fake.modelCalls[1].promptText).toContain('remember the word pineapple');
    await stop(d);
  }, 60_000);
});
