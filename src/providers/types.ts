// The model backend contract. The agent loop only sees this interface, so tests can script replies.

export interface TokenUsage {
  input?: number;
  output?: number;
  total?: number;
  cached?: number;
}

export interface ModelRequest {
  /** The whole conversation prompt for this call (sent on stdin, never argv). */
  prompt: string;
  /** Replaces the model's system prompt. */
  systemPrompt: string;
  signal?: AbortSignal;
  /** Overrides the configured model for this request. */
  model?: string;
  /** Makes the call on this account only (its name, or its 1-based position in the accounts list); no rotation. */
  account?: string;
  /** Told the reply's text as it arrives, when the provider can stream (the REPL prints prose early). */
  onDelta?: (text: string) => void;
  /** Images for the model to see, in the order the prompt mentions them (base64 bytes). */
  images?: { mimeType: string; data: string; path: string }[];
}

export interface ModelResponse {
  text: string;
  model: string;
  account?: string;
  usage?: TokenUsage;
  sessionId?: string;
  durationMs: number;
  attempts: number;
}

/** Progress a backend reports while it works (retries, account switches). */
export type BackendEvent =
  | { type: 'attempt'; attempt: number; account?: string; model: string }
  | { type: 'retry'; kind: BackendErrorKind; account?: string; delayMs: number; message: string }
  | { type: 'account_switch'; from?: string; to?: string; reason: string }
  | { type: 'model_fallback'; from: string; to: string }
  /** Model text as it arrives, from providers that stream; the reply is still used only when complete. */
  | { type: 'text_delta'; text: string }
  /** Something the user should know about the provider (a fallback it took). */
  | { type: 'notice'; message: string };

export interface ModelBackend {
  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse>;
  /** Stops what the backend keeps running between calls (a warm process). */
  dispose?(): void;
}

export type BackendErrorKind =
  | 'auth'
  | 'quota'
  | 'bad_request'
  | 'server'
  | 'overloaded'
  | 'network'
  /** The API accepted the request and then went quiet: no reply, or no more of one. */
  | 'stalled'
  /** The connection was cut while the reply was arriving. */
  | 'cut'
  /** The API answered with something that is not its JSON (garbage, a proxy's page, the wrong shape). */
  | 'unreadable'
  | 'empty'
  | 'timeout'
  | 'untrusted'
  | 'config'
  | 'unparseable'
  | 'binary_missing'
  | 'cancelled'
  | 'failed';

/** Kinds worth another attempt (after backoff, or on the next account for quota). */
export const TRANSIENT_KINDS: ReadonlySet<BackendErrorKind> = new Set(['quota', 'server', 'overloaded', 'network', 'stalled', 'cut', 'unreadable', 'failed']);

/** Kinds retried at most once: each try costs a whole CLI timeout, and a second in a row says the API is down for now. */
export const RETRIED_ONCE: ReadonlySet<BackendErrorKind> = new Set(['stalled']);

export class BackendError extends Error {
  /** The call's deadline ended this attempt: there is no time left to try again. */
  outOfTime = false;

  constructor(
    public readonly kind: BackendErrorKind,
    message: string,
    public readonly exitCode?: number | null,
    public readonly account?: string,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

/** A provider's resolved settings (`providers.<id>` in settings, with defaults and env applied). */
export interface ProviderSettings {
  bin: string;
  model: string;
  fallbackModel?: string;
  accounts: import('./accounts.js').Account[];
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How the CLI runs: one process per call, or a warm process kept for the session or run (gemini; auto is warm there). */
  mode: 'spawn' | 'warm' | 'auto';
}

/** What a provider's backend is given by the runtime: its own scratch dir, the process runner, the env. */
export interface ProviderContext {
  workDir: string;
  runner: import('../util/processRunner.js').ProcessRunner;
  env: Record<string, string>;
  /** Told about long-lived child processes (a warm model process) for crash recovery. */
  observer?: import('../util/processRunner.js').ChildObserver;
}

/** One model provider: a folder under providers/ and one line in providers/registry.ts. */
export interface Provider {
  id: string;
  /** Other names that select it (`provider: openai` for codex). */
  aliases?: string[];
  defaultModel: string;
  /** Models offered by name where a person picks one (an editor's model menu); any other name still works. */
  models: string[];
  defaultBin: string;
  /** Shown when a binary it needs is missing. */
  installHint: string;
  /** The programs a call runs (checked before the first turn). */
  binaries(s: ProviderSettings): string[];
  create(s: ProviderSettings, ctx: ProviderContext): ModelBackend;
}
