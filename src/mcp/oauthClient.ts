// devx's side of an MCP server's OAuth (the SDK's OAuthClientProvider): PKCE, dynamic registration or a
// configured client id, tokens read from and saved to the OAuthStore. In a session it only presents
// and refreshes tokens (the SDK refreshes on a 401); signing in, with a browser, is `devx mcp login`.
import crypto from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpServerEntry } from '../config/mcpSettings.js';
import type { OAuthStore } from './oauthStore.js';

/** Gemini CLI's `oauth` keys devx uses (the others are accepted; discovery finds the endpoints). */
export interface OAuthSettings {
  enabled?: boolean;
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  redirectUri?: string;
}

export function oauthSettingsOf(entry: McpServerEntry): OAuthSettings {
  const o = (entry.oauth ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    enabled: typeof o.enabled === 'boolean' ? o.enabled : undefined,
    clientId: str(o.clientId),
    clientSecret: str(o.clientSecret),
    scopes: Array.isArray(o.scopes) ? o.scopes.filter((s): s is string => typeof s === 'string') : undefined,
    redirectUri: str(o.redirectUri),
  };
}

/** The server's address as devx connects to it. */
export function serverUrlOf(entry: McpServerEntry, expand: (s: string) => string): string | undefined {
  const raw = entry.httpUrl ?? entry.url;
  return raw ? expand(raw) : undefined;
}

/** Raised where a session would need a person at a browser: the way out is `devx mcp login`. */
export class SignInNeededError extends Error {
  constructor(server: string) {
    super(`needs sign-in (OAuth): run \`devx mcp login ${server}\``);
    this.name = 'SignInNeededError';
  }
}

export interface ClientOptions {
  server: string;
  /** Set while signing in: the loopback callback devx listens on. Absent in a session. */
  redirectUrl?: string;
  /** Shows the person the authorization URL (and opens their browser). Absent in a session. */
  authorize?: (url: URL) => Promise<void>;
}

export class DevxOAuthClient implements OAuthClientProvider {
  private verifier?: string;
  readonly expectedState = crypto.randomBytes(16).toString('hex');

  constructor(
    private readonly store: OAuthStore,
    private readonly settings: OAuthSettings,
    private readonly opts: ClientOptions,
  ) {}

  // In a session, the registered redirect: the SDK takes a client without one for a machine-to-machine
  // flow and would not refresh. Nothing listens there; a session never completes a redirect.
  get redirectUrl(): string {
    const registered = (this.store.read().client?.redirect_uris as string[] | undefined)?.[0];
    return this.opts.redirectUrl ?? registered ?? 'http://127.0.0.1/oauth/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'devx',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.settings.clientSecret ? 'client_secret_post' : 'none',
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    if (this.settings.clientId)
      return { client_id: this.settings.clientId, ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}) };
    return this.store.read().client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (this.settings.clientId) return; // configured, not registered
    this.store.update((r) => {
      r.client = info as Record<string, unknown>;
    });
  }

  tokens(): OAuthTokens | undefined {
    return this.store.read().tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.update((r) => {
      // A refresh answer may omit the refresh token: the one we had stays good.
      const keep = r.tokens?.refresh_token;
      r.tokens = { ...tokens, ...(tokens.refresh_token || !keep ? {} : { refresh_token: keep }) } as typeof r.tokens;
      r.savedAt = Date.now();
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.opts.authorize) throw new SignInNeededError(this.opts.server);
    await this.opts.authorize(url);
  }

  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE verifier: the sign-in was not started by this process');
    return this.verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.read().discovery as OAuthDiscoveryState | undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.store.update((r) => {
      r.discovery = state as unknown as Record<string, unknown>;
    });
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    this.store.update((r) => {
      if (scope === 'all' || scope === 'tokens') delete r.tokens;
      if (scope === 'all' || scope === 'client') delete r.client;
      if (scope === 'all' || scope === 'discovery') delete r.discovery;
    });
  }
}
