// First streamed character: how long after the fake API writes the first chunk of a reply the REPL
// (in a real terminal) shows its first characters. The rest of the reply follows a second later, so
// only streaming can show the start early.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, fakeEnv, makeHome, makeProject } from '../test/helpers/env.js';
import { startInPty } from '../test/helpers/pty.js';
import { median } from './timing.js';

export async function benchFirstChar(): Promise<void> {
  const runs = Number(process.env.BENCH_STREAM_RUNS ?? 5);
  const fake = await new FakeGeminiApi().start();
  const home = makeHome();
  const lags: number[] = [];
  for (let i = 0; i < runs; i++) {
    const mark = `FIRSTPART${i}`;
    fake.push({
      text: `${mark} begins the reply.\nThe rest of the reply is long enough to be sent in three chunks,\nthe last of them a second later.`,
      chunkDelayMs: 1000,
    });
    // A fresh project each time: a REPL killed a moment ago may still hold its project's session lock.
    const project = makeProject({});
    const pty = startInPty([], project, { ...fakeEnv(fake, home), NO_COLOR: '' });
    await pty.waitFor(/devx>|>\s*$/m, 60_000).catch(() => undefined);
    pty.type(`say hello ${i}\r`);
    const re = new RegExp(mark);
    const t0 = Date.now();
    while (!re.test(pty.screen()) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 1));
    const seen = Date.now();
    const req = fake.modelCalls.at(-1);
    if (!req?.firstChunkAt) throw new Error('the fake API sent no streamed chunk');
    lags.push(seen - req.firstChunkAt);
    pty.kill();
    await new Promise((r) => setTimeout(r, 200));
  }
  const acpLags = await acpFirstChar(fake, home, runs);
  await fake.close();
  console.log(
    `streaming: over ACP the editor gets the first streamed characters ${median(acpLags)} ms (median of ${runs}; all: ${acpLags.join(', ')}) after the fake API writes them (target < 50 ms)`,
  );
  console.log(
    `streaming: the REPL shows the first streamed characters ${median(lags)} ms (median of ${runs}; all: ${lags.join(', ')}) after the fake API writes them (target < 50 ms)`,
  );
}

/** The same over ACP: a real `devx --acp` driven by the SDK's client; the time from the fake API's first chunk to the first agent_message_chunk holding it. */
async function acpFirstChar(fake: FakeGeminiApi, home: string, runs: number): Promise<number[]> {
  const lags: number[] = [];
  const project = makeProject({});
  const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd: project, env: { ...fakeEnv(fake, home) }, stdio: ['pipe', 'pipe', 'inherit'] });
  let seenAt: { mark: string; at: number } | null = null;
  let want = '';
  const app = acp.client({ name: 'bench-editor' }).onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (!seenAt && want && u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text.includes(want))
      seenAt = { mark: want, at: Date.now() };
  });
  const conn = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );
  await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  for (let i = 0; i < runs; i++) {
    want = `ACPFIRST${i}`;
    seenAt = null;
    fake.push({
      text: `${want} begins the reply.\nThe rest of the reply is long enough to be sent in three chunks,\nthe last of them a second later.`,
      chunkDelayMs: 1000,
    });
    await conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: `say hello ${i}` }] });
    const req = fake.modelCalls.at(-1);
    if (!req?.firstChunkAt || !seenAt) throw new Error('no streamed chunk reached the editor');
    lags.push((seenAt as { at: number }).at - req.firstChunkAt);
  }
  child.stdin!.end();
  await new Promise((r) => child.on('close', r));
  return lags;
}
