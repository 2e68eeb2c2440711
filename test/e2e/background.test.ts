// Background commands through the real gemini binary: a server started with run_command background=true,
// reached by a later command of the same turn, its output read with command_output, stopped by the model
// or by the session's end, every start, stop and exit in the audit log, and nothing left running.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi, RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => ((fake = f), (home = h)));
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

const SERVER = `const http = require('node:http');
http.createServer((req, res) => { console.log('hit ' + req.url); res.end('pong'); })
  .listen(0, '127.0.0.1', function () { console.log('listening on ' + this.address().port); });
`;
const CLIENT = `fetch('http://127.0.0.1:' + process.argv[2] + '/ping').then((r) => r.text()).then((t) => console.log('answer: ' + t));
`;

/** The person's settings: node runs as they allowed it (outside the sandbox, where 127.0.0.1 is reachable). */
function allowNode(): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(node:*)'] } }));
}

/** The newest TOOL_RESULT block the model was sent. */
function lastResult(req: RecordedRequest): string {
  const at = req.promptText.lastIndexOf('TOOL_RESULT:');
  expect(at, 'a tool result in the prompt').toBeGreaterThanOrEqual(0);
  return req.promptText.slice(at);
}

function auditEntries(project: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('background commands', () => {
  it('a server started in one call is reached by a later command of the same turn; its output is read; the session end stops it', async () => {
    allowNode();
    const project = makeProject({ 'server.js': SERVER, 'client.js': CLIENT });
    let port = '';
    fake.push(
      { text: 'Starting the server.\nTOOL_CALL: run_command | cmd=node server.js | background=true' },
      (req) => {
        expect(lastResult(req)).toMatch(/TOOL_RESULT: run_command \| status=ok[^\n]*id=bg1[\s\S]*started in the background as bg1/);
        return { text: 'TOOL_CALL: command_output | id=bg1 | until=listening on \\d+' };
      },
      (req) => {
        const r = lastResult(req);
        expect(r).toMatch(/bg1 is still running/);
        port = /listening on (\d+)/.exec(r)![1];
        return { text: `TOOL_CALL: run_command | cmd=node client.js ${port}` };
      },
      (req) => {
        expect(lastResult(req)).toMatch(/status=ok[\s\S]*answer: pong/);
        return { text: 'TOOL_CALL: command_output | id=bg1 | until=hit /ping' };
      },
      (req) => {
        const r = lastResult(req);
        // Only what arrived since the last look: the request line, not the listening line again.
        expect(r).toMatch(/output since the last look:\nhit \/ping\n/);
        expect(r).not.toMatch(/listening on/);
        return { text: 'The server answered pong.' };
      },
    );
    const r = await runDevx(['run', '--output-format', 'json', 'start the server and ping it'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout);
    expect(t.answer).toBe('The server answered pong.');
    expect(t.toolCalls.map((c: { tool: string; status: string }) => `${c.tool}:${c.status}`)).toEqual([
      'run_command:ok',
      'command_output:ok',
      'run_command:ok',
      'command_output:ok',
    ]);
    // Nothing devx started is left: the server ended with the session.
    expect(processesUnder(project)).toEqual([]);
    const audit = auditEntries(project);
    const bg = audit.filter((e) => String(e.event).startsWith('background_'));
    expect(bg.map((e) => [e.event, e.id, e.by ?? null])).toEqual([
      ['background_start', 'bg1', null],
      ['background_stop', 'bg1', 'session'],
      ['background_exit', 'bg1', 'session'],
    ]);
    expect(bg[0]).toMatchObject({ cmd: 'node server.js', sandbox: null });
    expect(bg[2]).toMatchObject({ signal: 'SIGTERM' });
    expect(bg[2].outputChars).toBe(`listening on ${port}\nhit /ping\n`.length);
    // The start was authorized like any run_command: the person's settings rule allowed it.
    const start = audit.find((e) => e.event === 'tool_call' && e.tool === 'run_command')!;
    expect(start).toMatchObject({ decision: 'allow', args: { cmd: 'node server.js', background: 'true' } });
  }, 90_000);

  it('the model stops one with stop_command; a command the policy allows runs in the sandbox it would have had', async () => {
    const sandboxed = Boolean(probeBwrap(process.env).bin);
    const project = makeProject({});
    fake.push(
      { text: 'TOOL_CALL: run_command | cmd=sleep 600 | background=true' },
      (req) => {
        const r = lastResult(req);
        // sleep only waits: without a sandbox it is one of the few commands that run unasked there, unsandboxed.
        if (!sandboxed) expect(r).toMatch(/started in the background as bg1/);
        else expect(r).toMatch(/started in the background as bg1 \(sandboxed: bwrap:read-only\)/);
        return { text: 'TOOL_CALL: stop_command | id=bg1' };
      },
      (req) => {
        expect(lastResult(req)).toMatch(/TOOL_RESULT: stop_command \| status=ok[\s\S]*bg1 stopped \(SIGTERM\): its process group was stopped/);
        return { text: 'TOOL_CALL: command_output | id=bg9' };
      },
      (req) => {
        expect(lastResult(req)).toMatch(/status=error[\s\S]*no background command "bg9"/);
        return { text: 'Stopped.' };
      },
    );
    const r = await runDevx(['run', '--yes', 'start and stop'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(processesUnder(project)).toEqual([]);
    if (!sandboxed) return void console.log('background sandbox case skipped: no working bubblewrap');
    const bg = auditEntries(project).filter((e) => String(e.event).startsWith('background_'));
    expect(bg.map((e) => [e.event, e.by ?? null, e.sandbox])).toEqual([
      ['background_start', null, 'bwrap:read-only'],
      ['background_stop', 'model', 'bwrap:read-only'],
      ['background_exit', 'model', 'bwrap:read-only'],
    ]);
  }, 90_000);
});

describe('usage', () => {
  it('devx run --output-format json reports the tokens, requests and time the API reported, and the audit log each call', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push(
      { text: 'TOOL_CALL: read_file | path=a.txt', usage: { prompt: 1234, candidates: 56 } },
      { text: 'It says alpha.', usage: { prompt: 2345, candidates: 7 } },
    );
    const r = await runDevx(['run', '--output-format', 'json', 'what is in a.txt'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    const sent = fake.modelCalls.map((c) => c.usageSent!);
    expect(sent).toHaveLength(2);
    const t = JSON.parse(r.stdout);
    expect(t.usage).toMatchObject({ input: 1234 + 2345, output: 56 + 7, cached: 0, requests: 2 });
    expect(t.usage.durationMs).toBeGreaterThan(0);
    const calls = auditEntries(project).filter((e) => e.event === 'model_call');
    expect(calls.map((c) => [c.input, c.output])).toEqual([
      [1234, 56],
      [2345, 7],
    ]);
  }, 60_000);

  it("a queued task's transcript carries each call's tokens, and its status the totals", async () => {
    const worker = '---\nname: worker\ndescription: does queued jobs\ntools: [read_file]\n---\nYou do one small job and report it.\n';
    const project = makeProject({ '.devx/agents/worker.md': worker });
    const env = fakeEnv(fake, home);
    expect((await runDevx(['agent', 'start', 'worker', 'say hi'], { cwd: project, env })).code).toBe(0);
    fake.push({ text: 'Hi.', usage: { prompt: 777, candidates: 9 } });
    const run = await runDevx(['agent', 'run', '--all'], { cwd: project, env });
    expect(run.code, run.stderr).toBe(0);
    const [task] = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout) as {
      usage: Record<string, number>;
      logFile: string;
    }[];
    expect(task.usage).toMatchObject({ input: 777, cached: 0, output: 9, requests: 1 });
    expect(fs.readFileSync(path.join(project, task.logFile), 'utf8')).toMatch(
      /model gemini-[\w.-]+[^:\n]*: 3 chars in \d+ ms, tokens: 777 input \(0 cached\), 9 output/,
    );
  }, 90_000);

  it('per-call gemini reports cached tokens too', async () => {
    const project = makeProject({});
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ providers: { gemini: { mode: 'spawn' } } }));
    fake.push({ text: 'Hello.', usage: { prompt: 900, candidates: 3, cached: 600 } });
    const r = await runDevx(['run', '--output-format', 'stream-json', 'hi'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const end = events.find((e) => e.type === 'turn_end');
    expect(end.usage).toMatchObject({ input: 900, cached: 600, output: 3, requests: 1 });
    expect(events.find((e) => e.type === 'model_response').usage).toEqual({ input: 900, cached: 600, output: 3 });
  }, 60_000);
});

/** Live processes running `node <script>` in `dir`. */
function nodeRunning(dir: string, script: string): number[] {
  return processesUnder(dir).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8') === `node\0${script}\0`;
    } catch {
      return false;
    }
  });
}

describe('the REPL', () => {
  it('/bg lists the background commands, /bg stop stops one, /stats and /context show usage and how full the prompt is', async () => {
    allowNode();
    const project = makeProject({ 'server.js': SERVER });
    fake.push(
      { text: 'TOOL_CALL: run_command | cmd=node server.js | background=true', usage: { prompt: 1000, candidates: 20 } },
      { text: 'TOOL_CALL: command_output | id=bg1 | until=listening on', usage: { prompt: 1100, candidates: 30 } },
      { text: 'The server is up.', usage: { prompt: 1200, candidates: 40 } },
    );
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('start the server\r');
    await s.waitFor(/The server is up\./);
    s.type('/bg\r');
    await s.waitFor(/bg1\s+running\s+\S+\s+node server\.js/);
    s.type('/stats\r');
    await s.waitFor(/This session \(1 turn\): 3 model calls in [\d.]+ s\n\s*tokens: 3,300 input \(0 of them cached\), 90 output\nLast turn: 3 model calls/);
    s.type('/context\r');
    await s.waitFor(
      /Prompt now: [\d,]+ characters \(~[\d,]+ tokens\)[^\n]*\n\s*devx's budget: [\d.]+% of 400,000 characters[^\n]*\n\s*gemini-[\w.-]+'s window: ~[\d.]+% of 1,048,576 tokens\nLast model call: 1,200 input tokens/,
    );
    expect(nodeRunning(project, 'server.js')).toHaveLength(1);
    s.type('/bg stop bg1\r');
    await s.waitFor(/bg1 stopped \(SIGTERM\)/);
    expect(nodeRunning(project, 'server.js')).toEqual([]);
    s.type('/bg\r');
    await s.waitFor(/bg1\s+stopped \(SIGTERM\)/);
    s.type('/exit\r');
    await until(() => processesUnder(project).length === 0);
  }, 90_000);
});
