// MCP servers start in the background while the session starts (in parallel), and the first
// turn waits for them: a real AgentRun with a real stdio server that is slow to start on purpose.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import type { AgentEvent } from '../../src/core/loop.js';
import { REPO_ROOT, makeProject, processesMatching, tempDir } from '../helpers/env.js';
import { until } from '../helpers/processes.js';
import { setTrusted } from '../../src/config/trust.js';

const FLAKY = path.join(REPO_ROOT, 'test', 'fixtures', 'flakyMcpServer.mjs');
const runs: AgentRun[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) await r.dispose();
});

function homeWith(servers: Record<string, unknown>): string {
  const home = tempDir('devx-lazy-home-');
  fs.mkdirSync(path.join(home, '.devx'));
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ mcpServers: servers }));
  return home;
}

/** A slow server, marked so its process can be found. */
const slow = (marker: string, delayMs: number) => ({
  command: process.execPath,
  args: [FLAKY, marker],
  env: { FLAKY_START_DELAY_MS: String(delayMs) },
  trust: true,
});

describe('MCP servers start lazily', () => {
  it('the session is created while its servers still start; the first turn waits for them and its manual lists their tools', async () => {
    const marker = `lazy-${process.pid}-a`;
    const home = homeWith({ slow: slow(marker, 1500) });
    const backend = new ScriptedBackend(['TOOL_CALL: mcp__slow__sleep | ms=1', 'Done.']);
    const run = await AgentRun.create({ cwd: makeProject({}), env: { PATH: process.env.PATH, HOME: home }, backend, history: 'none' });
    runs.push(run);
    // Created without waiting: the server is still starting, and its tools are not in the manual yet.
    expect(run.agent.mcp!.statuses()[0]!.state).toBe('starting');
    expect(run.agent.deps.systemPrompt).not.toContain('mcp__slow__sleep');
    const events: AgentEvent[] = [];
    run.subscribe((e) => events.push(e));
    const r = await run.prompt('sleep a little');
    expect(r.status).toBe('answered');
    expect(backend.requests[0]!.systemPrompt).toContain('mcp__slow__sleep');
    const ends = events.flatMap((e) => (e.type === 'tool_end' ? [e.outcome] : []));
    expect(ends.map((o) => [o.tool, o.status])).toEqual([['mcp__slow__sleep', 'ok']]);
    expect(ends[0]!.content).toContain('slept 1 ms');
  }, 60_000);

  it('a session that ends while its servers start stops them: no server process is left', async () => {
    const marker = `lazy-${process.pid}-b`;
    const home = homeWith({ one: slow(marker, 30_000), two: slow(marker, 30_000) });
    const run = await AgentRun.create({ cwd: makeProject({}), env: { PATH: process.env.PATH, HOME: home }, backend: new ScriptedBackend([]), history: 'none' });
    // Nothing is spawned during the session's own start; asking for the tools starts the servers (the REPL does at once).
    expect(processesMatching(marker)).toEqual([]);
    void run.ready();
    await until(() => processesMatching(marker).length === 2, 20_000);
    await run.dispose();
    expect(run.agent.mcp!.statuses().map((s) => s.state)).toEqual(['failed', 'failed']);
    await until(() => processesMatching(marker).length === 0, 10_000);
    expect(processesMatching(marker)).toEqual([]);
  }, 60_000);

  it('a server that fails is one warning, given by ready() (the same list each time), and the turn goes on', async () => {
    const home = homeWith({ broken: { command: '/nonexistent/devx-mcp' } });
    const backend = new ScriptedBackend(['Fine.']);
    const run = await AgentRun.create({ cwd: makeProject({}), env: { PATH: process.env.PATH, HOME: home }, backend, history: 'none' });
    runs.push(run);
    const warnings = await run.ready();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^MCP server "broken" \(.*settings\.json\) did not start: .*; its tools are unavailable this session$/);
    expect(await run.ready()).toEqual(warnings);
    expect((await run.prompt('hi')).status).toBe('answered');
  }, 60_000);
});

describe("the user's own MCP servers and the project they serve", () => {
  it('start outside a project that is not trusted, so a module of the project is not the one they load; in it once trusted', async () => {
    // `node probe.cjs`, like `python -m server`, loads what the folder it starts in holds: the project ships its own.
    const marks = tempDir('devx-mcp-marks-');
    const root = makeProject({ 'probe.cjs': `require('fs').writeFileSync(${JSON.stringify(path.join(marks, 'ran-in-project'))}, process.cwd());\n` });
    const home = homeWith({ probe: { command: process.execPath, args: ['probe.cjs'], trust: true } });
    const untrusted = await AgentRun.create({
      cwd: root,
      env: { PATH: process.env.PATH, HOME: home },
      backend: new ScriptedBackend(['Done.']),
      history: 'none',
    });
    runs.push(untrusted);
    await untrusted.prompt('hi');
    await until(() => untrusted.agent.mcp!.statuses()[0]!.state !== 'starting', 20_000);
    expect(fs.existsSync(path.join(marks, 'ran-in-project'))).toBe(false);
    setTrusted(path.join(home, '.devx'), root, true);
    const trusted = await AgentRun.create({ cwd: root, env: { PATH: process.env.PATH, HOME: home }, backend: new ScriptedBackend(['Done.']), history: 'none' });
    runs.push(trusted);
    await trusted.prompt('hi');
    await until(() => fs.existsSync(path.join(marks, 'ran-in-project')), 20_000);
    expect(fs.readFileSync(path.join(marks, 'ran-in-project'), 'utf8')).toBe(root);
  });
});
