// Custom commands with the real binary and the real gemini against the fake API: `devx run "/name args"`
// sends the command's text, and over ACP the client is told the commands and can run one.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, fakeEnv, makeProject, runDevx } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

function userCommand(rel: string, text: string) {
  const f = path.join(home, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

describe('custom commands', () => {
  it('devx run "/name args" sends the expanded text, with a file injected through the policy', async () => {
    userCommand('.gemini/commands/greet.toml', 'description = "Greets"\nprompt = """Greet {{args}} warmly.\nNotes: @{NOTES.md}"""\n');
    const project = makeProject({ 'NOTES.md': 'likes tea\n' });
    fake.push({ text: 'Hello, Ada!' });
    const r = await runDevx(['run', '/greet Ada'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Hello, Ada!/);
    expect(fake.modelCalls[0].promptText).toMatch(/Greet Ada warmly\.\nNotes: likes tea/);
  });

  it('over ACP the client is told the commands, and a prompt "/name args" runs one', async () => {
    userCommand('.claude/commands/explain.md', '---\ndescription: Explain a file\nargument-hint: <file>\n---\nExplain $0 in one line.');
    const project = makeProject({});
    fake.push({ text: 'It explains.' });
    const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd: project, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    const updates: acp.SessionNotification[] = [];
    const app = acp.client({ name: 'test' }).onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
    const conn = app.connect(
      acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
    );
    await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const until = Date.now() + 10_000;
    while (!updates.some((u) => u.update.sessionUpdate === 'available_commands_update') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const announced = updates.find((u) => u.update.sessionUpdate === 'available_commands_update')!.update as {
      availableCommands: { name: string; description: string; input?: { hint: string } }[];
    };
    // With devx's own commands (/compact, /undo, ...), which come first.
    expect(announced.availableCommands).toContainEqual({ name: 'explain', description: 'Explain a file', input: { hint: '<file>' } });
    expect(announced.availableCommands.map((c) => c.name)).toContain('compact');
    const res = await conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/explain src/app.ts' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(fake.modelCalls[0].promptText).toMatch(/Explain src\/app\.ts in one line\./);
    child.stdin!.end();
  });
});
