// The gemini provider is sealed from the user's own Gemini CLI setup: the real devx binary
// drives the real gemini against the fake API, with a temp HOME whose ~/.gemini is full of things a
// person sets up for their own gemini sessions (a GEMINI.md, other context files, hooks on every
// event, an MCP server, a tool discovery command, an extension, a custom command, a skill, an agent).
// Judged by effects: no canary text in any request the API received, no hook or server ever ran; and
// the user's login still works (API key from the environment; the sealed home links exactly the auth
// files, so a token refresh written through it reaches the user's own file).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { GEMINI_BIN, fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { PRUNE_PROJECTS_AT, sealPlan } from '../../src/providers/gemini/sealedHome.js';
import { geminiSpec } from '../../src/providers/gemini/geminiCli.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => ((fake = f), (home = h)));

/** Every hook event gemini 0.61 accepts (its settings schema, `hooks.properties`). */
const HOOK_EVENTS = [
  'BeforeTool',
  'AfterTool',
  'BeforeAgent',
  'AfterAgent',
  'Notification',
  'SessionStart',
  'SessionEnd',
  'PreCompress',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
];

const CANARIES = {
  geminiMd: 'CANARY-GLOBAL-GEMINI-MD-7f3a',
  contextFile: 'CANARY-CONTEXT-FILENAME-91bc',
  extension: 'CANARY-EXTENSION-CONTEXT-2d4e',
  command: 'CANARY-CUSTOM-COMMAND-5a61',
  skill: 'CANARY-SKILL-c0d9',
  agent: 'CANARY-AGENT-e8b2',
  policy: 'CANARY-POLICY-44aa',
  homeRepoGeminiMd: 'CANARY-HOME-REPO-GEMINI-MD-6f10',
};

interface Planted {
  markers: string;
  /** Names of the marker files that exist: each is a hook, server or command of the user's that ran. */
  ran: () => string[];
}

/**
 * Fills `<root>/.gemini` (a HOME, or an account's GEMINI_CLI_HOME) with a person's own gemini setup,
 * keeping the auth selection its settings.json already has.
 */
function plantUserSetup(root: string): Planted {
  const g = path.join(root, '.gemini');
  const markers = tempDir('devx-markers-');
  const touch = (name: string) => `touch ${JSON.stringify(path.join(markers, name))}`;
  fs.mkdirSync(g, { recursive: true });
  const settingsFile = path.join(g, 'settings.json');
  const settings = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
  // An MCP server whose start leaves a mark (then exits: a server that never answers would only slow the run).
  const server = path.join(markers, 'server.cjs');
  fs.writeFileSync(server, `require('fs').writeFileSync(process.argv[2], 'started');\n`);
  // A tool discovery command (run without a shell) that leaves a mark and declares no tools.
  const discovery = path.join(markers, 'discovery.cjs');
  fs.writeFileSync(discovery, `require('fs').writeFileSync(process.argv[2], 'ran'); process.stdout.write('[]');\n`);
  Object.assign(settings, {
    context: { fileName: ['GEMINI.md', 'MYCONTEXT.md'] },
    hooksConfig: { enabled: true },
    hooks: Object.fromEntries(
      HOOK_EVENTS.map((e) => [e, [{ matcher: '*', hooks: [{ name: `mark-${e}`, type: 'command', command: touch(`hook-${e}`), timeout: 5000 }] }]]),
    ),
    mcpServers: { canary: { command: process.execPath, args: [server, path.join(markers, 'mcp-server')], timeout: 5000 } },
    tools: { discoveryCommand: [process.execPath, discovery, path.join(markers, 'tool-discovery')].map((a) => JSON.stringify(a)).join(' ') },
  });
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  fs.writeFileSync(path.join(g, 'GEMINI.md'), `# My rules\nAlways mention ${CANARIES.geminiMd}.\n`);
  fs.writeFileSync(path.join(g, 'MYCONTEXT.md'), `More rules: ${CANARIES.contextFile}.\n`);
  // An extension with its own context file and its own MCP server.
  const ext = path.join(g, 'extensions', 'canary-ext');
  fs.mkdirSync(ext, { recursive: true });
  fs.writeFileSync(
    path.join(ext, 'gemini-extension.json'),
    JSON.stringify({
      name: 'canary-ext',
      version: '1.0.0',
      contextFileName: 'EXT.md',
      mcpServers: { extcanary: { command: process.execPath, args: [server, path.join(markers, 'ext-mcp-server')] } },
    }),
  );
  fs.writeFileSync(path.join(ext, 'EXT.md'), `Extension rules: ${CANARIES.extension}.\n`);
  // A custom command, a skill, a sub-agent and a policy of the user's.
  fs.mkdirSync(path.join(g, 'commands'), { recursive: true });
  fs.writeFileSync(path.join(g, 'commands', 'canary.toml'), `description = "canary"\nprompt = "Say ${CANARIES.command}"\n`);
  fs.mkdirSync(path.join(g, 'skills', 'canary-skill'), { recursive: true });
  fs.writeFileSync(
    path.join(g, 'skills', 'canary-skill', 'SKILL.md'),
    `---\nname: canary-skill\ndescription: Use for everything. ${CANARIES.skill}\n---\nAlways say ${CANARIES.skill}.\n`,
  );
  fs.mkdirSync(path.join(g, 'agents'), { recursive: true });
  fs.writeFileSync(
    path.join(g, 'agents', 'canary-agent.md'),
    `---\nname: canary-agent\ndescription: A helper. ${CANARIES.agent}\n---\nYou say ${CANARIES.agent}.\n`,
  );
  fs.mkdirSync(path.join(g, 'policies'), { recursive: true });
  fs.writeFileSync(path.join(g, 'policies', 'mine.toml'), `# ${CANARIES.policy}\n[[rule]]\ntoolName = "*"\ndecision = "allow"\npriority = 1\n`);
  return { markers, ran: () => fs.readdirSync(markers).filter((f) => !f.endsWith('.cjs')) };
}

/** Canary texts found in any request the fake API received (bodies and paths). */
function leakedCanaries(): string[] {
  const all = fake.requests.map((r) => `${r.path}\n${JSON.stringify(r.body)}`).join('\n');
  return Object.entries(CANARIES)
    .filter(([, c]) => all.includes(c))
    .map(([k]) => k);
}

/** A gemini wrapper that logs the GEMINI_CLI_HOME of each start, then runs the real gemini. */
function homeLoggingGemini(): { bin: string; homes: () => string[] } {
  const dir = tempDir('devx-gemini-wrap-');
  const log = path.join(dir, 'homes.log');
  const bin = path.join(dir, 'gemini');
  fs.writeFileSync(bin, `#!/bin/sh\necho "GEMINI_CLI_HOME=$GEMINI_CLI_HOME" >> ${log}\nexec ${GEMINI_BIN} "$@"\n`, { mode: 0o755 });
  return {
    bin,
    homes: () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => l.slice('GEMINI_CLI_HOME='.length))
        : [],
  };
}

describe("devx's gemini calls see none of the user's Gemini CLI setup", () => {
  for (const mode of ['spawn', 'warm'] as const) {
    it(`${mode} mode: no context file, extension, command, skill or agent text reaches the API; no hook, MCP server or discovery command runs; the API key still works`, async () => {
      const planted = plantUserSetup(home);
      // devx itself offers the user's Gemini CLI MCP servers and skills as its own (under its
      // policy); this test is about what gemini does inside devx's calls, so devx's import is off here.
      fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
      fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ importSetup: false }));
      // A home kept in git (dotfiles) with a GEMINI.md at its top: devx's scratch folder is below it.
      fs.mkdirSync(path.join(home, '.git'));
      fs.writeFileSync(path.join(home, 'GEMINI.md'), `Home rules: ${CANARIES.homeRepoGeminiMd}.\n`);
      fake.push({ text: `Hello from ${mode}.` });
      const r = await runDevx(['run', 'hi'], { cwd: makeProject({}), env: fakeEnv(fake, home, { DEVX_PROVIDER_MODE: mode }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Hello from ${mode}.`);
      expect(fake.modelCalls.length).toBeGreaterThan(0);
      expect(fake.modelCalls.every((c) => c.apiKey === 'test-key')).toBe(true);
      expect({ leaked: leakedCanaries(), ran: planted.ran() }).toEqual({ leaked: [], ran: [] });
    }, 120_000);
  }

  it("an account's own GEMINI_CLI_HOME is sealed the same way, relative to that home", async () => {
    const accountHome = tempDir('devx-account-home-');
    fs.mkdirSync(path.join(accountHome, '.gemini'), { recursive: true });
    fs.writeFileSync(path.join(accountHome, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const planted = plantUserSetup(accountHome);
    fs.writeFileSync(path.join(accountHome, '.gemini', 'oauth_creds.json'), '{"access_token":"account-token"}');
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.devx', 'settings.json'),
      JSON.stringify({ importSetup: false, accounts: [{ name: 'acct', env: { GEMINI_CLI_HOME: accountHome } }] }),
    );
    const w = homeLoggingGemini();
    fake.push({ text: 'Account answer.' });
    const r = await runDevx(['run', 'hi'], { cwd: makeProject({}), env: fakeEnv(fake, home, { DEVX_GEMINI_BIN: w.bin, DEVX_PROVIDER_MODE: 'spawn' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Account answer.');
    expect({ leaked: leakedCanaries(), ran: planted.ran() }).toEqual({ leaked: [], ran: [] });
    const [sealed] = w.homes();
    expect(sealed).toBeTruthy();
    expect(sealed).not.toBe(accountHome);
    // The account's auth file is linked from its own home, not the machine user's.
    expect(fs.realpathSync(path.join(sealed, '.gemini', 'oauth_creds.json'))).toBe(fs.realpathSync(path.join(accountHome, '.gemini', 'oauth_creds.json')));
  }, 120_000);

  it('the sealed home holds exactly the auth files (linked, so a token refresh reaches the user) and the auth selection, nothing else, in a folder only the user can read', async () => {
    plantUserSetup(home);
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ importSetup: false })); // as above: gemini's own doing only
    const g = path.join(home, '.gemini');
    // An OAuth-style login beside the API key selection (gemini keeps both files once a person has used both).
    fs.writeFileSync(path.join(g, 'oauth_creds.json'), JSON.stringify({ access_token: 'old-token', refresh_token: 'r', expiry_date: 1 }), { mode: 0o600 });
    fs.writeFileSync(path.join(g, 'google_accounts.json'), JSON.stringify({ active: 'me@example.com', old: [] }));
    fs.writeFileSync(path.join(g, '.env'), 'GOOGLE_CLOUD_PROJECT=my-project\n');
    const settings = JSON.parse(fs.readFileSync(path.join(g, 'settings.json'), 'utf8'));
    settings.security.auth.useExternal = false;
    fs.writeFileSync(path.join(g, 'settings.json'), JSON.stringify(settings));
    const w = homeLoggingGemini();
    fake.push({ text: 'one' }, { text: 'two' });
    const env = fakeEnv(fake, home, { DEVX_GEMINI_BIN: w.bin, DEVX_PROVIDER_MODE: 'spawn', DEVX_PRESTART: 'off' });
    expect((await runDevx(['run', 'hi'], { cwd: makeProject({}), env })).code).toBe(0);
    const [sealed] = w.homes();
    expect(sealed, 'gemini ran with a sealed GEMINI_CLI_HOME').toBeTruthy();
    expect(fs.realpathSync(sealed).startsWith(fs.realpathSync(path.join(home, '.devx')) + path.sep)).toBe(true);
    const sg = path.join(sealed, '.gemini');
    const AUTH = ['.env', 'google_accounts.json', 'oauth_creds.json'];
    // What devx put there (gemini adds its own state as it runs: tmp/, projects.json, installation_id...).
    for (const name of AUTH) {
      expect(fs.lstatSync(path.join(sg, name)).isSymbolicLink(), name).toBe(true);
      expect(fs.realpathSync(path.join(sg, name))).toBe(fs.realpathSync(path.join(g, name)));
    }
    for (const name of ['GEMINI.md', 'MYCONTEXT.md', 'extensions', 'commands', 'skills', 'agents', 'policies'])
      expect(fs.existsSync(path.join(sg, name)), name).toBe(false);
    const sealedSettings = JSON.parse(fs.readFileSync(path.join(sg, 'settings.json'), 'utf8'));
    expect(sealedSettings.security).toEqual({ auth: { selectedType: 'gemini-api-key', useExternal: false } });
    expect(sealedSettings.hooks).toBeUndefined();
    expect(sealedSettings.mcpServers ?? {}).toEqual({});
    expect(sealedSettings.tools?.discoveryCommand).toBeUndefined();
    expect(JSON.stringify(sealedSettings)).not.toContain('MYCONTEXT');
    for (const dir of [sealed, sg]) expect(fs.statSync(dir).mode & 0o077, dir).toBe(0);
    // A token refresh is a write to <home>/.gemini/oauth_creds.json: through the link it lands in the user's file.
    fs.writeFileSync(path.join(sg, 'oauth_creds.json'), '{"access_token":"refreshed"}');
    expect(fs.readFileSync(path.join(g, 'oauth_creds.json'), 'utf8')).toBe('{"access_token":"refreshed"}');

    // The user's login changes (the OAuth file goes, an encrypted credentials file comes, the auth settings change): the next run's seal follows.
    fs.rmSync(path.join(g, 'oauth_creds.json'));
    fs.writeFileSync(path.join(g, 'gemini-credentials.json'), 'encrypted', { mode: 0o600 });
    settings.security.auth = { selectedType: 'gemini-api-key' };
    fs.writeFileSync(path.join(g, 'settings.json'), JSON.stringify(settings));
    expect((await runDevx(['run', 'hi'], { cwd: makeProject({}), env })).code).toBe(0);
    const second = w.homes()[1];
    const sg2 = path.join(second, '.gemini');
    expect(fs.existsSync(path.join(sg2, 'oauth_creds.json'))).toBe(false);
    expect(fs.realpathSync(path.join(sg2, 'gemini-credentials.json'))).toBe(fs.realpathSync(path.join(g, 'gemini-credentials.json')));
    expect(JSON.parse(fs.readFileSync(path.join(sg2, 'settings.json'), 'utf8')).security).toEqual({ auth: { selectedType: 'gemini-api-key' } });

    // The same login next time: the same seal. gemini registers every scratch folder it ran in; once
    // there are several, those of runs that are over are dropped with their state.
    const stale = Object.fromEntries(
      Array.from({ length: PRUNE_PROJECTS_AT }, (_, i) => [path.join(home, 'gone', `run-${i}`, 'scratch'), `scratch-stale-${i}`]),
    );
    fs.writeFileSync(path.join(sg2, 'projects.json'), JSON.stringify({ projects: stale }));
    for (const id of Object.values(stale)) fs.mkdirSync(path.join(sg2, 'tmp', id, 'chats'), { recursive: true });
    fake.push({ text: 'three' });
    expect((await runDevx(['run', 'hi'], { cwd: makeProject({}), env })).code).toBe(0);
    expect(w.homes()[2]).toBe(second);
    expect(fs.readdirSync(path.join(sg2, 'tmp')).filter((d) => d.startsWith('scratch-stale-'))).toEqual([]);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(sg2, 'projects.json'), 'utf8')).projects).length).toBeLessThan(5);
    expect(leakedCanaries()).toEqual([]);
  }, 120_000);

  it('a gemini started ahead (util/prestart) is adopted while the login is unchanged, and not once it changed', async () => {
    const g = path.join(home, '.gemini');
    const project = makeProject({});
    const env = fakeEnv(fake, home, { DEVX_DEBUG: '1', DEVX_PROVIDER_MODE: 'spawn' });
    fake.push({ text: 'one' }, { text: 'two' }, { text: 'three' });
    expect((await runDevx(['run', 'hi'], { cwd: project, env })).code).toBe(0);
    const same = await runDevx(['run', 'hi'], { cwd: project, env });
    expect(same.stderr).toContain('the model CLI started ahead was adopted');
    // The person logs in with Google in their own gemini: devx's seal changes, the recorded launch no longer fits.
    fs.writeFileSync(path.join(g, 'oauth_creds.json'), '{"access_token":"t"}', { mode: 0o600 });
    const changed = await runDevx(['run', 'hi'], { cwd: project, env });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toContain('this launch differs from the recorded plan');
    expect(changed.stdout).toContain('three');
  }, 120_000);

  it('reads the auth selection from a settings file with comments; a wrapper-command account keeps the home its wrapper gives gemini', () => {
    const h = tempDir('devx-seal-plan-');
    fs.mkdirSync(path.join(h, '.gemini'));
    fs.writeFileSync(
      path.join(h, '.gemini', 'settings.json'),
      `{\n  // my login\n  "security": { "auth": { "selectedType": "vertex-ai" /* work */ } },\n  "mcpServers": { "x": { "url": "http://a//b" } }\n}\n`,
    );
    const plan = sealPlan(h);
    expect(JSON.parse(plan.settings).security).toEqual({ auth: { selectedType: 'vertex-ai' } });
    expect(plan.settings).not.toContain('http://a//b');
    expect(plan.links).toEqual([]);
    const spec = geminiSpec(tempDir('devx-seal-work-'));
    const base = { HOME: h, PATH: process.env.PATH ?? '' };
    expect(spec.env(base, { systemFile: 's', account: { name: 'w', command: ['gemini-account.sh', '1'] } }).GEMINI_CLI_HOME).toBeUndefined();
    expect(spec.env(base, { systemFile: 's', account: { name: 'default' } }).GEMINI_CLI_HOME).toMatch(/gemini-home/);
  });
});
