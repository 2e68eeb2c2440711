// Text, never control: what devx prints that came from a repository, a model or a tool reaches the terminal
// with its control characters shown, never obeyed (a clipboard write, a window title, the alternate screen).
// The real binary, the real gemini against the fake API, a real pseudo-terminal for the REPL; each case reads
// the raw bytes devx wrote, where only devx's own colours and cursor moves may remain. The cases of `devx run`
// after the first run its command in this process with a scripted model (runCliHere): the same printing code,
// the model's text reaching it unaltered by a model CLI.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { runScripted } from '../helpers/runCliHere.js';

/** A clipboard write (OSC 52), a window title (OSC 0), the alternate screen, an 8-bit CSI, a DCS, a backspace, a DEL. */
const EVIL = 'A\x1b]52;c;ZXZpbA==\x07B\x1b]0;pwned\x07C\x1b[?1049hD\u009b2JE\x1bP+q\x1b\\F\x08G\x7fH';
/** EVIL as devx shows it. */
const SHOWN = 'A␛]52;c;ZXZpbA==␇B␛]0;pwned␇C␛[?1049hD\\u{9b}2JE␛P+q␛\\F␈G␡H';
/** A piece of EVIL that says the text arrived, whatever became of its controls. */
const MARK = 'ZXZpbA==';
const MCP_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'controlCharsMcpServer.mjs');

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});
const ptys: PtySession[] = [];
afterEach(() => {
  for (const p of ptys.splice(0)) p.kill();
});

/** devx's own sequences: SGR colours; cursor moves and erasing (spinner, picker, readline); bracketed paste on and off. */
const OWN = /\x1b\[[0-9;]*m|\x1b\[\d*[ABCDGJK]|\x1b\[\?2004[hl]/g;

/** The control characters in `raw` devx did not write for itself, each with what surrounds it; [] when none. */
function foreignControls(raw: string, opts: { pty?: boolean } = {}): string[] {
  const rest = raw.replace(OWN, '');
  // In a terminal the line discipline writes \n as \r\n, and readline and the spinner go back to column 0.
  const bad = opts.pty ? /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g : /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
  return [...rest.matchAll(bad)].map((m) => JSON.stringify(rest.slice(Math.max(0, m.index! - 24), m.index! + 24)));
}

function expectShownNotObeyed(raw: string, opts: { pty?: boolean } = {}): void {
  expect(raw).toContain(MARK);
  expect(foreignControls(raw, opts)).toEqual([]);
}

/** EVIL as a YAML (or JSON) double-quoted string: every control escaped. */
const quoted = (s: string) => JSON.stringify(s).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const devx = (project: string, args: string[], extra: Record<string, string> = {}) => runDevx(args, { cwd: project, env: fakeEnv(fake, home, extra) });
/** `devx run …` in this process, the model replying `replies`. */
const here = (project: string, args: string[], replies: string[]) => runScripted(args, { cwd: project, home, replies });

function userFile(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
  fs.writeFileSync(path.join(home, rel), text);
}

function repl(project: string, opts: { color?: boolean; extra?: Record<string, string> } = {}): PtySession {
  const env = fakeEnv(fake, home, opts.extra);
  if (opts.color) delete env.NO_COLOR;
  const s = startInPty([], project, env);
  ptys.push(s);
  return s;
}

describe('devx run prints text, never control', () => {
  it('the answer on stdout shows each control character', async () => {
    const project = makeProject({});
    fake.push({ text: `Here: ${EVIL}\nDone.` });
    const r = await devx(project, ['run', 'say it']);
    expect(r.code, r.stderr).toBe(0);
    expectShownNotObeyed(r.stdout + r.stderr);
    expect(r.stdout).toContain(`Here: ${SHOWN}\nDone.`);
  });

  it("a tool call's file name, and the line saying the policy refused it", async () => {
    const project = makeProject({});
    const r = await here(project, ['run', 'read it'], [`TOOL_CALL: read_file | path=${EVIL}.txt`, 'There is no such file.']);
    expect(r.code, r.stderr).toBe(0);
    expectShownNotObeyed(r.stderr);
    expect(r.stderr).toContain(`→ read_file path=${SHOWN}.txt`);
    expect(r.stderr).toMatch(/✗ read_file .*control characters/);
  });

  it("a hook's message", async () => {
    const hook = path.join(home, 'block.sh');
    fs.writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\ncat >&2 <<'EOF'\nno: ${EVIL}\nEOF\nexit 2\n`, { mode: 0o755 });
    userFile('.devx/settings.json', JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hook }] }] } }));
    const project = makeProject({ 'README.md': 'hi\n' });
    const r = await here(project, ['run', 'look around'], ['TOOL_CALL: list_directory | path=.', 'Blocked.']);
    expect(r.stderr).toMatch(/⛔ PreToolUse hook/);
    expectShownNotObeyed(r.stderr);
  });

  it("an MCP server's tool description (devx mcp list) and its error result", async () => {
    userFile('.devx/settings.json', JSON.stringify({ mcpServers: { controls: { command: process.execPath, args: [MCP_SERVER], trust: true } } }));
    const project = makeProject({});
    const list = await devx(project, ['mcp', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expectShownNotObeyed(list.stdout + list.stderr);
    const r = await here(project, ['run', 'shout'], ['TOOL_CALL: mcp__controls__shout', 'It refused.']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/✗ mcp__controls__shout/);
    expectShownNotObeyed(r.stderr);
  });

  it('--output-format json and stream-json escape every control, and parse back to the text', async () => {
    const project = makeProject({});
    const json = await here(project, ['run', '--output-format', 'json', 'say it'], [EVIL]);
    expect(json.code, json.stderr).toBe(0);
    expectShownNotObeyed(json.stdout + json.stderr);
    expect(JSON.parse(json.stdout).answer).toBe(EVIL);
    const stream = await here(makeProject({}), ['run', '--output-format', 'stream-json', 'say it again'], [EVIL]);
    expect(stream.code, stream.stderr).toBe(0);
    expectShownNotObeyed(stream.stdout + stream.stderr);
    const lines = stream.stdout.trim().split('\n');
    expect(lines.some((l) => JSON.stringify(JSON.parse(l)).includes(JSON.stringify(EVIL).slice(1, -1)))).toBe(true);
  });
});

describe('commands that print what was stored', () => {
  it("devx agent status: a task's prompt in the table and in --json", async () => {
    const project = makeProject({});
    const start = await devx(project, ['agent', 'start', 'researcher', `look into ${EVIL}`]);
    expect(start.code, start.stderr).toBe(0);
    const table = await devx(project, ['agent', 'status']);
    expect(table.code, table.stderr).toBe(0);
    expectShownNotObeyed(table.stdout + table.stderr);
    const json = await devx(project, ['agent', 'status', '--json']);
    expectShownNotObeyed(json.stdout);
    expect(JSON.parse(json.stdout)[0].prompt).toBe(`look into ${EVIL}`);
  });

  it("devx sessions, and the next start's line about the last request", async () => {
    const project = makeProject({});
    expect((await here(project, ['run', `fix ${EVIL}`], ['Done.'])).code).toBe(0);
    const sessions = await devx(project, ['sessions']);
    expectShownNotObeyed(sessions.stdout + sessions.stderr);
    const next = await here(project, ['run', 'and then'], ['Again.']);
    expect(next.stderr).toMatch(/last request/);
    expectShownNotObeyed(next.stderr);
  });

  it('devx audit tail, and --json', async () => {
    const project = makeProject({});
    expect((await here(project, ['run', 'read it'], [`TOOL_CALL: read_file | path=${EVIL}`, 'No file.'])).code).toBe(0);
    const tail = await devx(project, ['audit', 'tail']);
    expectShownNotObeyed(tail.stdout + tail.stderr);
    const json = await devx(project, ['audit', 'tail', '--json']);
    expectShownNotObeyed(json.stdout);
    // The tool call's entry (model calls have entries of their own beside it).
    const entries = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool?: string; args?: { path?: string } });
    expect(entries.find((e) => e.tool === 'read_file')?.args?.path).toBe(EVIL);
  });

  it("devx handoff --list: a kept handoff's file name and its lines", async () => {
    const project = makeProject({});
    fs.mkdirSync(path.join(project, '.devx', 'handoffs'), { recursive: true });
    fs.writeFileSync(path.join(project, '.devx', 'handoffs', `${EVIL}.md`), `CLAUDE_TURN: ${EVIL}\n# Handoff\n\n## Summary\n- ${EVIL}\n`);
    const list = await devx(project, ['handoff', '--list']);
    expect(list.code, list.stderr).toBe(0);
    expectShownNotObeyed(list.stdout + list.stderr);
  });

  it('devx memory list', async () => {
    const project = makeProject({});
    expect((await devx(project, ['memory', 'add', `note ${EVIL}`])).code).toBe(0);
    const list = await devx(project, ['memory', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expectShownNotObeyed(list.stdout + list.stderr);
  });

  it("a repository's agent and workflow descriptions (devx agent list, devx workflow list)", async () => {
    const project = makeProject({
      '.devx/agents/evil.md': `---\nname: evil\ndescription: ${quoted(EVIL)}\n---\nYou help.\n`,
      '.devx/workflows/evil.yaml': `name: evil\ndescription: ${quoted(EVIL)}\ngit: { branch: false }\nsteps:\n  ONE:\n    role: investigator\n    reads: [request]\n    next: $done\n`,
    });
    expect((await devx(project, ['trust'])).code).toBe(0);
    const agents = await devx(project, ['agent', 'list']);
    expectShownNotObeyed(agents.stdout + agents.stderr);
    const workflows = await devx(project, ['workflow', 'list']);
    expectShownNotObeyed(workflows.stdout + workflows.stderr);
  });

  it("a workflow's progress lines, status and log", async () => {
    const project = makeProject({
      '.devx/workflows/evil.yaml': `name: evil\ndescription: one step\ngit: { branch: false }\nsteps:\n  ONE:\n    role: investigator\n    reads: [request]\n    verdict: pass_fail\n    on: { PASS: $done, FAIL: $done }\n`,
    });
    fake.push({ text: `TOOL_CALL: read_file | path=${EVIL}` });
    fake.fallback = { text: `Looked.\n${JSON.stringify({ verdict: 'FAIL', feedback: EVIL })}` };
    const run = await devx(project, ['workflow', 'run', 'evil', `look at ${EVIL}`]);
    expect(run.stderr).toContain(MARK);
    expectShownNotObeyed(run.stdout + run.stderr);
    const id = /workflow (wf-\S+)/.exec(run.stderr)![1];
    const status = await devx(project, ['workflow', 'status', id]);
    expectShownNotObeyed(status.stdout + status.stderr);
    const log = await devx(project, ['workflow', 'log', id]);
    expectShownNotObeyed(log.stdout + log.stderr);
  });
});

describe('the REPL in a terminal prints text, never control', () => {
  it("HANDOFF.md's next items, at start", async () => {
    const project = makeProject({ 'HANDOFF.md': `CLAUDE_TURN: READY\n# Handoff\n## Next\n- ${EVIL}\n- then test it\n` });
    await devx(project, ['handoff', '--adopt']);
    const s = repl(project);
    await s.waitFor(/Type a task/);
    expect(s.screen()).toMatch(/Handoff says next:/);
    expectShownNotObeyed(s.raw(), { pty: true });
    s.type('/exit\r');
  });

  it('streamed prose, a tool call line, the error line and /history', async () => {
    const project = makeProject({});
    fake.push({ text: `Reading ${EVIL} first.\nTOOL_CALL: read_file | path=${EVIL}.txt` }, { text: `Answer: ${EVIL}` });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('go\r');
    await s.waitFor(/Answer: /);
    s.type('/history\r');
    await s.waitFor(/assistant/);
    expect(s.screen()).toMatch(/→ read_file path=/);
    expectShownNotObeyed(s.raw(), { pty: true });
    s.type('/exit\r');
  });

  it("the diff at a confirmation shows the repository's text, in devx's own colours", async () => {
    const project = makeProject({ 'notes.txt': `keep\n${EVIL}\n` });
    fake.push({ text: 'TOOL_CALL: write_file | path=notes.txt | content=fresh' }, { text: 'Left it.' });
    const s = repl(project, { color: true });
    await s.waitFor(/Type a task/);
    s.type('rewrite the notes\r');
    await s.waitFor(/Allow\? \[y\]es/);
    s.type('n\r');
    await s.waitFor(/Left it\./);
    expectShownNotObeyed(s.raw(), { pty: true });
    // devx's colours stay: removed lines red, added lines green.
    expect(s.raw()).toContain('\x1b[32m+fresh\x1b[0m');
    expect(s.raw()).toMatch(/\x1b\[31m-A/);
    s.type('/exit\r');
  });

  it("a running command's last line under the spinner, and its whole output after Ctrl-O", async () => {
    const project = makeProject({ 'evil.txt': `first\n${EVIL}\n` });
    const fifo = path.join(project, 'more.fifo');
    execFileSync('mkfifo', [fifo]);
    fake.push({ text: 'TOOL_CALL: run_command | cmd=cat evil.txt more.fifo' }, { text: 'Ran it.' });
    const s = repl(project, { color: true });
    await s.waitFor(/Type a task/);
    s.type('show the file\r');
    await s.waitFor(/Allow\? \[y\]es|│ .*ZXZpbA==/);
    if (/Allow\? \[y\]es/.test(s.screen())) s.type('y\r');
    await s.waitFor(/│ .*ZXZpbA==/);
    s.type('\x0f'); // Ctrl-O
    await s.waitFor(/Ctrl-O: showing the output as it arrives/);
    await fs.promises.writeFile(fifo, `then ${EVIL}\n`);
    await s.waitFor(/Ran it\./);
    expect(s.screen()).toMatch(/then A/);
    expectShownNotObeyed(s.raw(), { pty: true });
    s.type('/exit\r');
  }, 60_000);

  it("/todos shows the model's checklist; /help a custom command's description", async () => {
    userFile('.claude/commands/evil.md', `---\ndescription: ${quoted(EVIL)}\n---\nDo it.\n`);
    const project = makeProject({});
    fake.push({ text: `TOOL_CALL: todo | objective=${EVIL} | items=- [ ] ${EVIL}` }, { text: 'Noted.' });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('plan it\r');
    await s.waitFor(/Noted\./);
    s.type('/todos\r');
    await s.waitFor(/\[ \]/);
    s.type('/help\r');
    await s.waitFor(/Custom commands:/);
    expectShownNotObeyed(s.raw(), { pty: true });
    s.type('/exit\r');
  });

  it("the agent picker draws an agent's description", async () => {
    userFile('.devx/agents/evil.md', `---\nname: evil\ndescription: ${quoted(EVIL)}\n---\nYou help.\n`);
    const project = makeProject({});
    const s = repl(project, { color: true, extra: { DEVX_PICKER: 'builtin' } });
    await s.waitFor(/Type a task/);
    s.type('/agent\r');
    await s.waitFor(/Pick an agent/);
    s.type('\x1b');
    await s.waitFor(/no agent chosen/);
    expectShownNotObeyed(s.raw(), { pty: true });
    s.type('/exit\r');
  });
});

describe('devx --acp sends the editor text, never control', () => {
  it('message chunks, tool call titles and results, and command descriptions', async () => {
    userFile('.claude/commands/evil.md', `---\ndescription: ${quoted(EVIL)}\n---\nDo it.\n`);
    const project = makeProject({});
    fake.push({ text: `Reading ${EVIL} first.\nTOOL_CALL: read_file | path=${EVIL}.txt` }, { text: `Answer: ${EVIL}` });
    const child = spawn(process.execPath, [DEVX_BIN, '--acp'], { cwd: project, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const updates: acp.SessionNotification[] = [];
    const app = acp.client({ name: 'test-editor' }).onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    });
    const conn = app.connect(
      acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>),
    );
    await conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    const res = await conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(res.stopReason).toBe('end_turn');
    expect(updates.some((u) => u.update.sessionUpdate === 'available_commands_update')).toBe(true);
    // What an editor shows as text: every string of every update but data (the call's raw input, a file's path).
    const data = new Set(['rawInput', 'rawOutput', 'oldText', 'newText', 'path']);
    const shown = JSON.stringify(updates, (k, v) => (data.has(k) ? undefined : v));
    const texts: string[] = [];
    JSON.parse(shown, (_k, v) => (typeof v === 'string' && texts.push(v), v));
    expectShownNotObeyed(texts.join('\n'));
    expect(foreignControls(stderr)).toEqual([]);
    child.stdin!.end();
  });
});
