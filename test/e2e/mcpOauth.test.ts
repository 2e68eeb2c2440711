// OAuth sign-in to an HTTP MCP server, end to end: the SDK's own authorization server and a protected
// MCP server on loopback (test/helpers/oauthMcpServer.ts), `devx mcp login` with a stand-in browser,
// then real sessions (the real gemini binary, fake API) calling the server with the kept token,
// refreshing it, and never presenting it anywhere else.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/oauthMcpServer.js';

const BROWSER = path.join(REPO_ROOT, 'test', 'fixtures', 'fakeBrowser.mjs');

let fake: FakeGeminiApi;
let home: string;
const servers: OAuthMcpServer[] = [];
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function oauthServer(opts: { accessTtlSeconds?: number } = {}): Promise<OAuthMcpServer> {
  const s = await startOAuthMcpServer(opts);
  servers.push(s);
  return s;
}

function userSettings(settings: unknown): void {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
}

function tokenFiles(): string[] {
  const dir = path.join(home, '.devx', 'mcp-oauth');
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
}

describe('OAuth for HTTP MCP servers', () => {
  it('login: PKCE with dynamic registration through the browser; tokens kept 0600; a session presents them, refreshes them on a 401, and asks for a new login once refresh fails', async () => {
    const srv = await oauthServer();
    userSettings({ mcpServers: { secure: { httpUrl: srv.mcpUrl, oauth: { enabled: true } } }, permissions: { allow: ['mcp__secure'] } });
    const project = makeProject({});
    const log = path.join(tempDir('devx-browser-'), 'visits.jsonl');
    const env = fakeEnv(fake, home, { BROWSER, FAKE_BROWSER_LOG: log });

    // Before signing in: the server refuses, and devx says how to sign in.
    const before = await runDevx(['mcp', 'list', '--json'], { cwd: project, env });
    const s0 = JSON.parse(before.stdout).servers[0];
    expect(s0.state).toBe('failed');
    expect(s0.error).toContain('devx mcp login secure');

    const login = await runDevx(['mcp', 'login', 'secure'], { cwd: project, env, timeoutMs: 60_000 });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`${srv.url}/authorize?`);
    expect(login.stdout).toMatch(/signed in to "secure"; tokens kept in .*mcp-oauth.* \(mode 0600\)/);
    // The browser reached devx's loopback callback and was told it is signed in.
    const visit = JSON.parse(fs.readFileSync(log, 'utf8').trim().split('\n')[0]!);
    expect(visit.final).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback\?code=/);
    expect(visit.body).toContain('devx is signed in');
    // PKCE (S256 by the SDK's server, which checks the verifier at /token), one registration at a loopback redirect.
    expect(srv.authorizeRequests).toHaveLength(1);
    expect(srv.authorizeRequests[0]!.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(srv.registrations).toHaveLength(1);
    expect(srv.registrations[0]!.redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    const [file] = tokenFiles();
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    const first = JSON.parse(fs.readFileSync(file!, 'utf8'));
    expect(first.tokens.access_token).toBeTruthy();

    // A session calls the server with the token.
    fake.push({ text: 'TOOL_CALL: mcp__secure__whoami' });
    fake.push({ text: 'Done.' });
    const r1 = await runDevx(['run', 'who am i'], { cwd: project, env });
    expect(r1.code, r1.stderr).toBe(0);
    expect(fake.modelCalls[1]!.promptText).toContain(`signed in as ${srv.registrations[0]!.client_id}`);
    expect(srv.bearers).toContain(first.tokens.access_token);

    // The access token ends: the next session refreshes it (one refresh) and saves the new one.
    srv.expireAccessTokens();
    fake.push({ text: 'TOOL_CALL: mcp__secure__whoami' });
    fake.push({ text: 'Done again.' });
    const r2 = await runDevx(['run', 'who am i now'], { cwd: project, env });
    expect(r2.code, r2.stderr).toBe(0);
    expect(fake.modelCalls[3]!.promptText).toContain('signed in as');
    expect(srv.refreshes, r2.stderr + JSON.stringify(srv.bearers)).toBe(1);
    const second = JSON.parse(fs.readFileSync(file!, 'utf8'));
    expect(second.tokens.access_token).not.toBe(first.tokens.access_token);
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);

    // Refresh refused too: the session goes on without the server and names the way back in.
    srv.expireAccessTokens();
    srv.revokeRefreshTokens();
    fake.push({ text: 'No server.' });
    const r3 = await runDevx(['run', 'hello'], { cwd: project, env });
    expect(r3.code, r3.stderr).toBe(0);
    expect(r3.stderr).toContain('devx mcp login secure');

    const out = await runDevx(['mcp', 'logout', 'secure'], { cwd: project, env });
    expect(out.code).toBe(0);
    expect(fs.existsSync(file!)).toBe(false);
  }, 180_000);

  it('a token is kept for a server name *and* address: a server of the same name elsewhere is never shown it', async () => {
    const real = await oauthServer();
    const other = await oauthServer();
    const project = makeProject({});
    const log = path.join(tempDir('devx-browser-'), 'visits.jsonl');
    const env = fakeEnv(fake, home, { BROWSER, FAKE_BROWSER_LOG: log });
    userSettings({ mcpServers: { secure: { url: real.mcpUrl } } });
    const login = await runDevx(['mcp', 'login', 'secure'], { cwd: project, env, timeoutMs: 60_000 });
    expect(login.code, login.stderr).toBe(0);
    // The same name, another address (a project's settings, an edited file): no token goes there.
    userSettings({ mcpServers: { secure: { url: other.mcpUrl } } });
    const list = await runDevx(['mcp', 'list', '--json'], { cwd: project, env });
    expect(JSON.parse(list.stdout).servers[0].error).toContain('devx mcp login secure');
    expect(other.bearers).toEqual([]);
    // `enabled: false` turns the kept token off for the real one too.
    userSettings({ mcpServers: { secure: { url: real.mcpUrl, oauth: { enabled: false } } } });
    const off = await runDevx(['mcp', 'list', '--json'], { cwd: project, env });
    expect(JSON.parse(off.stdout).servers[0].state).toBe('failed');
    userSettings({ mcpServers: { secure: { url: real.mcpUrl } } });
    const on = await runDevx(['mcp', 'list', '--json'], { cwd: project, env });
    expect(JSON.parse(on.stdout).servers[0].state).toBe('ready');
  }, 120_000);

  it('a stdio server or an unknown name is a usage error; says so and touches nothing', async () => {
    const project = makeProject({});
    userSettings({ mcpServers: { local: { command: 'true' } } });
    const env = fakeEnv(fake, home, { BROWSER: '/bin/true' });
    const stdio = await runDevx(['mcp', 'login', 'local'], { cwd: project, env });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('is a stdio server');
    const unknown = await runDevx(['mcp', 'login', 'nope'], { cwd: project, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server named "nope"; configured: local');
  }, 60_000);
});
