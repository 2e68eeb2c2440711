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
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeProject } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
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
      const want = { allow: 'allow_once', always: 'allow_always' }[answers.shift() ?? ''] ?? 'reject_once';
      return { outcome: { outcome: 'selected' as const, optionId: params.options.find((o) => o.kind === want)!.optionId } };
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

// The rest of the ACP behaviour is in acp.test.ts; this file covers the client's MCP servers.
describe('devx --acp with the client\'s MCP servers', () => {
  it("the client's MCP servers: their tools are offered, and a call asks the client first", async () => {
    const project = makeProject({});
    const c = await startAcp(project, ['allow']);
    const everything = { name: 'everything', command: path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything'), args: ['stdio'], env: [] };
    const { sessionId } = await c.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [everything] });
    fake.push({ text: 'TOOL_CALL: mcp__everything__echo | message=from zed' }, { text: 'Echoed.' });
    expect(await ask(c, sessionId, 'echo')).toEqual({ stopReason: 'end_turn' });
    expect(fake.modelCalls[0].systemText).toContain('### mcp__everything__echo');
    expect(c.permissions[0].toolCall.title).toContain('mcp__everything__echo message=from zed');
    expect(fake.modelCalls[1].promptText).toContain('Echo: from zed');
    await stop(c);
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);
});
