// Background commands: a server started with run_command background=true, reached by a later command of the same
// turn, its output read with command_output, stopped by the model or by the session's end, every start, stop and
// exit in the audit log, and nothing left running. The server and the end-of-command note run devx's command in
// this process with a scripted model (runCliHere); the model's stop, usage as the API reports it, and the REPL
// run the binary with the real gemini.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi, RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';
import type { ModelRequest } from '../../src/providers/types.js';
import { processesUnder, until } from '../helpers/processes.js';
import { exitOf, startInPty, usePtySessions, type PtySession } from '../helpers/pty.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { SECOND_PASS } from '../helpers/scope.js';

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

/** What the model was sent: through the fake API, or to the scripted model of a run in this process. */
const sentText = (req: RecordedRequest | ModelRequest) => ('promptText' in req ? req.promptText : req.prompt);

/** The newest TOOL_RESULT block the model was sent. */
function lastResult(req: RecordedRequest | ModelRequest): string {
  const text = sentText(req);
  const at = text.lastIndexOf('TOOL_RESULT:');
  expect(at, 'a tool result in the prompt').toBeGreaterThanOrEqual(0);
  return text.slice(at);
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
    const r = await runScripted(['run', '--output-format', 'json', 'start the server and ping it'], {
      cwd: project,
      home,
      replies: [
        'Starting the server.\nTOOL_CALL: run_command | cmd=node server.js | background=true',
        (req) => {
          expect(lastResult(req)).toMatch(/TOOL_RESULT: run_command \| status=ok[^\n]*id=bg1[\s\S]*started in the background as bg1/);
          return 'TOOL_CALL: command_output | id=bg1 | until=listening on \\d+';
        },
        (req) => {
          const r = lastResult(req);
          expect(r).toMatch(/bg1 is still running/);
          port = /listening on (\d+)/.exec(r)![1];
          return `TOOL_CALL: run_command | cmd=node client.js ${port}`;
        },
        (req) => {
          expect(lastResult(req)).toMatch(/status=ok[\s\S]*answer: pong/);
          return 'TOOL_CALL: command_output | id=bg1 | until=hit /ping';
        },
        (req) => {
          const r = lastResult(req);
          // Only what arrived since the last look: the request line, not the listening line again.
          expect(r).toMatch(/output since the last look:\nhit \/ping\n/);
          expect(r).not.toMatch(/listening on/);
          return 'The server answered pong.';
        },
      ],
    });
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
    // The binary and the real gemini: with a scripted model in this process answering at once, a loaded machine
    // saw the stop end by SIGKILL after the grace period (the command was stopped, but not as this case checks).
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

// The usage cases run no command: a sandbox cannot change them.
describe.skipIf(SECOND_PASS)('usage', () => {
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
    // In a terminal /bg is a view (its keys are tested below): Esc closes it.
    s.type('\x1b');
    await s.waitFor(/devx \[1 bg\]> $/);
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
    await s.waitFor(/bg1\s+stopped \(SIGTERM\)\s+\S+\s+node server\.js/);
    s.type('\x1b');
    await s.waitFor(/devx> $/);
    s.type('/exit\r');
    await until(() => processesUnder(project).length === 0);
  }, 90_000);
});

/** The process group `pid` leads or belongs to (from /proc/<pid>/stat). */
function groupOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** Live (non-zombie) members of process group `pgid`. */
function membersOf(pgid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return state !== 'Z' && Number(pgrp) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits until what the screen shows after `mark` (a length of it) matches `re`. */
async function shownAfter(s: PtySession, mark: number, re: RegExp, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const seen = s.screen().slice(mark);
    if (re.test(seen)) return seen;
    if (Date.now() > end || s.child.exitCode !== null) throw new Error(`not seen: ${re}\n--- screen since the mark ---\n${seen.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A background command that starts a child of its own (the same process group) and prints a line with a
// terminal control (a window title) in it: its output is a program's text, drawn and never obeyed.
const IDLE = `const { spawn } = require('node:child_process');
spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
console.log('ready ' + process.argv[2] + ' \\x1b]0;pwned\\x07 end');
setInterval(() => {}, 1000);
`;
// Ends with exit code 3 once the file "go" exists: when the test (or another command) says so, not after a guessed time.
const BUILD = `const fs = require('node:fs');
const t = setInterval(() => {
  if (!fs.existsSync('go')) return;
  clearInterval(t);
  console.log('built');
  process.exitCode = 3;
}, 20);
`;
// Lets the build end, then waits until devx has seen it end (its exit is in the audit log).
const WAITER = `const fs = require('node:fs');
fs.writeFileSync('go', '');
const t = setInterval(() => {
  let log = '';
  try { log = fs.readFileSync('.devx/audit.jsonl', 'utf8'); } catch {}
  if (/"event":"background_exit"/.test(log)) { clearInterval(t); console.log('the build ended'); }
}, 20);
`;

const NOTICE =
  /Background command bg1 \(`node build\.js`\) exited with code 3 after \d+(?:ms|s)\. It printed 1 line you have not read; read them with: TOOL_CALL: command_output \| id=bg1/g;

describe('a person stops a background command with a key', () => {
  const startPty = usePtySessions();

  it('/bg and Ctrl-T open the view: ↑/↓ select, k stops the whole process group (audited as the person), Enter shows the output, Esc closes', async () => {
    allowNode();
    const project = makeProject({ 'idle.js': IDLE });
    fake.push(
      { text: 'TOOL_CALL: run_command | cmd=node idle.js one | background=true\nTOOL_CALL: run_command | cmd=node idle.js two | background=true' },
      { text: 'Both run.' },
      (req) => {
        expect(req.promptText).toMatch(/## User\nhello\n/);
        return { text: 'Hello.' };
      },
    );
    const s = startPty([], project, fakeEnv(fake, home));
    await s.waitFor(/Type a task/);
    s.type('start both\r');
    await s.waitFor(/Both run\.[\s\S]*devx \[2 bg\]> /);
    const pids = await Promise.all(
      ['one', 'two'].map(async (arg) => {
        let found: number[] = [];
        await until(() => (found = processesUnder(project).filter((p) => cmdline(p) === `node\0idle.js\0${arg}\0`)).length === 1);
        return found[0];
      }),
    );
    const [g1, g2] = pids.map(groupOf);
    // Each group holds the command and the child it started.
    await until(() => membersOf(g1).length === 2 && membersOf(g2).length === 2);

    let mark = s.screen().length;
    s.type('/bg\r');
    await shownAfter(
      s,
      mark,
      /Background commands \(2 running\)[^\n]*k stop[^\n]*\n▸ bg1 +running +\d+(?:ms|s|m\d+s) +node idle\.js one\n +│ ready one ␛\]0;pwned␇ end\n {2}bg2 +running/,
    );
    mark = s.screen().length;
    s.type('\x1b[B'); // ↓
    await shownAfter(s, mark, /\n {2}bg1 [^\n]*\n[^\n]*\n▸ bg2 +running/);
    mark = s.screen().length;
    s.type('k');
    await shownAfter(s, mark, /▸ bg2 +stopped \(SIGTERM\)[\s\S]*\nbg2 stopped \(SIGTERM\)/);
    // The whole group is gone (the child too); the other command runs on.
    await until(() => membersOf(g2).length === 0);
    expect(membersOf(g1)).toHaveLength(2);
    mark = s.screen().length;
    s.type('\r');
    await shownAfter(s, mark, /bg2 · stopped \(SIGTERM\) · \d+(?:ms|s|m\d+s) · node idle\.js two\nk stop · Esc back\n│ ready two ␛\]0;pwned␇ end\n/);
    mark = s.screen().length;
    s.type('\x1b');
    await shownAfter(s, mark, /Background commands \(1 running\)/);
    mark = s.screen().length;
    s.type('\x1b');
    // Closed: what was done stays, and the prompt is back, counting the one that still runs.
    await shownAfter(s, mark, /bg2 stopped \(SIGTERM\)\n(?:[^\n]*\n)*?devx \[1 bg\]> $/);

    // Ctrl-T at the prompt opens the same view, and what was typed is kept.
    s.type('hel');
    await s.waitFor(/devx \[1 bg\]> hel$/);
    mark = s.screen().length;
    s.type('\x14');
    await shownAfter(s, mark, /Background commands \(1 running\)[^\n]*\n▸ bg1 +running/);
    mark = s.screen().length;
    s.type('k');
    await shownAfter(s, mark, /▸ bg1 +stopped \(SIGTERM\)/);
    await until(() => membersOf(g1).length === 0);
    mark = s.screen().length;
    s.type('q');
    await shownAfter(s, mark, /bg1 stopped \(SIGTERM\)\ndevx> hel$/);
    s.type('lo\r');
    await s.waitFor(/Hello\./);

    // A command's control characters reached the screen as text only.
    expect(s.raw()).not.toContain('\x1b]0;pwned');
    const stops = auditEntries(project).filter((e) => e.event === 'background_stop' || e.event === 'background_exit');
    expect(stops.map((e) => [e.event, e.id, e.by])).toEqual([
      ['background_stop', 'bg2', 'person'],
      ['background_exit', 'bg2', 'person'],
      ['background_stop', 'bg1', 'person'],
      ['background_exit', 'bg1', 'person'],
    ]);
    s.type('/exit\r');
    expect(await exitOf(s)).toBe(0);
    expect(processesUnder(project)).toEqual([]);
  }, 120_000);

  it('without a terminal /bg prints the list, as before', async () => {
    const project = makeProject({});
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input: '/bg\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('No background commands in this session.');
  }, 60_000);
});

describe('the model is told when a background command ends', () => {
  const startPty = usePtySessions();

  it('during a turn: the next request carries a note with the exit code and the call that reads the output, once', async () => {
    allowNode();
    const project = makeProject({ 'build.js': BUILD, 'waiter.js': WAITER });
    const r = await runScripted(['run', 'build it and wait'], {
      cwd: project,
      home,
      replies: [
        'TOOL_CALL: run_command | cmd=node build.js | background=true',
        (req) => {
          expect(lastResult(req)).toMatch(/started in the background as bg1/);
          expect(req.prompt).not.toMatch(/Background command bg1/);
          return 'TOOL_CALL: run_command | cmd=node waiter.js';
        },
        (req) => {
          // After the round's results, before the model's next move: a note from devx.
          expect(req.prompt).toMatch(/TOOL_RESULT: run_command \| status=ok[\s\S]*the build ended[\s\S]*## Note from devx\nBackground command bg1 /);
          expect(req.prompt.match(NOTICE)).toHaveLength(1);
          return 'TOOL_CALL: list_directory | path=.';
        },
        (req) => {
          // Said once: the note is in the conversation, not added again.
          expect(req.prompt.match(NOTICE)).toHaveLength(1);
          return 'TOOL_CALL: command_output | id=bg1';
        },
        (req) => {
          expect(lastResult(req)).toMatch(/bg1 exited \(exit 3\)[\s\S]*built/);
          expect(req.prompt.match(NOTICE)).toHaveLength(1);
          return 'The build failed with exit code 3.';
        },
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('The build failed with exit code 3.');
    expect(r.model.requests).toHaveLength(5);
  }, 90_000);

  it('between turns: the person sees it at the prompt, and the next message carries the note, once', async () => {
    allowNode();
    const project = makeProject({ 'build.js': BUILD });
    fake.push(
      { text: 'TOOL_CALL: run_command | cmd=node build.js | background=true' },
      { text: 'The build runs.' },
      (req) => {
        expect(req.promptText).toMatch(/## User\nhow did it go\?\n\n## Note from devx\nBackground command bg1 /);
        expect(req.promptText.match(NOTICE)).toHaveLength(1);
        return { text: 'It failed with exit code 3.' };
      },
      (req) => {
        expect(req.promptText).toMatch(/## User\nanything else\?/);
        expect(req.promptText.match(NOTICE)).toHaveLength(1);
        return { text: 'No.' };
      },
    );
    const s = startPty([], project, fakeEnv(fake, home));
    await s.waitFor(/Type a task/);
    s.type('start the build\r');
    await s.waitFor(/The build runs\.\n(?:[^\n]*\n)*?devx \[1 bg\]> $/);
    const mark = s.screen().length;
    fs.writeFileSync(path.join(project, 'go'), '');
    // It ended while the person was at the prompt: a line says so, and the prompt no longer counts it.
    await shownAfter(s, mark, /◦ bg1 exited \(exit 3\) after \d+(?:ms|s): node build\.js\ndevx> $/);
    expect(fake.modelCalls).toHaveLength(2);
    s.type('how did it go?\r');
    await s.waitFor(/It failed with exit code 3\./);
    s.type('anything else?\r');
    await s.waitFor(/\nNo\.\n/);
    s.type('/exit\r');
    expect(await exitOf(s)).toBe(0);
    expect(fake.modelCalls).toHaveLength(4);
  }, 90_000);
});

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
