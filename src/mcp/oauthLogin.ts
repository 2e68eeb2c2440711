// `devx mcp login <server>`: the OAuth authorization-code flow with PKCE for an HTTP MCP server. devx
// listens on a loopback port for the redirect, prints the authorization URL and opens the browser, then
// trades the code for tokens (the SDK's `auth`), which OAuthStore keeps with mode 0600.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServerEntry } from '../config/mcpSettings.js';
import { DevxOAuthClient, oauthSettingsOf, serverUrlOf } from './oauthClient.js';
import { OAuthStore } from './oauthStore.js';
import { expandEnv } from './expandEnv.js';

export interface LoginOptions {
  devxHome: string;
  env: NodeJS.ProcessEnv;
  /** Shows the URL to the person and starts their browser (not awaited: a browser may run for long). */
  showUrl: (url: string) => void;
  timeoutMs?: number;
}

const CALLBACK_PATH = '/oauth/callback';
const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>devx</title><p>${text}</p>`;

function listen(server: http.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Waits for the browser's redirect: the code, once its state matches the one devx sent. */
function awaitCode(server: http.Server, path: string, state: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)}s; run the login again`)), timeoutMs);
    server.on('request', (req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (u.pathname !== path) {
        res.writeHead(404).end();
        return;
      }
      const fail = (why: string) => {
        res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE(`devx could not sign in: ${why}`));
        clearTimeout(timer);
        reject(new Error(why));
      };
      const err = u.searchParams.get('error');
      if (err)
        return fail(`the authorization server said ${err}${u.searchParams.get('error_description') ? `: ${u.searchParams.get('error_description')}` : ''}`);
      // A redirect that does not carry our state was not started by this login (another page, or forged).
      if (u.searchParams.get('state') !== state) {
        res.writeHead(400, { 'content-type': 'text/html' }).end(PAGE('this sign-in link is not the one devx started.'));
        return;
      }
      const code = u.searchParams.get('code');
      if (!code) return fail('the redirect carried no authorization code');
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE('devx is signed in. You can close this tab.'));
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Signs in to `entry`'s server; resolves once tokens are saved. */
export async function loginServer(entry: McpServerEntry, opts: LoginOptions): Promise<{ file: string }> {
  const url = serverUrlOf(entry, (s) => expandEnv(s, opts.env));
  if (!url) throw new Error(`"${entry.name}" is a stdio server; OAuth is for HTTP servers`);
  const settings = oauthSettingsOf(entry);
  const store = OAuthStore.for(opts.devxHome, entry.name, url);
  const configured = settings.redirectUri ? new URL(settings.redirectUri) : undefined;
  const path = configured?.pathname && configured.pathname !== '/' ? configured.pathname : CALLBACK_PATH;
  const server = http.createServer();
  try {
    // A registered client keeps its redirect port; a configured redirectUri names its own.
    const registered = (store.read().client?.redirect_uris as string[] | undefined)?.[0];
    const wantPort = configured ? Number(configured.port || 80) : registered ? Number(new URL(registered).port) : 0;
    let port: number;
    try {
      port = await listen(server, wantPort);
    } catch (err) {
      if (configured) throw new Error(`cannot listen on ${settings.redirectUri} for the sign-in redirect: ${(err as Error).message}`);
      port = await listen(server, 0);
    }
    const redirectUrl = `http://127.0.0.1:${port}${path}`;
    store.update((r) => {
      delete r.tokens; // a login is a fresh sign-in
      if (r.client && !(r.client.redirect_uris as string[] | undefined)?.includes(redirectUrl)) delete r.client;
    });
    const client = new DevxOAuthClient(store, settings, {
      server: entry.name,
      redirectUrl,
      authorize: async (u) => opts.showUrl(u.toString()),
    });
    const code = awaitCode(server, path, client.expectedState, opts.timeoutMs ?? 300_000);
    code.catch(() => undefined);
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const scope = settings.scopes?.length ? settings.scopes.join(' ') : undefined;
    const first = await auth(client, { serverUrl: url, scope });
    if (first !== 'AUTHORIZED') {
      const got = await code;
      const second = await auth(client, { serverUrl: url, scope, authorizationCode: got });
      if (second !== 'AUTHORIZED') throw new Error('the authorization server did not issue tokens');
    }
    return { file: store.file };
  } finally {
    server.closeAllConnections?.();
    server.close();
  }
}
