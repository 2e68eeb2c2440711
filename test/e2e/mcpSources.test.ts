// MCP servers where users keep them: Claude Code's .mcp.json and ~/.claude.json, Gemini
// CLI's settings, with the real server-everything and the real binary. devx's own entries win by name,
// a project's file waits for trust, Gemini CLI's oauth key does not stop devx, and filters take either name.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject, runDevx } from '../helpers/env.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-everything');
let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
const write = (file: string, v: object) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(v));
};
const everything = (extra: object = {}) => ({ command: EVERYTHING, args: ['stdio'], ...extra });

describe('MCP servers from Claude Code and Gemini CLI files', () => {
  it('reads ~/.claude.json (user and this project), ~/.gemini/settings.json and, once trusted, .mcp.json; says where each came from', async () => {
    const project = makeProject({ '.mcp.json': JSON.stringify({ mcpServers: { shared: { type: 'stdio', ...everything({ excludeTools: ['get_sum'] }) } } }) });
    write(path.join(home, '.claude.json'), {
      numStartups: 3,
      mcpServers: { claudeuser: everything({ includeTools: ['echo'] }) },
      projects: { [project]: { mcpServers: { claudelocal: everything({ includeTools: ['echo'] }) } } },
    });
    const gem = path.join(home, '.gemini', 'settings.json');
    write(gem, {
      ...JSON.parse(fs.readFileSync(gem, 'utf8')),
      mcpServers: { gem: { ...everything({ includeTools: ['mcp__gem__get_sum'] }), oauth: { enabled: true, clientId: 'x' }, trust: true } },
    });
    // devx's own entry of the same name wins.
    write(path.join(home, '.devx', 'settings.json'), { mcpServers: { claudeuser: everything({ includeTools: ['get-sum'] }) } });
    const env = fakeEnv(fake, home);
    const before = await runDevx(['mcp', 'list'], { cwd: project, env });
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain(`claudeuser  ready  stdio  asks before each call  (${path.join(home, '.devx', 'settings.json')})`);
    expect(before.stdout).toMatch(/ {2}mcp__claudeuser__get_sum/);
    expect(before.stdout).toContain(`claudelocal  ready  stdio  asks before each call  (${path.join(home, '.claude.json')})`);
    expect(before.stdout).toContain(`gem  ready  stdio  trusted  (${gem})`);
    expect(before.stdout).toMatch(/gem .*\n {2}mcp__gem__get_sum/);
    expect(before.stdout).toContain("this project's MCP servers (shared (.mcp.json)) run programs");
    await runDevx(['trust'], { cwd: project, env });
    const after = await runDevx(['mcp', 'list'], { cwd: project, env });
    expect(after.stdout).toContain(`shared  ready  stdio  asks before each call  (${path.join(project, '.mcp.json')})`);
    // excludeTools named the tool as devx shows it (get_sum): it is left out.
    const shared = after.stdout
      .split('\n\n')[0]
      .split(/\n(?=\S)/)
      .find((b) => b.startsWith('shared'))!;
    expect(shared).toMatch(/left out by includeTools\/excludeTools: .*get-sum/);
    expect(shared).not.toMatch(/mcp__shared__get_sum/);
  }, 90_000);
});

describe('MCP prompts and resources', () => {
  it("a server's prompts are slash commands (/mcp__<server>__<prompt> args), and @server:uri attaches a resource", async () => {
    write(path.join(home, '.devx', 'settings.json'), { mcpServers: { every: everything({ includeTools: ['echo'] }) } });
    const project = makeProject({});
    fake.push({ text: 'About Paris.' }, { text: 'Read it.' });
    const env = fakeEnv(fake, home);
    const r = await runDevx(['run', '/mcp__every__args-prompt Paris Texas'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(fake.modelCalls[0].promptText).toMatch(/Paris/);
    expect(fake.modelCalls[0].promptText).toMatch(/Texas/);
    const missing = await runDevx(['run', '/mcp__every__args-prompt'], { cwd: project, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/mcp__every__args-prompt needs city/);
    const res = await runDevx(['run', 'summarise @every:demo://resource/static/document/architecture.md please'], { cwd: project, env });
    expect(res.code, res.stderr).toBe(0);
    expect(fake.modelCalls[1].promptText).toMatch(/\[resource every:demo:\/\/resource\/static\/document\/architecture\.md\]\n\S/);
  }, 90_000);
});
