// ACP, devx against `gemini --acp`: the same client (the ACP SDK's), the same fake Gemini API
// answering at once, both agents started once and driven turn after turn, interleaved. Two figures per
// agent: from session/prompt to the first agent_message_chunk, and from session/prompt to the
// session/request_permission of a file write (the client says no: nothing is written).
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import * as acp from '@agentclientprotocol/sdk';
import { FakeGeminiApi, type RecordedRequest, type FakeReply } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, GEMINI_BIN, fakeEnv, makeHome, makeProject } from '../test/helpers/env.js';
import { median } from './timing.js';

interface Driven {
  name: string;
  child: ChildProcess;
  conn: ReturnType<ReturnType<typeof acp.client>['connect']>;
  sessionId: string;
  /** Resolves at the next first chunk / permission request. */
  nextChunk(): Promise<number>;
  nextPermission(): Promise<number>;
}

/** The fake API's answer, by what the request carries: a greeting, or a write (devx's TOOL_CALL line, or gemini's own tool). */
function answer(req: RecordedRequest): FakeReply {
  // gemini's own side calls that want JSON (its model router, its next-speaker check): one object that answers both.
  if (req.body?.generationConfig?.responseMimeType === 'application/json')
    return { text: JSON.stringify({ complexity_reasoning: 'simple', complexity_score: 10, reasoning: 'done', next_speaker: 'user' }) };
  const marks = req.promptText.match(/WRITE-\d+/g);
  const asksWrite = marks?.at(-1);
  // The write was asked for the newest request only, and not answered yet (a TOOL_RESULT after it, or gemini's functionResponse).
  const last = req.body?.contents?.at(-1);
  const gemini = req.functionDeclarations > 0;
  const answered = gemini
    ? JSON.stringify(last ?? '').includes('functionResponse') || !JSON.stringify(last ?? '').includes(asksWrite ?? '\0')
    : /TOOL_RESULT/.test(req.promptText.slice(req.promptText.lastIndexOf(asksWrite ?? '\0'))) || !/WRITE-\d+[^]*$/.test(req.promptText.slice(-400));
  if (!asksWrite || answered) return { text: 'Hello from the fake API, at once.' };
  if (gemini) return { functionCall: { name: 'write_file', args: { file_path: `out-${asksWrite}.txt`, content: 'x\n' } } };
  return { text: `TOOL_CALL: write_file | path=out-${asksWrite}.txt | content=x` };
}

async function drive(name: string, file: string, args: string[], project: string, env: NodeJS.ProcessEnv): Promise<Driven> {
  const child = spawn(file, args, { cwd: project, env, stdio: ['pipe', 'pipe', 'ignore'] });
  let chunkWaiter: ((t: number) => void) | null = null;
  let permWaiter: ((t: number) => void) | null = null;
  const app = acp
    .client({ name: 'bench-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'agent_message_chunk' && chunkWaiter) {
        chunkWaiter(performance.now());
        chunkWaiter = null;
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permWaiter?.(performance.now());
      permWaiter = null;
      const reject = params.options.find((o) => o.kind.startsWith('reject')) ?? params.options.at(-1)!;
      return { outcome: { outcome: 'selected', optionId: reject.optionId } };
    });
  const conn = app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
  );
  const init = await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  // gemini asks the client to pick its login: the API key from the environment.
  const key = init.authMethods?.find((m) => /api.?key/i.test(`${m.id} ${m.name}`));
  if (key) await conn.agent.request(acp.methods.agent.authenticate, { methodId: key.id });
  const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  return {
    name,
    child,
    conn,
    sessionId,
    nextChunk: () => new Promise((r) => (chunkWaiter = r)),
    nextPermission: () => new Promise((r) => (permWaiter = r)),
  };
}

async function timeTurn(d: Driven, text: string, what: 'chunk' | 'permission'): Promise<number> {
  const seen = what === 'chunk' ? d.nextChunk() : d.nextPermission();
  const t0 = performance.now();
  const done = d.conn.agent.request(acp.methods.agent.session.prompt, { sessionId: d.sessionId, prompt: [{ type: 'text', text }] });
  const at = await Promise.race([seen, done.then(() => NaN)]);
  await done.catch(() => undefined);
  return at - t0;
}

export async function benchAcpCompare(): Promise<void> {
  const runs = Number(process.env.BENCH_ACP_RUNS ?? 7);
  const fake = await new FakeGeminiApi().start();
  fake.fallback = answer;
  const home = makeHome();
  const projects = { devx: makeProject({ 'README.md': 'x\n' }), gemini: makeProject({ 'README.md': 'x\n' }) };
  const env = { ...fakeEnv(fake, home), GEMINI_CLI_NO_RELAUNCH: 'true' };
  const agents = [
    await drive('devx', process.execPath, [DEVX_BIN, '--acp'], projects.devx, env),
    await drive('gemini --acp', process.execPath, [fs.realpathSync(GEMINI_BIN), '--acp'], projects.gemini, env),
  ];
  const chunk = new Map<string, number[]>(agents.map((a) => [a.name, []]));
  const perm = new Map<string, number[]>(agents.map((a) => [a.name, []]));
  try {
    for (const a of agents) await timeTurn(a, 'warm up: say hello', 'chunk');
    for (let i = 0; i < runs; i++)
      for (const a of agents) {
        chunk.get(a.name)!.push(await timeTurn(a, `say hello ${i}`, 'chunk'));
        perm.get(a.name)!.push(await timeTurn(a, `please write the file WRITE-${i}`, 'permission'));
      }
  } finally {
    for (const a of agents) a.child.kill('SIGKILL');
    await fake.close();
  }
  const row = (m: Map<string, number[]>, label: string) => {
    const [d, g] = [median(m.get('devx')!), median(m.get('gemini --acp')!)];
    const bad = [...m.values()].flat().some(Number.isNaN);
    console.log(
      `acp: ${label}: devx ${d.toFixed(0)} ms vs gemini --acp ${g.toFixed(0)} ms -> ratio ${(d / g).toFixed(2)} (medians of ${runs}, same client and fake API${bad ? '; SOME TURNS NEVER GOT THERE' : ''})`,
    );
  };
  row(chunk, 'prompt to first message chunk');
  row(perm, 'prompt to permission request for a file write');
  for (const p of Object.values(projects)) if (fs.readdirSync(p).some((f) => f.startsWith('out-'))) console.log('acp: a rejected write was written!');
}
