// Runs one headless `gemini` process per model call. The prompt goes on stdin (never argv), gemini
// runs in an empty scratch directory devx owns (never the user's project), all its native tools are
// removed by a deny-all policy, and its system prompt is replaced through GEMINI_SYSTEM_MD.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { BackendError, TRANSIENT_KINDS, type BackendEvent, type ModelBackend, type ModelRequest, type ModelResponse } from './types.js';
import { classifyGeminiResult } from './classifyGeminiExit.js';
import { BinaryMissingError, type ProcessRunner } from '../util/processRunner.js';
import type { Account } from './accounts.js';
import { AccountRing } from './accounts.js';
import { backoffDelay } from './backoff.js';

export interface GeminiCliOptions {
  /** The gemini executable (default `gemini` on PATH). */
  bin: string;
  model: string;
  /** Tried once every account is exhausted on the main model. */
  fallbackModel?: string;
  accounts: Account[];
  /** Directory devx owns; gemini runs here, with TMPDIR and the policy/system files beside it. */
  workDir: string;
  /** Whole-call deadline including retries (ms). */
  timeoutMs: number;
  /** Backoff rounds after transient failures (each round may try every account for quota). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  runner: ProcessRunner;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Extra environment for every call (tests use it to reach the fake API). */
  env?: Record<string, string>;
}

export const DENY_ALL_POLICY = `# devx: gemini must not run any of its own tools; devx executes tools itself.
[[rule]]
toolName = "*"
decision = "deny"
priority = 999
`;

export const INSTALL_HINT =
  'devx needs the Gemini CLI. Install it with `npm install -g @google/gemini-cli` (then run `gemini` once to log in), or point devx at it with DEVX_GEMINI_BIN or "gemini.bin" in settings.';

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

export class GeminiCliBackend implements ModelBackend {
  private readonly ring: AccountRing;
  private readonly scratch: string;
  private readonly tmp: string;
  private readonly policyFile: string;
  private systemFile: string | null = null;
  private systemHash = '';

  constructor(private readonly opts: GeminiCliOptions) {
    this.ring = new AccountRing(opts.accounts);
    this.scratch = path.join(opts.workDir, 'scratch');
    this.tmp = path.join(opts.workDir, 'tmp');
    fs.mkdirSync(this.scratch, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.tmp, { recursive: true, mode: 0o700 });
    this.policyFile = path.join(opts.workDir, 'deny-all-tools.toml');
    fs.writeFileSync(this.policyFile, DENY_ALL_POLICY);
  }

  /** Writes the system prompt once per distinct content. */
  private systemPromptFile(content: string): string {
    const hash = crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);
    if (hash !== this.systemHash || !this.systemFile) {
      this.systemFile = path.join(this.opts.workDir, `system-${hash}.md`);
      fs.writeFileSync(this.systemFile, content);
      this.systemHash = hash;
    }
    return this.systemFile;
  }

  async complete(req: ModelRequest, onEvent: (e: BackendEvent) => void = () => {}): Promise<ModelResponse> {
    const now = this.opts.now ?? Date.now;
    const sleep = this.opts.sleep ?? defaultSleep;
    const random = this.opts.random ?? Math.random;
    const started = now();
    const deadline = started + this.opts.timeoutMs;
    const systemFile = this.systemPromptFile(req.systemPrompt);
    let model = req.model ?? this.opts.model;
    let attempts = 0;
    let round = 0;
    let triedThisRound = new Set<string>();
    let last: BackendError | null = null;

    for (;;) {
      if (req.signal?.aborted) throw new BackendError('cancelled', 'the model call was cancelled');
      const remaining = deadline - now();
      if (remaining <= 0) {
        throw new BackendError('timeout', `the model call did not finish within ${Math.round(this.opts.timeoutMs / 1000)}s${last ? ` (last error: ${last.message})` : ''}`);
      }
      const account = this.ring.next();
      triedThisRound.add(account.name);
      attempts++;
      onEvent({ type: 'attempt', attempt: attempts, account: account.name, model });
      try {
        const parsed = await this.runOnce(account, model, req, systemFile, remaining);
        return { ...parsed, model, account: account.name, durationMs: now() - started, attempts };
      } catch (err) {
        if (!(err instanceof BackendError)) throw err;
        last = err;
        if (!TRANSIENT_KINDS.has(err.kind)) throw err;
        // Quota: move to an account not yet tried in this round before backing off.
        if (err.kind === 'quota' && triedThisRound.size < this.ring.size) {
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

  private async runOnce(account: Account, model: string, req: ModelRequest, systemFile: string, timeoutMs: number) {
    const geminiArgs = ['-m', model, '-o', 'json', '--policy', this.policyFile, '-e', 'none'];
    const [file, args] = account.command ? [account.command[0], [...account.command.slice(1), ...geminiArgs]] : [this.opts.bin, geminiArgs];
    const env: Record<string, string> = {
      // gemini re-launches itself in a second node process only to raise its heap limit; one headless
      // call does not need that, and skipping it cut a call from ~1.7 s to ~1.1 s (`npm run bench`). Overridable.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      ...this.opts.env,
      ...account.env,
      GEMINI_SYSTEM_MD: systemFile,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      TMPDIR: this.tmp,
      NO_COLOR: '1',
    };
    let r;
    try {
      r = await this.opts.runner(file, args, { cwd: this.scratch, input: req.prompt, env, timeoutMs, signal: req.signal });
    } catch (err) {
      if (err instanceof BinaryMissingError) throw new BackendError('binary_missing', `${err.file} was not found. ${INSTALL_HINT}`, null, account.name);
      throw err;
    }
    if (r.cancelled) throw new BackendError('cancelled', 'the model call was cancelled', null, account.name);
    if (r.timedOut) throw new BackendError('timeout', `gemini did not answer within ${Math.round(timeoutMs / 1000)}s; its process tree was killed`, null, account.name);
    return classifyGeminiResult(r, model, account.name);
  }
}
