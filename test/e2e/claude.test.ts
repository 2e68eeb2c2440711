// The Claude provider: the real `claude` binary (devDependency) against a scripted fake of the
// Anthropic Messages API on 127.0.0.1, beside the real gemini against its fake, with the same agent.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeAnthropicApi } from '../helpers/fakeAnthropicApi.js';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { spawn } from 'node:child_process';
import { DEVX_BIN, REPO_ROOT, fakeEnv, makeHome, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';

const CLAUDE_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'claude');

let claude: FakeAnthropicApi;
let gemini: FakeGeminiApi;
let home: string;

beforeEach(async () => {
  claude = await new FakeAnthropicApi().start();
  gemini = await new FakeGeminiApi().start();
  home = makeHome();
});
afterEach(async () => {
  await claude.close();
  await gemini.close();
  expect([...claude.scriptErrors, ...gemini.scriptErrors].map((e) => e.message)).toEqual([]);
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return fakeEnv(gemini, home, { ANTHROPIC_BASE_URL: claude.url, ANTHROPIC_API_KEY: 'sk-ant-test', DEVX_CLAUDE_BIN: CLAUDE_BIN, ...extra });
}

const EDITOR_AGENT = '---\nname: editor\ndescription: edits files\ntools: [Read, Edit]\n---\nYou make small edits.';
const REPLIES = [
  'TOOL_CALL: read_file | path=greeting.txt',
  'TOOL_CALL: edit_file | path=greeting.txt | old_text=Helo | new_text=Hello',
  'Fixed the typo in greeting.txt.',
];

describe('the claude provider', () => {
  it('the same agent does the same read-edit-answer task on gemini and on claude', async () => {
    for (const provider of ['gemini', 'claude'] as const) {
      const project = makeProject({ 'greeting.txt': 'Helo, world\n', '.devx/agents/editor.md': EDITOR_AGENT });
      if (provider === 'claude') claude.push(...REPLIES.map((text) => ({ text })));
      else gemini.push(...REPLIES.map((text) => ({ text })));
      const r = await runDevx(['agent', 'run', 'editor', 'fix the typo in greeting.txt', '--provider', provider, '--yes'], { cwd: project, env: env() });
      expect(r.code, `${provider}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('Fixed the typo in greeting.txt.');
      expect(fs.readFileSync(path.join(project, 'greeting.txt'), 'utf8')).toBe('Hello, world\n');
    }
    expect(gemini.modelCalls).toHaveLength(3);
    expect(claude.modelCalls).toHaveLength(3);
    for (const req of claude.modelCalls) {
      // No tool is declared: the model only sees devx's text protocol, in devx's system prompt.
      expect(req.tools).toBe(0);
      expect(req.systemText).toContain('TOOL_CALL:');
      expect(req.systemText).toContain('# Your role: the editor agent');
      expect(req.model).toMatch(/sonnet/);
    }
    expect(claude.modelCalls[1].promptText).toContain('Helo, world');
  });

  it("nothing of the machine's Claude Code set-up leaks in: no CLAUDE.md, no MCP servers, no settings hooks", async () => {
    const marker = path.join(tempDir(), 'mcp-ran');
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(home, '.claude', 'CLAUDE.md'), 'SECRET-USER-MEMORY-MARKER\n');
    fs.writeFileSync(path.join(home, 'CLAUDE.md'), 'SECRET-HOME-MEMORY-MARKER\n');
    const mcp = { mcpServers: { evil: { command: 'sh', args: ['-c', `touch ${marker}`] } } };
    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify(mcp));
    fs.writeFileSync(
      path.join(home, '.claude', 'settings.json'),
      JSON.stringify({ ...mcp, hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] } }),
    );
    // devx itself offers the servers of ~/.claude.json as its own tools (under its policy); this test
    // is about what the claude binary does inside devx's calls, so devx's import is off here.
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ importSetup: false }));
    const project = makeProject({ 'CLAUDE.md': 'SECRET-PROJECT-MEMORY-MARKER\n' });
    claude.push({ text: 'hello there' });
    const r = await runDevx(['run', '--provider', 'claude', 'say hello'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('hello there');
    const sent = JSON.stringify(claude.requests.map((q) => q.body));
    expect(sent).not.toMatch(/SECRET-(USER|HOME|PROJECT)-MEMORY-MARKER/);
    expect(claude.modelCalls[0].systemText).toContain('TOOL_CALL:');
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('401 is an authentication error naming what to do; nothing is retried', async () => {
    const project = makeProject({});
    claude.fallback = { status: 401 };
    const r = await runDevx(['run', '--provider', 'claude', 'hi'], { cwd: project, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/claude is not authenticated: run `claude` once to log in, or set ANTHROPIC_API_KEY/);
    expect(claude.modelCalls).toHaveLength(1);
  });

  it('429 rotates to the next account; 529 and 500 are retried with a line each', async () => {
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.devx', 'settings.json'),
      JSON.stringify({
        providers: {
          claude: {
            maxRetries: 2,
            retryBaseMs: 10,
            accounts: [
              { name: 'first', env: { ANTHROPIC_API_KEY: 'sk-first' } },
              { name: 'second', env: { ANTHROPIC_API_KEY: 'sk-second' } },
            ],
          },
        },
      }),
    );
    const project = makeProject({});
    claude.push({ status: 429 }, { status: 529 }, { status: 500 }, { text: 'made it' });
    const r = await runDevx(['run', '--provider', 'claude', 'hi'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('made it');
    expect(r.stderr).toMatch(/account first hit its quota; trying second/);
    expect(r.stderr).toMatch(/overloaded error, retrying/);
    expect(r.stderr).toMatch(/server error, retrying/);
    expect(claude.modelCalls.map((c) => c.apiKey)).toEqual(['sk-first', 'sk-second', 'sk-first', 'sk-second']);
  });

  it('a hung API ends at the deadline with no claude process left', async () => {
    const project = makeProject({});
    claude.fallback = { hang: true };
    const started = Date.now();
    const r = await runDevx(['run', '--provider', 'claude', 'hi'], { cwd: project, env: env({ DEVX_TURN_TIMEOUT_SEC: '4' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/✗ the Anthropic API stopped answering: no reply within 4s, the turn timeout/);
    expect(Date.now() - started).toBeLessThan(30_000);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('a Claude Code agent in .claude/agents runs on claude with its own model; --provider wins over it', async () => {
    const project = makeProject({ '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: reviews\ntools: Read, Grep\nmodel: opus\n---\nReview.' });
    claude.push({ text: 'Looks fine.' });
    const r = await runDevx(['agent', 'run', 'reviewer', 'review it'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    // No warning about the agent (the machine's own, a missing bubblewrap, may be printed).
    expect(r.stderr.split('\n').filter((l) => /warning/i.test(l) && !/bubblewrap/.test(l))).toEqual([]);
    expect(claude.modelCalls[0].model).toMatch(/opus/);
    gemini.push({ text: 'Also fine.' });
    const g = await runDevx(['agent', 'run', 'reviewer', 'review it', '--provider', 'gemini', '--model', 'gemini-2.5-flash'], { cwd: project, env: env() });
    expect(g.code, g.stderr).toBe(0);
    expect(gemini.modelCalls.map((c) => c.model)).toEqual(['gemini-2.5-flash']);
    expect(claude.modelCalls).toHaveLength(1);
  });

  it('streams: --output-format stream-json reports the text as claude receives it', async () => {
    const project = makeProject({});
    const text = 'Streaming from claude, in several parts, one after another.';
    claude.push({ text });
    const r = await runDevx(['run', '--provider', 'claude', '--output-format', 'stream-json', 'go'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => e.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(text);
    expect(events.at(-1)).toMatchObject({ type: 'turn_end', status: 'answered', answer: text });
  });

  it('devx run --provider claude: the next run hands its call to the claude started ahead, with devx system prompt', async () => {
    const project = makeProject({});
    claude.push({ text: 'first' }, { text: 'second' });
    await runDevx(['run', '--provider', 'claude', 'hi'], { cwd: project, env: env() });
    const r = await runDevx(['run', '--provider', 'claude', 'hi again'], { cwd: project, env: env({ DEVX_DEBUG: '1' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('started claude ahead');
    expect(r.stderr).toContain('the model CLI started ahead was adopted');
    expect(r.stdout).toContain('second');
    expect(claude.modelCalls).toHaveLength(2);
    expect(claude.modelCalls[1].systemText).toContain('TOOL_CALL:');
    expect(claude.modelCalls[1].tools).toBe(0);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('kill -9 of devx right after it started claude ahead leaves no claude behind (claude sees its stdin close)', async () => {
    const project = makeProject({});
    claude.push({ text: 'first' });
    await runDevx(['run', '--provider', 'claude', 'hi'], { cwd: project, env: env() });
    claude.fallback = { hang: true };
    const child = spawn(process.execPath, [DEVX_BIN, 'run', '--provider', 'claude', 'hi'], {
      cwd: project,
      env: env({ DEVX_DEBUG: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    try {
      const calls = claude.modelCalls.length;
      await until(() => err.includes('started claude ahead'), 20_000);
      child.kill('SIGKILL');
      // On a loaded machine devx may have written the prompt before the kill landed: then claude waits on the
      // hung API, not on stdin. Ending that connection makes it fail (devx sets no retries) and exit on its own.
      await until(() => {
        if (claude.modelCalls.length > calls) claude.dropConnections();
        return processesUnder(path.join(home, '.devx', 'run')).length === 0;
      }, 15_000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
