// ACP sessions in-process: devx's agent side (connectAcp, what `devx --acp` serves on stdio) and the SDK's client
// side joined by in-memory streams, a scripted model in place of gemini, real files, policy, audit log and MCP
// servers. What the client sees (tool calls, permission requests, plans, modes) and what the model got back are
// asserted. The process (stdout kept for the protocol, cancel leaving no gemini, load, errors) is test/e2e/acp.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { connectAcp } from '../../src/acp/serveAcp.js';
import { ScriptedBackend, type ScriptedReply } from '../../src/providers/scripted.js';
import { REPO_ROOT, inProcessEnv, makeHome, makeProject } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';
import { editorClient } from '../helpers/acpClient.js';

interface Editor {
  agent: acp.ClientContext;
  model: ScriptedBackend;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  /** The option the client picks when asked. */
  answer: { optionId: string };
  newSession(cwd: string, mcpServers?: acp.McpServer[]): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  /** Ends the connection and waits for every session to end. */
  close(): Promise<void>;
}

const open: Editor[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});

/** devx's agent side and an editor's client side on in-memory streams, initialized as an editor would. */
async function startEditor(replies: ScriptedReply[]): Promise<Editor> {
  const model = new ScriptedBackend(replies);
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const env = inProcessEnv(makeHome());
  const served = connectAcp({ env, backend: model }, acp.ndJsonStream(toClient.writable, toAgent.readable), () => undefined);
  const { app, updates, permissions, answer } = editorClient();
  const agent = app.connect(acp.ndJsonStream(toAgent.writable, toClient.readable)).agent;
  await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  let closed: Promise<void> | undefined;
  const e: Editor = {
    agent,
    model,
    updates,
    permissions,
    answer,
    newSession: (dir, mcpServers = []) => agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers }),
    prompt: (sessionId, text) => agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }),
    close: () => {
      closed ??= (async () => {
        served.close();
        await served.finished;
      })();
      return closed;
    },
  };
  open.push(e);
  return e;
}

const chunks = (e: Editor) =>
  e.updates.flatMap((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? [n.update.content.text] : [])).join('');
const toolCalls = (e: Editor) => e.updates.flatMap((n) => (n.update.sessionUpdate === 'tool_call' ? [n.update] : []));
const toolUpdates = (e: Editor, id: string) =>
  e.updates.flatMap((n) => (n.update.sessionUpdate === 'tool_call_update' && n.update.toolCallId === id ? [n.update] : []));
/** The prompt of the model's `i`th call (where the TOOL_RESULT blocks of the calls before it are). */
const promptOf = (e: Editor, i: number) => e.model.requests[i].prompt;

describe('ACP sessions, in-process', () => {
  it('reports a read_file call as a tool call with kind, status and locations; its TOOL_CALL line is never prose', async () => {
    const project = makeProject({ 'src/a.txt': 'alpha\n' });
    const e = await startEditor(['Let me look.\nTOOL_CALL: read_file | path=src/a.txt', 'It says alpha.']);
    const { sessionId } = await e.newSession(project);
    expect((await e.prompt(sessionId, 'what is in a.txt?')).stopReason).toBe('end_turn');
    const [call] = toolCalls(e);
    expect(call).toMatchObject({ kind: 'read', status: 'pending', title: 'read src/a.txt', locations: [{ path: path.join(project, 'src', 'a.txt') }] });
    const [done] = toolUpdates(e, call.toolCallId);
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.content)).toContain('alpha');
    expect(chunks(e)).toContain('Let me look.');
    expect(chunks(e)).toContain('It says alpha.');
    expect(chunks(e)).not.toMatch(/TOOL_CALL/);
    expect(e.permissions).toEqual([]); // reads are allowed by policy
    expect(promptOf(e, 1)).toContain('alpha');
    // The same audit log as the REPL.
    expect(fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8')).toMatch(/"tool":"read_file"/);
  });

  it('a write asks the client; approved, the file changes and the edit comes back as a diff', async () => {
    const project = makeProject({ 'notes.txt': 'old line\nkept line\n' });
    const e = await startEditor(['TOOL_CALL: edit_file | path=notes.txt | old_text=old line | new_text=new line', 'Edited.']);
    const { sessionId } = await e.newSession(project);
    expect((await e.prompt(sessionId, 'update the notes')).stopReason).toBe('end_turn');
    const file = path.join(project, 'notes.txt');
    expect(fs.readFileSync(file, 'utf8')).toBe('new line\nkept line\n');
    expect(e.permissions).toHaveLength(1);
    const [ask] = e.permissions;
    expect(ask.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
    expect(ask.toolCall).toMatchObject({ kind: 'edit', title: 'edit notes.txt', locations: [{ path: file }] });
    const diff = [{ type: 'diff', path: file, oldText: 'old line\nkept line\n', newText: 'new line\nkept line\n' }];
    expect(ask.toolCall.content).toEqual(diff);
    const [call] = toolCalls(e);
    expect(call.toolCallId).toBe(ask.toolCall.toolCallId);
    expect(toolUpdates(e, call.toolCallId).map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(toolUpdates(e, call.toolCallId)[1].content).toEqual(diff);
  });

  it('a command padded with fillers and newlines shows its end in the permission title, every hidden character written out', async () => {
    const project = makeProject({});
    const cmd = `echo tests-ok ${'\u3164'.repeat(400)}${'\n'.repeat(40)}npm install --save left-pad-evil`;
    const e = await startEditor([`TOOL_CALL: run_command | cmd=\`\`\`\n${cmd}\n\`\`\``, 'Not run.']);
    e.answer.optionId = 'reject_once';
    const { sessionId } = await e.newSession(project);
    await e.prompt(sessionId, 'check the tests');
    expect(e.permissions).toHaveLength(1);
    const title = e.permissions[0].toolCall.title ?? '';
    expect(title).toBe('run: echo tests-ok ⟪400 × \\u{3164}⟫⟪40 × \\n⟫npm install --save left-pad-evil');
  });

  it("an agent tool's sub-agent is asked for its own writes, named in the title, whatever the session answered always", async () => {
    const project = makeProject({
      '.devx/agents/boss.md': '---\nname: boss\ndescription: boss\ntools: [read_file, write_file, agent:helper]\n---\nYou are boss.\n',
      '.devx/agents/helper.md': '---\nname: helper\ndescription: helper\ntools: [write_file]\n---\nYou are helper.\n',
    });
    const e = await startEditor([
      'TOOL_CALL: write_file | path=a.txt | content=main',
      'TOOL_CALL: agent | name=helper | input=write b',
      'TOOL_CALL: write_file | path=src/evil.js | content=sub',
      'sub done',
      'main done',
    ]);
    const { sessionId } = await e.newSession(project);
    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'boss' });
    e.answer.optionId = 'allow_always';
    await e.prompt(sessionId, 'go');
    expect(e.permissions.map((p) => p.toolCall.title)).toEqual(['write a.txt (1 lines)', '[agent helper] write src/evil.js (1 lines)']);
    expect(fs.readFileSync(path.join(project, 'src', 'evil.js'), 'utf8')).toBe('sub');
  });

  it("a sub-agent's calls are the editor's tool calls too, titled with the agent, each ended with its outcome", async () => {
    const project = makeProject({
      'README.md': 'hello\n',
      '.devx/agents/boss.md': '---\nname: boss\ndescription: boss\ntools: [read_file, agent:helper]\n---\nYou are boss.\n',
      '.devx/agents/helper.md': '---\nname: helper\ndescription: helper\ntools: [read_file, write_file]\n---\nYou are helper.\n',
    });
    const e = await startEditor([
      'TOOL_CALL: agent | name=helper | input=look',
      'TOOL_CALL: read_file | path=README.md',
      'TOOL_CALL: write_file | path=notes.txt | content=n',
      'sub done',
      'main done',
    ]);
    const { sessionId } = await e.newSession(project);
    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'boss' });
    e.answer.optionId = 'allow_once';
    await e.prompt(sessionId, 'go');
    const calls = toolCalls(e);
    expect(calls.map((c) => c.title)).toEqual([expect.stringMatching(/^agent/), '[agent helper] read README.md', '[agent helper] write notes.txt (1 lines)']);
    // The write's permission request is about the call the editor was shown, not a second one.
    expect(e.permissions.map((p) => p.toolCall.toolCallId)).toEqual([calls[2].toolCallId]);
    for (const c of calls) expect(toolUpdates(e, c.toolCallId).at(-1)?.status, c.title).toBe('completed');
    expect(toolUpdates(e, calls[1].toolCallId).at(-1)?.title).toMatch(/^\[agent helper\] /);
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('n');
  });

  it('a rejected write does not change the file, and the model is told', async () => {
    const project = makeProject({ 'notes.txt': 'keep me\n' });
    const e = await startEditor(['TOOL_CALL: write_file | path=notes.txt | content=gone', 'Understood, left it alone.']);
    e.answer.optionId = 'reject_once';
    const { sessionId } = await e.newSession(project);
    expect((await e.prompt(sessionId, 'overwrite the notes')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('keep me\n');
    expect(e.permissions).toHaveLength(1);
    // The plan keeps the file's final newline: the editor is shown what devx would have written.
    expect(e.permissions[0].toolCall.content).toEqual([{ type: 'diff', path: path.join(project, 'notes.txt'), oldText: 'keep me\n', newText: 'gone\n' }]);
    const [call] = toolCalls(e);
    expect(toolUpdates(e, call.toolCallId).map((u) => u.status)).toEqual(['failed']);
    expect(promptOf(e, 1)).toMatch(/the user declined this write_file call/);
  });

  it('"allow always" is remembered for the session: the next write does not ask', async () => {
    const project = makeProject({});
    const e = await startEditor(['TOOL_CALL: write_file | path=a.txt | content=one', 'TOOL_CALL: write_file | path=b.txt | content=two', 'Both written.']);
    e.answer.optionId = 'allow_always';
    const { sessionId } = await e.newSession(project);
    expect((await e.prompt(sessionId, 'write two files')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('one');
    expect(fs.readFileSync(path.join(project, 'b.txt'), 'utf8')).toBe('two');
    expect(e.permissions).toHaveLength(1);
    expect(toolCalls(e)).toHaveLength(2);
  });

  it('agents are session modes: set_mode switches the persona of the next turn', async () => {
    const project = makeProject({
      '.devx/agents/reviewer.md': '---\nname: reviewer\ndescription: reviews code carefully\ntools: [read_file]\n---\nYou are the careful reviewer persona.\n',
    });
    const e = await startEditor(['Plain answer.', 'Reviewed.']);
    const { sessionId, modes } = await e.newSession(project);
    expect(modes?.availableModes[0]).toEqual({ id: 'default', name: 'devx', description: 'devx without a persona' });
    expect(modes?.availableModes).toContainEqual({ id: 'reviewer', name: 'reviewer', description: 'reviews code carefully' });
    await e.prompt(sessionId, 'first');
    expect(e.model.requests[0].systemPrompt).not.toContain('careful reviewer persona');
    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'reviewer' });
    await e.prompt(sessionId, 'second');
    expect(e.model.requests[1].systemPrompt).toContain('You are the careful reviewer persona.');
    expect(e.updates.some((n) => n.update.sessionUpdate === 'current_mode_update' && n.update.currentModeId === 'reviewer')).toBe(true);
    await expect(e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'nobody' })).rejects.toThrow(/no agent named "nobody"/);
  });

  it('plan is a mode: a read-only planning turn, the plan as an ACP plan and a permission request; approved, the work follows', async () => {
    const project = makeProject({ 'src/app.ts': 'export const app = 1;\n' });
    const seen: string[] = [];
    const e = await startEditor([
      (req) => (seen.push(req.prompt), 'TOOL_CALL: write_file | path=src/early.ts | content=too early'),
      (req) => (seen.push(req.prompt), '# Plan: greet\n\n1. Add greet to src/greet.ts\n2. Run the tests'),
      (req) => (seen.push(req.prompt), 'TOOL_CALL: write_file | path=src/greet.ts | content=export const greet = 1;'),
      'Done.',
    ]);
    const { sessionId, modes } = await e.newSession(project);
    expect(modes?.availableModes.map((m) => m.id)).toContain('plan');
    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    // The plan's question is answered "carry it out, file edits approved": the write then needs no second question.
    e.answer.optionId = 'auto-edit';
    expect((await e.prompt(sessionId, 'add a greeting')).stopReason).toBe('end_turn');
    expect(seen[0]).toContain('You are in plan mode');
    expect(seen[1]).toMatch(/plan mode is read-only/);
    expect(seen[2]).toContain('The person approved your plan');
    const plan = e.updates.find((n) => n.update.sessionUpdate === 'plan')?.update as { entries: { content: string; status: string }[] };
    expect(plan.entries).toEqual([
      { content: 'Add greet to src/greet.ts', priority: 'medium', status: 'pending' },
      { content: 'Run the tests', priority: 'medium', status: 'pending' },
    ]);
    expect(e.permissions).toHaveLength(1);
    expect(e.permissions[0].toolCall.title).toMatch(/^Carry out the plan \(\.devx\/plans\/\d{4}-\d{2}-\d{2}-add-a-greeting\.md\)$/);
    expect(fs.existsSync(path.join(project, 'src', 'early.ts'))).toBe(false);
    expect(fs.readFileSync(path.join(project, 'src', 'greet.ts'), 'utf8')).toBe('export const greet = 1;');
    expect(e.updates.some((n) => n.update.sessionUpdate === 'current_mode_update' && n.update.currentModeId === 'default')).toBe(true);
  });

  it("the client's MCP servers: their tools are offered, a call asks the client first, and the server stops with the connection", async () => {
    const project = makeProject({});
    const e = await startEditor(['TOOL_CALL: mcp__everything__echo | message=from zed', 'Echoed.']);
    const everything: acp.McpServer = {
      name: 'everything',
      command: path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything'),
      args: ['stdio'],
      env: [],
    };
    const { sessionId } = await e.newSession(project, [everything]);
    expect(await e.prompt(sessionId, 'echo')).toEqual({ stopReason: 'end_turn' });
    expect(e.model.requests[0].systemPrompt).toContain('### mcp__everything__echo');
    expect(e.permissions[0].toolCall.title).toContain('mcp__everything__echo message=from zed');
    expect(promptOf(e, 1)).toContain('Echo: from zed');
    await e.close();
    await until(() => processesUnder(project).length === 0, 10_000);
  }, 60_000);
});
