// MCP servers as devx tools, end to end: real servers (server-everything over stdio, streamable
// HTTP and SSE; server-filesystem; a deliberately flaky SDK server), the real gemini binary against
// the fake API, the model's calls scripted and the TOOL_RESULT it received asserted. The policy over MCP tools
// (deny rules in every mode, untrusted servers, servers rooted outside, agents' tool lists) runs in-process in
// test/integration/mcpPolicy.test.ts. The first case runs the binary with the real gemini; the other `devx run`
// cases run its command in this process with a scripted model (runCliHere), the servers real.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject, processesMatching, runDevx, tempDir } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';
import { processesUnder, until } from '../helpers/processes.js';
import { startInPty, type PtySession } from '../helpers/pty.js';

const BIN = path.join(REPO_ROOT, 'node_modules', '.bin');
const EVERYTHING = path.join(BIN, 'mcp-server-everything');
const FILESYSTEM = path.join(BIN, 'mcp-server-filesystem');
const FLAKY = path.join(REPO_ROOT, 'test', 'fixtures', 'flakyMcpServer.mjs');

let fake: FakeGeminiApi;
let home: string;
const servers: ChildProcess[] = [];
const ptys: PtySession[] = [];
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
afterEach(() => {
  for (const c of servers.splice(0)) c.kill('SIGKILL');
  for (const p of ptys.splice(0)) p.kill();
});

function userSettings(settings: unknown): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
}

const everything = (extra: Record<string, unknown> = {}) => ({ command: EVERYTHING, args: ['stdio'], ...extra });

/** The tool results the model received in request `i`. */
const resultsIn = (i: number) => fake.modelCalls[i].promptText;

/** `devx run …` in this process, the model replying `replies`: what it printed, and what request `i` carried. */
async function runHere(project: string, args: string[], replies: string[]) {
  const r = await runScripted(args, { cwd: project, home, replies });
  return { ...r, sent: (i: number) => r.model.requests[i].prompt, system: (i: number) => r.model.requests[i].systemPrompt };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything over HTTP (`streamableHttp` or `sse`) on a free port; resolves once it listens. */
async function startHttpEverything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(EVERYTHING, [mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await until(() => /listening on port|running on port/i.test(out), 20_000);
  return port;
}

describe('MCP servers as tools', () => {
  it('stdio: the manual is generated from the schema, k=v arguments are coerced, text and images come back, every call is audited, the server stops with the run', async () => {
    userSettings({ mcpServers: { everything: everything({ trust: true }) } });
    const project = makeProject({});
    fake.push({
      text: 'TOOL_CALL: mcp__everything__get_sum | a=2 | b=3.5\nTOOL_CALL: mcp__everything__echo | message=hello mcp\nTOOL_CALL: mcp__everything__get_tiny_image',
    });
    fake.push({ text: 'The sum is 5.5.' });
    const r = await runDevx(['run', 'add two numbers'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('The sum is 5.5.');
    const system = fake.modelCalls[0].systemText;
    expect(system).toContain('### mcp__everything__get_sum\n`mcp__everything__get_sum | a | b | [json]`');
    expect(system).toContain('Returns the sum of two numbers');
    expect(system).toContain('- `a`: number. First number');
    expect(system).toContain('Example:\n\nTOOL_CALL: mcp__everything__get_sum | a=1 | b=1');
    expect(resultsIn(1)).toMatch(/TOOL_RESULT: mcp__everything__get_sum \| status=ok\n`{3,}\nThe sum of 2 and 3\.5 is 5\.5\.\n/);
    expect(resultsIn(1)).toMatch(/TOOL_RESULT: mcp__everything__echo \| status=ok\n`{3,}\nEcho: hello mcp\n/);
    expect(resultsIn(1)).toMatch(/Here's the image you requested:\n\[image: image\/png, \d+(\.\d)? (bytes|KB)\]\nThe image above is the MCP logo\./);
    const audit = fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit.match(/"tool":"mcp__everything__(get_sum|echo|get_tiny_image)"/g)).toHaveLength(3);
    expect(audit).toContain('mcp:trusted:everything');
    expect(processesUnder(project)).toEqual([]);
  }, 90_000);

  it('a bad argument is an error the model can fix; json= carries nested objects; camelCase properties are snake_case keys', async () => {
    userSettings({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY], trust: true } } });
    const project = makeProject({});
    const r = await runHere(
      project,
      ['run', 'try the tools'],
      ['TOOL_CALL: mcp__flaky__sleep | ms=soon\nTOOL_CALL: mcp__flaky__nested | json={"config":{"depth":2,"tags":["a","b"]}} | mode=fast | dry_run=true'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.system(0)).toContain('- `mode` (optional): one of fast | slow');
    expect(r.sent(1)).toContain('invalid arguments for mcp__flaky__sleep: argument "ms": expected a whole number (got "soon")');
    expect(r.sent(1)).toContain('got {"config":{"depth":2,"tags":["a","b"]},"mode":"fast","dryRun":true}');
  }, 60_000);

  it('streamable HTTP, allowed by an allow rule; a url without a type falls back to SSE', async () => {
    const httpPort = await startHttpEverything('streamableHttp');
    const ssePort = await startHttpEverything('sse');
    userSettings({
      mcpServers: { remote: { url: `http://127.0.0.1:${httpPort}/mcp` }, old: { url: `http://127.0.0.1:${ssePort}/sse` } },
      permissions: { allow: ['mcp__remote__*', 'mcp__old'] },
    });
    const project = makeProject({});
    const r = await runHere(
      project,
      ['run', 'call the remote servers'],
      ['TOOL_CALL: mcp__remote__echo | message=over http\nTOOL_CALL: mcp__old__get_sum | a=40 | b=2', 'Both answered.'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent(1)).toMatch(/TOOL_RESULT: mcp__remote__echo \| status=ok\n`{3,}\nEcho: over http\n/);
    expect(r.sent(1)).toMatch(/TOOL_RESULT: mcp__old__get_sum \| status=ok\n`{3,}\nThe sum of 40 and 2 is 42\.\n/);
    const list = await runDevx(['mcp', 'list', '--json'], { cwd: project, env: fakeEnv(fake, home) });
    const servers = JSON.parse(list.stdout).servers as { name: string; transport: string; state: string }[];
    expect(servers.map((s) => [s.name, s.state])).toEqual([
      ['remote', 'ready'],
      ['old', 'ready'],
    ]);
  }, 90_000);

  it('a server that cannot start is one line for the user and an error result for the model; the run goes on', async () => {
    userSettings({
      mcpServers: {
        broken: { command: '/nonexistent/devx-mcp-server' },
        silent: { command: 'sleep', args: ['300'], startupTimeout: 1000 },
        everything: everything({ trust: true }),
      },
    });
    const project = makeProject({});
    const r = await runHere(
      project,
      ['run', 'use both'],
      ['TOOL_CALL: mcp__broken__anything | x=1\nTOOL_CALL: mcp__everything__echo | message=still here', 'The broken server is down; echo works.'],
    );
    expect(r.code, r.stderr).toBe(0);
    // The warning, then the call's own ✓/✗ line: nothing else about the broken server.
    expect(r.stderr.split('\n').filter((l) => l.includes('broken') && !l.startsWith('  →'))).toEqual([
      expect.stringMatching(
        /^devx: warning: MCP server "broken" \(.*settings\.json\) did not start: spawn \/nonexistent\/devx-mcp-server ENOENT; its tools are unavailable this session$/,
      ),
      expect.stringMatching(/✗ mcp__broken__anything/),
    ]);
    expect(r.sent(1)).toMatch(
      /TOOL_RESULT: mcp__broken__anything \| status=error\n`{3,}\nthe MCP server "broken" did not start: spawn \/nonexistent\/devx-mcp-server ENOENT/,
    );
    expect(r.sent(1)).toContain('Echo: still here');
    expect(r.stderr).toMatch(/devx: warning: MCP server "silent" \(.*\) did not start: did not start within 1s; its tools are unavailable this session\n/);
    // The server that never answered was stopped with the rest: nothing runs in the project any more.
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it('servers start in parallel: two that never answer are both starting at once, and each fails at its own timeout', async () => {
    userSettings({
      mcpServers: { one: { command: 'sleep', args: ['301'], startupTimeout: 2000 }, two: { command: 'sleep', args: ['302'], startupTimeout: 2000 } },
    });
    const project = makeProject({});
    // By events, not by the clock: one after the other, the two would never be alive together.
    let together = false;
    const watch = setInterval(() => {
      if (processesMatching('sleep 301').length && processesMatching('sleep 302').length) together = true;
    }, 50);
    const r = await runDevx(['mcp', 'list'], { cwd: project, env: fakeEnv(fake, home) }).finally(() => clearInterval(watch));
    expect(r.code).toBe(1);
    expect(r.stdout.match(/error: did not start within 2s/g)).toHaveLength(2);
    expect(together).toBe(true);
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it('a server that dies mid-call or does not answer in time: an error result, one line, and the session goes on', async () => {
    userSettings({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY], trust: true, timeout: 1000 } } });
    const project = makeProject({});
    const r = await runHere(
      project,
      ['run', 'exercise the flaky server'],
      ['TOOL_CALL: mcp__flaky__sleep | ms=5000', 'TOOL_CALL: mcp__flaky__crash', 'TOOL_CALL: mcp__flaky__sleep | ms=1', 'The flaky server is gone.'],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.sent(1)).toContain('the MCP server "flaky" did not answer within 1s (sleep)');
    expect(r.sent(2)).toMatch(/TOOL_RESULT: mcp__flaky__crash \| status=error\n`{3,}\nthe MCP server "flaky" stopped during the call/);
    expect(r.sent(3)).toMatch(/the MCP server "flaky" is disconnected: the server closed the connection/);
    expect(r.stdout.trim()).toBe('The flaky server is gone.');
    expect(r.stderr.match(/✗ mcp__flaky__/g)).toHaveLength(3);
  }, 60_000);
  it('devx mcp list says a filesystem server rooted outside the project asks, whatever its trust', async () => {
    const outside = tempDir('devx-outside-');
    const project = makeProject({});
    userSettings({ mcpServers: { out: { command: FILESYSTEM, args: [outside], trust: true } }, permissions: { allow: ['mcp__out__*'] } });
    const list = await runDevx(['mcp', 'list'], { cwd: project, env: fakeEnv(fake, home) });
    expect(list.stdout).toContain(`out  ready  stdio  asks: works on ${outside}, outside the project`);
    expect(fake.modelCalls).toHaveLength(0);
  }, 60_000);

  it("a project's servers start only after devx trust; devx mcp list shows servers, state and tools", async () => {
    const project = makeProject({ '.devx/settings.json': JSON.stringify({ mcpServers: { proj: everything({ includeTools: ['echo', 'get-sum'] }) } }) });
    const env = fakeEnv(fake, home);
    const before = await runDevx(['mcp', 'list'], { cwd: project, env });
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('no MCP servers configured');
    expect(before.stdout).toContain("this project's MCP servers (proj) run programs; they are not started until you trust the project with `devx trust`");
    await runDevx(['trust'], { cwd: project, env });
    const after = await runDevx(['mcp', 'list'], { cwd: project, env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.split('\n').slice(0, 3)).toEqual([
      `proj  ready  stdio  asks before each call  (${path.join(project, '.devx', 'settings.json')})`,
      '  mcp__proj__echo  Echoes back the input string',
      '  mcp__proj__get_sum  Returns the sum of two numbers',
    ]);
    expect(after.stdout).toMatch(/left out by includeTools\/excludeTools: .*get-tiny-image/);
    const json = JSON.parse((await runDevx(['mcp', 'list', '--json'], { cwd: project, env })).stdout);
    expect(json.servers[0]).toMatchObject({
      name: 'proj',
      state: 'ready',
      transport: 'stdio',
      trusted: false,
      tools: [
        { name: 'mcp__proj__echo', tool: 'echo' },
        { name: 'mcp__proj__get_sum', tool: 'get-sum' },
      ],
    });
  }, 60_000);

  it('the REPL: /mcp shows the live servers; a call to an untrusted server asks, and the answer decides', async () => {
    userSettings({ mcpServers: { everything: everything({ includeTools: ['echo'] }) } });
    const project = makeProject({});
    const s = startInPty([], project, fakeEnv(fake, home));
    ptys.push(s);
    await s.waitFor(/Type a task/);
    s.type('/mcp\r');
    await s.waitFor(/everything {2}ready {2}stdio {2}asks before each call {2}\(.*settings\.json\)\n {2}mcp__everything__echo {2}Echoes back the input string/);
    fake.push({ text: 'TOOL_CALL: mcp__everything__echo | message=approved call' });
    fake.push({ text: 'It echoed.' });
    s.type('echo something\r');
    await s.waitFor(
      /devx wants to mcp__everything__echo message=approved call\n {2}\(asks because mcp__everything__echo is a tool of the MCP server everything, which is not trusted\)/,
    );
    s.type('y\r');
    await s.waitFor(/It echoed\./);
    expect(resultsIn(1)).toContain('Echo: approved call');
    s.type('/exit\r');
    await until(() => s.child.exitCode !== null);
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it("the product brief's example settings file loads: permissions, mcpServers (after trust) and defaultAgent all apply", async () => {
    const project = makeProject({
      '.devx/settings.json': fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'seed001-settings.json'), 'utf8'),
      '.devx/agents/code-reviewer.md': '---\nname: code-reviewer\ndescription: reviews\n---\nReview.',
    });
    const env = fakeEnv(fake, home);
    fake.push({ text: 'reviewed' });
    const untrusted = await runDevx(['run', 'review'], { cwd: project, env });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toContain("this project's MCP servers (example) run programs; they are not started until you trust the project");
    // Its defaultAgent too waits for trust.
    expect(untrusted.stderr).toMatch(/"defaultAgent": "code-reviewer" .* ignored until you trust the project/);
    expect(fake.modelCalls[0].systemText).not.toContain('# Your role: the code-reviewer agent');
    await runDevx(['trust'], { cwd: project, env });
    fake.push({ text: 'reviewed again' });
    const trusted = await runDevx(['run', 'review'], { cwd: project, env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(fake.modelCalls[1].systemText).toContain('# Your role: the code-reviewer agent');
    // The example's server (node dist/server.js) does not exist here: one line, and the run goes on.
    expect(trusted.stderr).toMatch(/devx: warning: MCP server "example" \(.*\) did not start: .*; its tools are unavailable this session\n/);
    expect(trusted.stdout.trim()).toBe('reviewed again');
  }, 60_000);

  it('bad mcpServers settings: exit 2 with the file and the cause', async () => {
    userSettings({ mcpServers: { nothing: { args: ['x'] } } });
    const r = await runDevx(['mcp', 'list'], { cwd: makeProject({}), env: fakeEnv(fake, home) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `devx: bad settings: ${path.join(home, '.devx', 'settings.json')}: invalid setting "mcpServers.nothing": needs "command" (a stdio server) or "url" (an HTTP server)\n`,
    );
  });
});
