// Retries, accounts and model fallback for any provider. A provider supplies one attempt (one
// process or request with one account and one model); this wraps it into a ModelBackend with
// round-robin accounts, rotation on quota, exponential backoff with jitter, a whole-call deadline
// and, once every account is out of quota, the fallback model.
import {
  BackendError,
  RETRIED_ONCE,
  TRANSIENT_KINDS,
  type BackendEvent,
  type ModelBackend,
  type ModelRequest,
  type ModelResponse,
  type TokenUsage,
} from './types.js';
import { AccountRing, type Account } from './accounts.js';
import { backoffDelay } from './backoff.js';

export interface Attempt {
  account: Account;
  model: string;
  req: ModelRequest;
  /** Time left before the whole call's deadline (ms). */
  timeoutMs: number;
}

export interface AttemptResult {
  text: string;
  usage?: TokenUsage;
  sessionId?: string;
}

/** One try against the provider; throws BackendError with a kind the retry rules act on. */
export type AttemptFn = (a: Attempt) => Promise<AttemptResult>;

export interface RetryOptions {
  model: string;
  /** Tried once every account is exhausted on the main model. */
  fallbackModel?: string;
  accounts: Account[];
  /** The account ring, when another backend of the provider shares it (gemini's first call spawned, later ones warm). */
  ring?: AccountRing;
  /** Whole-call deadline including retries (ms). */
  timeoutMs: number;
  /** Backoff rounds after transient failures (each round may try every account for quota). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class RetryingBackend implements ModelBackend {
  private readonly ring: AccountRing;

  constructor(
    private readonly attempt: AttemptFn,
    private readonly opts: RetryOptions,
  ) {
    this.ring = opts.ring ?? new AccountRing(opts.accounts);
  }

  /** The account a request names: by name, or by its 1-based position in the list (spawn_gemini's account=1). */
  private pinned(which: string): Account {
    const list = this.opts.accounts.length ? this.opts.accounts : [this.ring.peek()];
    const byName = list.find((a) => a.name === which);
    const byIndex = /^\d+$/.test(which) ? list[Number(which) - 1] : undefined;
    const found = byName ?? byIndex;
    if (!found)
      throw new BackendError(
        'config',
        `there is no account "${which}": the accounts are ${list.map((a, i) => `${i + 1} (${a.name})`).join(', ')}; set them under providers.<provider>.accounts in ~/.devx/settings.json`,
      );
    return found;
  }

  async complete(req: ModelRequest, onEvent: (e: BackendEvent) => void = () => {}): Promise<ModelResponse> {
    const pinned = req.account !== undefined ? this.pinned(req.account) : null;
    const now = this.opts.now ?? Date.now;
    const sleep = this.opts.sleep ?? defaultSleep;
    const random = this.opts.random ?? Math.random;
    const started = now();
    const deadline = started + this.opts.timeoutMs;
    let model = req.model ?? this.opts.model;
    let attempts = 0;
    let round = 0;
    let triedThisRound = new Set<string>();
    let last: BackendError | null = null;
    const seen = new Map<string, number>();

    for (;;) {
      if (req.signal?.aborted) throw new BackendError('cancelled', 'the model call was cancelled');
      const remaining = deadline - now();
      if (remaining <= 0) {
        // An attempt the deadline itself ended already says so (the API stopped answering): nothing to wrap.
        if (last?.kind === 'stalled') throw last;
        throw new BackendError(
          'timeout',
          `the model call did not finish within ${Math.round(this.opts.timeoutMs / 1000)}s${last ? ` (last error: ${last.message})` : ''}`,
        );
      }
      const account = pinned ?? this.ring.next();
      triedThisRound.add(account.name);
      attempts++;
      onEvent({ type: 'attempt', attempt: attempts, account: account.name, model });
      try {
        const parsed = await this.attempt({ account, model, req, timeoutMs: remaining });
        return { ...parsed, model, account: account.name, durationMs: now() - started, attempts };
      } catch (err) {
        if (!(err instanceof BackendError)) throw err;
        last = err;
        if (!TRANSIENT_KINDS.has(err.kind) || err.outOfTime) throw err;
        seen.set(err.kind, (seen.get(err.kind) ?? 0) + 1);
        if (RETRIED_ONCE.has(err.kind) && seen.get(err.kind)! > 1) throw err;
        // Out of time: no retry line for a retry that cannot happen.
        if (deadline - now() <= 0) continue;
        // Quota: move to an account not yet tried in this round before backing off.
        if (err.kind === 'quota' && !pinned && triedThisRound.size < this.ring.size) {
          onEvent({ type: 'account_switch', from: account.name, to: this.ring.peek().name, reason: err.message });
          continue;
        }
        if (round >= this.opts.maxRetries) {
          if (err.kind === 'quota' && this.opts.fallbackModel && model !== this.opts.fallbackModel) {
            onEvent({ type: 'model_fallback', from: model, to: this.opts.fallbackModel });
            model = this.opts.fallbackModel;
            round = 0;
            triedThisRound = new Set();
            continue;
          }
          throw err;
        }
        const delayMs = Math.min(backoffDelay(round, this.opts.baseDelayMs, this.opts.maxDelayMs, random), Math.max(0, deadline - now()));
        onEvent({ type: 'retry', kind: err.kind, account: account.name, delayMs, message: err.message });
        round++;
        triedThisRound = new Set();
        await sleep(delayMs, req.signal);
      }
    }
  }
}
