// ACP through the editor: a client that offers fs/read_text_file and fs/write_text_file is
// read from and written to (unsaved buffers seen, edits landing in the editor); MCP transports are
// declared; the mode comes back with session/load; a later turn starts without a stray newline.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { makePng } from '../helpers/png.js';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, fakeEnv, makeProject } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

async function editor(cwd: string, buffers: Map<string, string>) {
  const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const updates: acp.SessionNotification[] = [];
  const reads: string[] = [];
  const writes: { path: string; content: string }[] = [];
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      reads.push(params.path);
      return { content: buffers.get(params.path) ?? fs.readFileSync(params.path, 'utf8') };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      writes.push({ path: params.path, content: params.content });
      buffers.set(params.path, params.content);
      return {};
    });
  const conn = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );
  const init = await conn.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  return { child, conn, init, updates, reads, writes };
}

const chunkTexts = (u: acp.SessionNotification[]) =>
  u.flatMap((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? [n.update.content.text] : []));

describe('ACP through the editor', () => {
  it('reads unsaved buffers and writes through the client; declares MCP transports; no stray newline on a later turn', async () => {
    const project = makeProject({ 'a.txt': 'on disk\n' });
    const abs = path.join(project, 'a.txt');
    const buffers = new Map([[abs, 'UNSAVED EDIT in the editor\n']]);
    fake.push(
      { text: 'TOOL_CALL: read_file | path=a.txt' },
      { text: 'TOOL_CALL: edit_file | path=a.txt | old_text=UNSAVED | new_text=SAVED' },
      { text: 'Done.' },
      { text: 'Second turn.' },
    );
    const e = await editor(project, buffers);
    expect(e.init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    expect((await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'fix a.txt' }] })).stopReason).toBe(
      'end_turn',
    );
    expect(fake.modelCalls[1].promptText).toMatch(/UNSAVED EDIT in the editor/);
    expect(e.reads).toContain(abs);
    expect(e.writes).toEqual([{ path: abs, content: 'SAVED EDIT in the editor\n' }]);
    expect(fs.readFileSync(abs, 'utf8')).toBe('on disk\n'); // the editor, not devx, decides when the disk changes
    const before = e.updates.length;
    await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    const second = chunkTexts(e.updates.slice(before)).join('');
    expect(second).toBe('Second turn.');
    e.child.stdin!.end();
  }, 90_000);

  it('session/load comes back in the mode (agent persona) and with the model the session was in', async () => {
    fs.mkdirSync(path.join(home, '.devx', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews\n---\nYou review.');
    const project = makeProject({});
    fake.push({ text: 'Reviewed.' });
    const e = await editor(project, new Map());
    const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    await e.conn.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'reviewer' });
    // The model is a config option (category model); choosing one is said back and used by the next turn.
    const set = await e.conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'model', value: 'gemini-2.5-flash' });
    expect(set.configOptions.find((o) => o.id === 'model')).toMatchObject({ category: 'model', type: 'select', currentValue: 'gemini-2.5-flash' });
    await expect(e.conn.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'colour', value: 'red' })).rejects.toThrow(
      /devx has no option "colour"/,
    );
    await e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'review' }] });
    expect(fake.modelCalls.at(-1)!.model).toBe('gemini-2.5-flash');
    e.child.stdin!.end();
    await new Promise((r) => e.child.on('close', r));
    const again = await editor(project, new Map());
    const loaded = await again.conn.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('reviewer');
    expect(loaded.configOptions?.find((o) => o.id === 'model')?.currentValue).toBe('gemini-2.5-flash');
    fake.push({ text: 'Still reviewing.' });
    await again.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'more' }] });
    expect(fake.modelCalls.at(-1)!.systemText).toMatch(/You review\./);
    expect(fake.modelCalls.at(-1)!.model).toBe('gemini-2.5-flash');
    again.child.stdin!.end();
  }, 90_000);

  it('an image block from the editor reaches the model byte for byte; the capability says so', async () => {
    const project = makeProject({});
    fake.push({ text: 'A gradient.' });
    const e = await editor(project, new Map());
    expect(e.init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const { sessionId } = await e.conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const data = makePng().toString('base64');
    await e.conn.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mimeType: 'image/png', data },
      ],
    });
    const sent = (fake.modelCalls[0].body?.contents ?? []).flatMap((c: any) => (c.parts ?? []).filter((p: any) => p.inlineData).map((p: any) => p.inlineData));
    expect(sent).toEqual([{ mimeType: 'image/png', data }]);
    await expect(
      e.conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'image', mimeType: 'image/tiff', data }] }),
    ).rejects.toThrow(/image 1 is image\/tiff/);
    e.child.stdin!.end();
  }, 90_000);
});
