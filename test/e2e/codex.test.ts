// The Codex provider: the real `codex` binary (devDependency @openai/codex) against a scripted fake of
// OpenAI's Responses API on 127.0.0.1. HOME is a temp folder, and codex's own home is devx's sealed one.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeOpenAiApi } from '../helpers/fakeOpenAiApi.js';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { REPO_ROOT, fakeEnv, makeHome, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { processesUnder, until } from '../helpers/processes.js';

const CODEX_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'codex');

let openai: FakeOpenAiApi;
let gemini: FakeGeminiApi;
let home: string;

beforeEach(async () => {
  openai = await new FakeOpenAiApi().start();
  gemini = await new FakeGeminiApi().start();
  home = makeHome();
});
afterEach(async () => {
  await openai.close();
  await gemini.close();
  expect([...openai.scriptErrors, ...gemini.scriptErrors].map((e) => e.message)).toEqual([]);
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return fakeEnv(gemini, home, { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: 'sk-openai-test', DEVX_CODEX_BIN: CODEX_BIN, ...extra });
}

function writeUserSettings(settings: unknown): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
}

/** Plants the person's own Codex set-up in the temp HOME and the project: none of it may reach the API or run. */
function plantCodexSetup(marker: string): Record<string, string> {
  const mcp = `[mcp_servers.evil]\ncommand = "sh"\nargs = ["-c", "touch ${marker}"]\n`;
  fs.mkdirSync(path.join(home, '.codex'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `developer_instructions = "CANARY-USER-CONFIG"\nmodel_instructions_file = "${path.join(home, 'evil.md')}"\n${mcp}`,
  );
  fs.writeFileSync(path.join(home, 'evil.md'), 'CANARY-USER-INSTRUCTIONS-FILE\n');
  fs.writeFileSync(path.join(home, '.codex', 'AGENTS.md'), 'CANARY-USER-AGENTS\n');
  fs.mkdirSync(path.join(home, '.agents', 'skills', 'canary'), { recursive: true });
  fs.writeFileSync(path.join(home, '.agents', 'skills', 'canary', 'SKILL.md'), '---\nname: canary\ndescription: CANARY-USER-SKILL\n---\nbody\n');
  fs.writeFileSync(path.join(home, 'AGENTS.md'), 'CANARY-HOME-AGENTS\n');
  return {
    'AGENTS.md': 'CANARY-PROJECT-AGENTS\n',
    '.codex/config.toml': `developer_instructions = "CANARY-PROJECT-CONFIG"\n${mcp}`,
    '.agents/skills/proj/SKILL.md': '---\nname: proj\ndescription: CANARY-PROJECT-SKILL\n---\nbody\n',
  };
}

describe('the codex provider', () => {
  it("devx run --provider codex reads a file through devx's text protocol; codex sends devx's system prompt, offers no tool and runs none; nothing of the person's Codex set-up reaches the API", async () => {
    const marker = path.join(tempDir(), 'mcp-ran');
    const project = makeProject({ 'notes.txt': 'The launch code is PLUM-7731.\n', ...plantCodexSetup(marker) });
    openai.push({ text: 'TOOL_CALL: read_file | path=notes.txt' }, { text: 'The notes say the launch code is PLUM-7731.' });
    const r = await runDevx(['run', '--provider', 'codex', 'what does notes.txt say?'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('The notes say the launch code is PLUM-7731.');
    expect(openai.modelCalls).toHaveLength(2);
    for (const call of openai.modelCalls) {
      // devx's system prompt in place of codex's, and no tool of codex's own: neither declared nor called.
      expect(call.systemText).toContain('TOOL_CALL:');
      expect(call.systemText).not.toMatch(/You are a coding agent running in the Codex CLI/);
      expect(call.tools).toEqual([]);
      expect(call.otherInput).toEqual([]);
      expect(call.apiKey).toBe('sk-openai-test');
      expect(call.model).toBe('gpt-6.1-sol');
    }
    // The tool result went back to the model in the second call, through devx.
    expect(openai.modelCalls[0].promptText).not.toContain('PLUM-7731');
    expect(openai.modelCalls[1].promptText).toContain('The launch code is PLUM-7731.');
    expect(openai.modelCalls[1].promptText).toContain('TOOL_RESULT');
    const sent = JSON.stringify(openai.requests.map((q) => q.body));
    expect(sent).not.toMatch(/CANARY-[A-Z-]+/);
    expect(fs.existsSync(marker)).toBe(false);
    // codex ran in devx's scratch folder with the sealed home, and is gone (with what it started: devx
    // stops its process group; SIGKILL is asynchronous, so a loaded machine gets a bounded moment).
    expect(fs.readdirSync(path.join(home, '.devx', 'codex-home')).length).toBe(1);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('provider: openai selects codex, in settings and in an agent file; --provider openai too', async () => {
    writeUserSettings({ provider: 'openai' });
    const project = makeProject({ '.devx/agents/helper.md': '---\nname: helper\ndescription: helps\nprovider: openai\n---\nYou help.' });
    openai.push({ text: 'from settings' }, { text: 'from the agent' }, { text: 'from the flag' });
    const a = await runDevx(['run', 'hi'], { cwd: project, env: env() });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('from settings');
    writeUserSettings({});
    const b = await runDevx(['agent', 'run', 'helper', 'hi'], { cwd: project, env: env() });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('from the agent');
    const c = await runDevx(['run', '--provider', 'openai', 'hi'], { cwd: project, env: env() });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain('from the flag');
    expect(openai.modelCalls).toHaveLength(3);
    expect(gemini.modelCalls).toHaveLength(0);
  });

  it('a 500 is retried by devx (codex retries nothing itself) and then reported as a server error; exit 1', async () => {
    const project = makeProject({});
    openai.fallback = { status: 500 };
    const r = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env({ DEVX_MAX_RETRIES: '2' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/server error, retrying/);
    expect(r.stderr).toMatch(/✗ the OpenAI API had a server error \(500\)/);
    expect(openai.modelCalls).toHaveLength(3);
  });

  it('a 401 is an authentication error naming the key to set; nothing is retried', async () => {
    const project = makeProject({});
    openai.fallback = { status: 401 };
    const r = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the OpenAI API refused the API key: set OPENAI_API_KEY \(or CODEX_API_KEY\)/);
    expect(r.stderr).toMatch(/401 Unauthorized/);
    expect(openai.modelCalls).toHaveLength(1);
  });

  it('429 rotates to the next account, whose key is sent; CODEX_API_KEY works as the key', async () => {
    writeUserSettings({
      providers: {
        codex: {
          retryBaseMs: 10,
          accounts: [
            { name: 'first', env: { OPENAI_API_KEY: 'sk-first' } },
            { name: 'second', env: { CODEX_API_KEY: 'sk-second' } },
          ],
        },
      },
    });
    const project = makeProject({});
    openai.push({ status: 429 }, { text: 'made it' });
    const r = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('made it');
    expect(r.stderr).toMatch(/account first hit its quota; trying second/);
    expect(openai.modelCalls.map((c) => c.apiKey)).toEqual(['sk-first', 'sk-second']);
  });

  it('a hung API ends at the deadline with no codex process left', async () => {
    const project = makeProject({});
    openai.fallback = { hang: true };
    const started = Date.now();
    const r = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env({ DEVX_TURN_TIMEOUT_SEC: '4' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/✗ the OpenAI API stopped answering: no reply within 4s, the turn timeout/);
    expect(Date.now() - started).toBeLessThan(30_000);
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('devx run --provider codex: the next run hands its call to the codex started ahead, with devx system prompt and no tools', async () => {
    const project = makeProject({});
    openai.push({ text: 'first' }, { text: 'second' });
    await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env() });
    const r = await runDevx(['run', '--provider', 'codex', 'hi again'], { cwd: project, env: env({ DEVX_DEBUG: '1' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('started codex ahead');
    expect(r.stderr).toContain('the model CLI started ahead was adopted');
    expect(r.stdout).toContain('second');
    expect(openai.modelCalls).toHaveLength(2);
    expect(openai.modelCalls[1].systemText).toContain('TOOL_CALL:');
    expect(openai.modelCalls[1].tools).toEqual([]);
    // The launch plan names the sealed home, and no key.
    const plans = path.join(home, '.devx', 'run', 'launch-plans');
    const plan = fs.readFileSync(path.join(plans, fs.readdirSync(plans)[0]), 'utf8');
    expect(plan).toContain('codex-home');
    expect(plan).not.toContain('sk-openai-test');
    // What devx stopped as it exited may take a moment to go on a loaded machine; it must go without a next run.
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('no API key, or no codex binary: a clear error before any request, with the exit code of the other providers', async () => {
    const project = makeProject({});
    const noKey = { ...env() };
    delete noKey.OPENAI_API_KEY;
    const r = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: noKey });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/codex has no API key: set OPENAI_API_KEY \(or CODEX_API_KEY\)/);
    const bin = await runDevx(['run', '--provider', 'codex', 'hi'], { cwd: project, env: env({ DEVX_CODEX_BIN: path.join(home, 'no-codex') }) });
    expect(bin.code).toBe(3);
    expect(bin.stderr).toMatch(/cannot find ".*no-codex"\. devx needs the Codex CLI .*npm install -g @openai\/codex/);
    expect(openai.modelCalls).toHaveLength(0);
  });
});
