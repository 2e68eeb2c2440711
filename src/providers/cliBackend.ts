// What every CLI-driven provider shares: a scratch working directory devx owns, the system prompt
// written to a file once per distinct content, one process per attempt (prompt on stdin), and the
// shared retries. A provider supplies only its argv, its environment and how to read its result.
import path from 'node:path';
import crypto from 'node:crypto';
import {
  BackendError,
  type BackendEvent,
  type ModelBackend,
  type ModelRequest,
  type ModelResponse,
  type ProviderContext,
  type ProviderSettings,
} from './types.js';
import { BinaryMissingError, type LaunchInfo, type ProcessRunner, type RunResult } from '../util/processRunner.js';
import type { AnswerCheck } from '../util/settleOnAnswer.js';
import { writeStateSync } from '../util/atomicWrite.js';
import { RetryingBackend, type Attempt, type AttemptResult, type RetryOptions } from './retrying.js';
import type { Account } from './accounts.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { turnTimeoutMessage } from './apiFault.js';

/** The most a CLI may print for one call (the runner's default maxBuffer). */
const OUTPUT_CAP = 64 * 1024 * 1024;

export interface CliBackendOptions extends RetryOptions {
  /** The executable (a bare name is looked up on PATH). */
  bin: string;
  /** Directory devx owns; the CLI runs in `scratch/` below it. */
  workDir: string;
  runner: ProcessRunner;
  /** Extra environment for every call (tests use it to reach a fake API). */
  env?: Record<string, string>;
}

/** How one CLI is driven: its name for messages, install hint, argv, environment and result reading. */
export interface CliSpec {
  name: string;
  /** The API it talks to, for messages ("the Gemini API"). */
  api: string;
  installHint: string;
  args(model: string, systemFile: string): string[];
  /** Environment for one call; `base` is devx's env merged with the account's (the account itself is `call.account`). */
  env(base: Record<string, string>, call: { systemFile: string; account?: Account }): Record<string, string>;
  classify(r: RunResult, model: string, account: string): AttemptResult;
  /** A chunk of stdout that can end a complete answer: the call settles on it (util/settleOnAnswer). */
  answerMarker?: RegExp;
  /** A stderr line that means the CLI failed and is retrying on its own: devx stops it and takes over. `elapsedMs`: since it started. */
  earlyFailure?(line: string, account: string, elapsedMs: number): BackendError | null;
  /** How to send a request that carries images (a structured stdin); without it, images are refused. */
  images?: {
    args(model: string, systemFile: string): string[];
    input(req: ModelRequest): string;
    delta(line: string): string | null;
    classify(r: RunResult, model: string, account: string): AttemptResult;
    answerMarker?: RegExp;
    /** Why this CLI cannot be sent an attachment of this media type, or null when it can (every type when absent). */
    refuse?(mimeType: string): string | null;
  };
  /** How a copy of this launch can be started ahead by the next one-shot run (util/prestart). */
  launch?: { dirs: string[]; files: Record<string, string>; tooEarly: RegExp };
  /** Once a call's process has exited (after its answer too): clears what the CLI may have left behind. */
  afterExit?(env: Record<string, string>, startedAt: number): void;
  /** How to run it when the caller wants the text as it arrives. */
  streaming?: {
    args(model: string, systemFile: string): string[];
    /** The text one line of stdout adds to the reply, or null. */
    delta(line: string): string | null;
    classify(r: RunResult, model: string, account: string): AttemptResult;
    answerMarker?: RegExp;
  };
}

/** Calls `onLine` for each complete line of a stream that arrives in chunks. */
export function byLine(onLine: (line: string) => void): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  };
}

/** Reports the text each stdout line adds. */
function lineDeltas(delta: (line: string) => string | null, onDelta: (text: string) => void): (chunk: string) => void {
  return byLine((line) => {
    const text = delta(line);
    if (text) onDelta(text);
  });
}

let outputSeq = 0;

export class CliBackend implements ModelBackend {
  private readonly scratch: string;
  private readonly retrying: RetryingBackend;
  private systemFile: string | null = null;
  private systemHash = '';

  constructor(
    private readonly spec: CliSpec,
    private readonly opts: CliBackendOptions,
  ) {
    this.scratch = path.join(opts.workDir, 'scratch');
    mkdirOwnedSync(this.scratch, 0o700);
    this.retrying = new RetryingBackend((a) => this.runOnce(a), opts);
  }

  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    return this.retrying.complete(req, onEvent);
  }

  /** Writes the system prompt once per distinct content (atomically: a pre-started CLI may be reading it). */
  private systemPromptFile(content: string): string {
    const hash = crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);
    if (hash !== this.systemHash || !this.systemFile) {
      this.systemFile = path.join(this.opts.workDir, `system-${hash}.md`);
      writeStateSync(this.systemFile, content);
      this.systemHash = hash;
    }
    return this.systemFile;
  }

  private async runOnce({ account, model, req, timeoutMs }: Attempt): Promise<AttemptResult> {
    const systemFile = this.systemPromptFile(req.systemPrompt);
    const withImages = req.images?.length ? this.spec.images : undefined;
    if (req.images?.length && !withImages) throw new BackendError('bad_request', `${this.spec.name} cannot be sent images by devx`, null, account.name);
    for (const i of withImages?.refuse ? (req.images ?? []) : []) {
      const why = withImages!.refuse!(i.mimeType);
      if (why) throw new BackendError('bad_request', `${i.path}: ${why}`, null, account.name);
    }
    const streaming = withImages ?? (req.onDelta ? this.spec.streaming : undefined);
    const mode = streaming ?? this.spec;
    const [file, args] = commandFor(account, this.opts.bin, mode.args(model, systemFile));
    const env = this.spec.env({ ...this.opts.env, ...account.env }, { systemFile, account });
    // Stopped early (the CLI began retrying on its own) or by the caller.
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    if (req.signal?.aborted) stop.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    let early: BackendError | null = null;
    const started = Date.now();
    const afterExit = this.spec.afterExit && (() => this.spec.afterExit!(env, started));
    const onStderr = this.spec.earlyFailure
      ? byLine((line) => {
          early ??= this.spec.earlyFailure!(line, account.name, Date.now() - started);
          if (early) stop.abort();
        })
      : undefined;
    // A launch whose environment carries an account's secrets is never recorded for a head start. The
    // system prompt goes into the plan too: its file is named by its hash, so a changed prompt never matches.
    const launch: LaunchInfo | undefined =
      this.spec.launch && !account.command && !Object.keys(account.env ?? {}).length
        ? { ...this.spec.launch, dirs: [...this.spec.launch.dirs, this.scratch], files: { ...this.spec.launch.files, [systemFile]: req.systemPrompt } }
        : undefined;
    let r;
    let received = 0;
    try {
      const onStdout =
        streaming && req.onDelta
          ? lineDeltas(streaming.delta, (t) => {
              received += t.length;
              req.onDelta!(t);
            })
          : undefined;
      const answered = answerCheck(mode, model, account.name, afterExit);
      // stdout through a file: gemini exits before a pipe has taken a large answer (util/fileOutput). Beside
      // the scratch folder, never in it: gemini lists its working folder to the model.
      const stdoutFile = path.join(this.opts.workDir, 'out', `${process.pid}-${++outputSeq}.stdout`);
      r = await this.opts.runner(file, args, {
        cwd: this.scratch,
        input: withImages ? withImages.input(req) : req.prompt,
        env,
        timeoutMs,
        signal: stop.signal,
        onStdout,
        onStderr,
        launch,
        answered,
        stdoutFile,
        maxBuffer: OUTPUT_CAP,
        // Nothing of a call may outlive it: codex runs `lsb_release -a` as it ends and may exit before it does.
        reapGroup: true,
      });
    } catch (err) {
      if (err instanceof BinaryMissingError)
        throw new BackendError('binary_missing', `${err.file} was not found. ${this.spec.installHint}`, null, account.name);
      throw err;
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
    }
    // Settled on its answer, the process is still exiting: the answer check calls afterExit once it has.
    if (!r.answered) afterExit?.();
    if (early && !req.signal?.aborted) throw early;
    if (r.cancelled) throw new BackendError('cancelled', 'the model call was cancelled', null, account.name);
    // The turn's time ran out while the CLI waited: it had neither answered nor reported an error of its own.
    if (r.timedOut) {
      const err = new BackendError(
        'stalled',
        turnTimeoutMessage(this.spec.api, this.spec.name, Math.round(this.opts.timeoutMs / 1000), `providers.${this.spec.name}`, received),
        null,
        account.name,
      );
      err.outOfTime = true;
      throw err;
    }
    if (r.outputCapped) {
      throw new BackendError(
        'unparseable',
        `${this.spec.name}'s output passed devx's limit of ${Math.round(OUTPUT_CAP / 2 ** 20)} MB, so its reply was not read; ${this.spec.name} was stopped`,
        null,
        account.name,
      );
    }
    // An answer read before the process exited was judged a success from stdout alone, as exit 0 would be.
    return mode.classify(r.answered ? { ...r, exitCode: 0 } : r, model, account.name);
  }
}

/** A mode's answer check: its marker, then its own classify reading the output as a successful exit. */
function answerCheck(
  mode: { answerMarker?: RegExp; classify: CliSpec['classify'] },
  model: string,
  account: string,
  afterExit?: () => void,
): AnswerCheck | undefined {
  if (!mode.answerMarker) return undefined;
  return {
    marker: mode.answerMarker,
    afterExit,
    test: (stdout) => {
      try {
        mode.classify({ exitCode: 0, signal: null, stdout, stderr: '', timedOut: false, cancelled: false, outputCapped: false, durationMs: 0 }, model, account);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** An account is either extra environment or a wrapper command that execs the CLI with devx's arguments. */
export function commandFor(account: Account, bin: string, args: string[]): [string, string[]] {
  return account.command ? [account.command[0], [...account.command.slice(1), ...args]] : [bin, args];
}

/** A provider's resolved settings as the options of its CLI backend. */
export function cliOptions(s: ProviderSettings, ctx: ProviderContext): CliBackendOptions {
  return {
    bin: s.bin,
    model: s.model,
    fallbackModel: s.fallbackModel,
    accounts: s.accounts,
    workDir: ctx.workDir,
    timeoutMs: s.timeoutMs,
    maxRetries: s.maxRetries,
    baseDelayMs: s.retryBaseMs,
    maxDelayMs: s.retryMaxMs,
    runner: ctx.runner,
    env: ctx.env,
  };
}

/** The programs a CLI provider runs: its binary and any account wrapper commands. */
export function cliBinaries(s: ProviderSettings): string[] {
  return [s.bin, ...s.accounts.flatMap((a) => (a.command ? [a.command[0]] : []))];
}
