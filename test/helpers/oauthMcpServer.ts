// An OAuth-protected MCP server on loopback for the sign-in tests: the SDK's own authorization server
// (mcpAuthRouter: metadata discovery, dynamic registration, /authorize, /token with PKCE checked) in
// front of a streamable-HTTP MCP server behind requireBearerAuth. The "person" approves at once:
// /authorize redirects to the client's registered redirect_uri with a code.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { OAuthServerProvider, AuthorizationParams } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

interface Grant {
  clientId: string;
  expiresAt: number;
}

export interface OAuthMcpServer {
  url: string;
  mcpUrl: string;
  /** What /authorize was asked (PKCE method, redirect_uri, state). */
  authorizeRequests: AuthorizationParams[];
  registrations: OAuthClientInformationFull[];
  refreshes: number;
  /** Every bearer token the MCP endpoint was shown, good or not. */
  bearers: string[];
  /** Ends every access token now (a refresh is then needed). */
  expireAccessTokens(): void;
  /** Forgets every refresh token (a new sign-in is then needed). */
  revokeRefreshTokens(): void;
  close(): Promise<void>;
}

export async function startOAuthMcpServer(opts: { accessTtlSeconds?: number } = {}): Promise<OAuthMcpServer> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { client: string; params: AuthorizationParams }>();
  const access = new Map<string, Grant>();
  const refresh = new Map<string, string>(); // refresh token -> client id
  const ttl = (opts.accessTtlSeconds ?? 3600) * 1000;
  const state = {
    authorizeRequests: [] as AuthorizationParams[],
    registrations: [] as OAuthClientInformationFull[],
    refreshes: 0,
    bearers: [] as string[],
  };
  const issue = (clientId: string): OAuthTokens => {
    const token = crypto.randomUUID();
    const rt = crypto.randomUUID();
    access.set(token, { clientId, expiresAt: Date.now() + ttl });
    refresh.set(rt, clientId);
    return { access_token: token, token_type: 'bearer', expires_in: Math.round(ttl / 1000), refresh_token: rt };
  };
  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (c) => {
        const full = c as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        state.registrations.push(full);
        return full;
      },
    },
    async authorize(client, params, res) {
      state.authorizeRequests.push(params);
      const code = crypto.randomUUID();
      codes.set(code, { client: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.toString());
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new Error('unknown code');
      return c.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const c = codes.get(code);
      if (!c || c.client !== client.client_id) throw new Error('bad code');
      codes.delete(code);
      return issue(client.client_id);
    },
    async exchangeRefreshToken(client, rt) {
      const { InvalidGrantError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
      if (refresh.get(rt) !== client.client_id) throw new InvalidGrantError('refresh token is not valid');
      refresh.delete(rt);
      state.refreshes++;
      return issue(client.client_id);
    },
    async verifyAccessToken(token): Promise<AuthInfo> {
      state.bearers.push(token);
      const g = access.get(token);
      const { InvalidTokenError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
      if (!g || g.expiresAt < Date.now()) throw new InvalidTokenError('token expired or unknown');
      return { token, clientId: g.clientId, scopes: [], expiresAt: Math.floor(g.expiresAt / 1000) };
    },
  };

  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = `${base}/mcp`;
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: new URL(mcpUrl), scopesSupported: ['mcp:tools'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)) });
  app.post('/mcp', express.json(), bearer, async (req, res) => {
    const mcp = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which OAuth client called', inputSchema: { note: z.string().optional() } }, async (_args, extra) => ({
      content: [{ type: 'text', text: `signed in as ${extra.authInfo?.clientId}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const refuse = (_req: express.Request, res: express.Response) => res.status(405).json({ error: 'stateless server' });
  app.get('/mcp', bearer, refuse);
  app.delete('/mcp', bearer, refuse);
  return {
    url: base,
    mcpUrl,
    ...state,
    get authorizeRequests() {
      return state.authorizeRequests;
    },
    get registrations() {
      return state.registrations;
    },
    get refreshes() {
      return state.refreshes;
    },
    get bearers() {
      return state.bearers;
    },
    expireAccessTokens: () => {
      for (const g of access.values()) g.expiresAt = 0;
    },
    revokeRefreshTokens: () => refresh.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
