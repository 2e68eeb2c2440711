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
  | { type: 'model_fallback'; from: string; to: string };

export interface ModelBackend {
  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse>;
}

export type BackendErrorKind =
  | 'auth'
  | 'quota'
  | 'bad_request'
  | 'server'
  | 'timeout'
  | 'untrusted'
  | 'config'
  | 'unparseable'
  | 'binary_missing'
  | 'cancelled'
  | 'failed';

/** Kinds worth another attempt (after backoff, or on the next account for quota). */
export const TRANSIENT_KINDS: ReadonlySet<BackendErrorKind> = new Set(['quota', 'server', 'failed']);

export class BackendError extends Error {
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
