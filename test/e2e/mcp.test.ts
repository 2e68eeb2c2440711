// MCP servers as devx tools, end to end: real servers (server-everything over stdio, streamable
// HTTP and SSE; server-filesystem; a deliberately flaky SDK server), the real gemini binary against
// the fake API, the model's calls scripted and the TOOL_RESULT it received asserted.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject, processesMatching, runDevx, tempDir } from '../helpers/env.js';
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
    fake.push({
      text: 'TOOL_CALL: mcp__flaky__sleep | ms=soon\nTOOL_CALL: mcp__flaky__nested | json={"config":{"depth":2,"tags":["a","b"]}} | mode=fast | dry_run=true',
    });
    fake.push({ text: 'Done.' });
    const r = await runDevx(['run', 'try the tools'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.modelCalls[0].systemText).toContain('- `mode` (optional): one of fast | slow');
    expect(resultsIn(1)).toContain('invalid arguments for mcp__flaky__sleep: argument "ms": expected a whole number (got "soon")');
    expect(resultsIn(1)).toContain('got {"config":{"depth":2,"tags":["a","b"]},"mode":"fast","dryRun":true}');
  }, 60_000);

  it('streamable HTTP, allowed by an allow rule; a url without a type falls back to SSE', async () => {
    const httpPort = await startHttpEverything('streamableHttp');
    const ssePort = await startHttpEverything('sse');
    userSettings({
      mcpServers: { remote: { url: `http://127.0.0.1:${httpPort}/mcp` }, old: { url: `http://127.0.0.1:${ssePort}/sse` } },
      permissions: { allow: ['mcp__remote__*', 'mcp__old'] },
    });
    const project = makeProject({});
    fake.push({ text: 'TOOL_CALL: mcp__remote__echo | message=over http\nTOOL_CALL: mcp__old__get_sum | a=40 | b=2' });
    fake.push({ text: 'Both answered.' });
    const r = await runDevx(['run', 'call the remote servers'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(resultsIn(1)).toMatch(/TOOL_RESULT: mcp__remote__echo \| status=ok\n`{3,}\nEcho: over http\n/);
    expect(resultsIn(1)).toMatch(/TOOL_RESULT: mcp__old__get_sum \| status=ok\n`{3,}\nThe sum of 40 and 2 is 42\.\n/);
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
    fake.push({ text: 'TOOL_CALL: mcp__broken__anything | x=1\nTOOL_CALL: mcp__everything__echo | message=still here' });
    fake.push({ text: 'The broken server is down; echo works.' });
    const r = await runDevx(['run', 'use both'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    // The warning, then the call's own ✓/✗ line: nothing else about the broken server.
    expect(r.stderr.split('\n').filter((l) => l.includes('broken') && !l.startsWith('  →'))).toEqual([
      expect.stringMatching(
        /^devx: warning: MCP server "broken" \(.*settings\.json\) did not start: spawn \/nonexistent\/devx-mcp-server ENOENT; its tools are unavailable this session$/,
      ),
      expect.stringMatching(/✗ mcp__broken__anything/),
    ]);
    expect(resultsIn(1)).toMatch(
      /TOOL_RESULT: mcp__broken__anything \| status=error\n`{3,}\nthe MCP server "broken" did not start: spawn \/nonexistent\/devx-mcp-server ENOENT/,
    );
    expect(resultsIn(1)).toContain('Echo: still here');
    expect(r.stderr).toMatch(/devx: warning: MCP server "silent" \(.*\) did not start: did not start within 1s; its tools are unavailable this session\n/);
    // The server that never answered was stopped with the rest: nothing runs in the project any more.
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it('servers start in parallel: two that never answer are both starting at once, and each fails at its own timeout', async () => {
    userSettings({
      mcpServers: { one: { command: 'sleep', args: ['301'], startupTimeout: 4000 }, two: { command: 'sleep', args: ['302'], startupTimeout: 4000 } },
    });
    const project = makeProject({});
    // By events, not by the clock: one after the other, the two would never be alive together.
    let together = false;
    const watch = setInterval(() => {
      if (processesMatching('sleep 301').length && processesMatching('sleep 302').length) together = true;
    }, 50);
    const r = await runDevx(['mcp', 'list'], { cwd: project, env: fakeEnv(fake, home) }).finally(() => clearInterval(watch));
    expect(r.code).toBe(1);
    expect(r.stdout.match(/error: did not start within 4s/g)).toHaveLength(2);
    expect(together).toBe(true);
    expect(processesUnder(project)).toEqual([]);
  }, 60_000);

  it('a server that dies mid-call or does not answer in time: an error result, one line, and the session goes on', async () => {
    userSettings({ mcpServers: { flaky: { command: process.execPath, args: [FLAKY], trust: true, timeout: 1000 } } });
    const project = makeProject({});
    fake.push({ text: 'TOOL_CALL: mcp__flaky__sleep | ms=5000' });
    fake.push({ text: 'TOOL_CALL: mcp__flaky__crash' });
    fake.push({ text: 'TOOL_CALL: mcp__flaky__sleep | ms=1' });
    fake.push({ text: 'The flaky server is gone.' });
    const r = await runDevx(['run', 'exercise the flaky server'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(resultsIn(1)).toContain('the MCP server "flaky" did not answer within 1s (sleep)');
    expect(resultsIn(2)).toMatch(/TOOL_RESULT: mcp__flaky__crash \| status=error\n`{3,}\nthe MCP server "flaky" stopped during the call/);
    expect(resultsIn(3)).toMatch(/the MCP server "flaky" is disconnected: the server closed the connection/);
    expect(r.stdout.trim()).toBe('The flaky server is gone.');
    expect(r.stderr.match(/✗ mcp__flaky__/g)).toHaveLength(3);
  }, 60_000);

  it('untrusted: asks, so a headless run refuses; a deny rule holds in every approval mode and hides the tool', async () => {
    userSettings({ mcpServers: { everything: everything({ trust: true }), plain: everything() }, permissions: { deny: ['mcp__everything__echo'] } });
    const project = makeProject({});
    for (const mode of [[], ['--yes'], ['--approval-mode', 'auto-edit']]) {
      fake.push({ text: 'TOOL_CALL: mcp__everything__echo | message=x\nTOOL_CALL: mcp__plain__echo | message=y' });
      fake.push({ text: 'ok' });
      const before = fake.modelCalls.length;
      const r = await runDevx(['run', 'echo', ...mode], { cwd: project, env: fakeEnv(fake, home) });
      expect(r.code, r.stderr).toBe(0);
      expect(fake.modelCalls[before].systemText).not.toContain('### mcp__everything__echo');
      expect(fake.modelCalls[before].systemText).toContain('### mcp__everything__get_sum');
      const res = resultsIn(before + 1);
      expect(res).toContain('denied by policy (settings:user:deny:mcp__everything__echo)');
      if (mode[0] === '--yes') expect(res).toContain('Echo: y');
      else expect(res).toMatch(/not run: mcp__plain__echo needs approval \(mcp__plain__echo is a tool of the MCP server plain, which is not trusted\)/);
    }
  }, 120_000);

  it('a filesystem server rooted outside the project asks even when trusted and allowed (headless and yolo refuse it); rooted inside, its paths meet devx path policy', async () => {
    const outside = tempDir('devx-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside data');
    const project = makeProject({ 'a.txt': 'inside data\n', '.env': 'TOKEN=1\n' });
    userSettings({
      mcpServers: { out: { command: FILESYSTEM, args: [outside], trust: true }, in: { command: FILESYSTEM, args: [project], trust: true } },
      permissions: { allow: ['mcp__out__*'] },
    });
    for (const mode of [[], ['--yes']]) {
      fake.push({
        text: `TOOL_CALL: mcp__out__read_text_file | path=${path.join(outside, 'secret.txt')}\nTOOL_CALL: mcp__in__read_text_file | path=a.txt\nTOOL_CALL: mcp__in__read_text_file | path=.env`,
      });
      fake.push({ text: 'done' });
      const before = fake.modelCalls.length;
      const r = await runDevx(['run', 'read files', ...mode], { cwd: project, env: fakeEnv(fake, home) });
      expect(r.code, r.stderr).toBe(0);
      const res = resultsIn(before + 1);
      expect(res).not.toContain('outside data');
      if (mode.length)
        expect(res).toMatch(/denied by policy \(mcp:outside-project:out\): the MCP server out works on .*outside the project.*yolo approves only/);
      else expect(res).toMatch(/not run: mcp__out__read_text_file needs approval \(the MCP server out works on .*, outside the project/);
      expect(res).toContain('inside data');
      expect(res).toMatch(/TOOL_RESULT: mcp__in__read_text_file \| status=error\n`{3,}\ndenied by policy \(path:sensitive:dotenv\)/);
    }
    const list = await runDevx(['mcp', 'list'], { cwd: project, env: fakeEnv(fake, home) });
    expect(list.stdout).toContain(`out  ready  stdio  asks: works on ${outside}, outside the project`);
  }, 90_000);

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

  it('agents: a tools list names MCP tools (exact, Claude Code spelling, server wildcard); an agent without tools inherits the permitted ones', async () => {
    userSettings({
      mcpServers: { everything: everything({ trust: true }), gone: { command: '/nonexistent/devx-mcp' } },
      permissions: { deny: ['mcp__everything__get_env'] },
    });
    const project = makeProject({
      '.devx/agents/narrow.md': '---\nname: narrow\ndescription: one MCP tool\ntools: [Read, mcp__everything__get-sum]\n---\nAdd.',
      '.devx/agents/wide.md': '---\nname: wide\ndescription: every tool\n---\nAnything.',
      '.devx/agents/star.md': '---\nname: star\ndescription: the whole server\ntools: mcp__everything__*\n---\nServer only.',
    });
    const env = fakeEnv(fake, home);
    fake.push({ text: 'TOOL_CALL: mcp__everything__echo | message=no' });
    fake.push({ text: 'fine' });
    const r = await runDevx(['agent', 'run', 'narrow', 'add'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/unknown tool/);
    expect(r.stderr).toMatch(/devx: warning: MCP server "gone" \(.*\) did not start: spawn \/nonexistent\/devx-mcp ENOENT/);
    const sys = fake.modelCalls[0].systemText;
    expect(sys).toContain('### mcp__everything__get_sum');
    expect(sys).toContain('### read_file');
    expect(sys).not.toContain('### mcp__everything__echo');
    expect(resultsIn(1)).toContain('mcp__everything__echo is not available to the narrow agent');
    fake.push({ text: 'wide answer' });
    await runDevx(['agent', 'run', 'wide', 'go'], { cwd: project, env });
    const wide = fake.modelCalls[2].systemText;
    expect(wide).toContain('### mcp__everything__echo');
    expect(wide).not.toContain('### mcp__everything__get_env');
    fake.push({ text: 'star answer' });
    await runDevx(['agent', 'run', 'star', 'go'], { cwd: project, env });
    const star = fake.modelCalls[3].systemText;
    expect(star).toContain('### mcp__everything__echo');
    expect(star).toContain('### mcp__everything__get_sum');
    expect(star).not.toContain('### mcp__everything__get_env');
    expect(star).not.toContain('### read_file');
  }, 60_000);
});
