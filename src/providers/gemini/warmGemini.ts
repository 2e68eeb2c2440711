// A warm Gemini: one long-lived `gemini --acp` process (Agent Client Protocol over stdio) per
// account and model, instead of one process per call. Each devx model call is one `session/prompt`
// on a fresh ACP session, so devx still owns the conversation and its budget. The same deny-all
// policy, scratch directory and GEMINI_SYSTEM_MD apply. A crash, hang or protocol error kills the
// process and retries once on a new one; a second failure falls back to one process per call for
// the rest of the session, with one line saying so.
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { BackendError, type BackendEvent, type ModelBackend, type ModelRequest, type ModelResponse } from '../types.js';
import { RetryingBackend, type Attempt, type AttemptResult } from '../retrying.js';
import type { ChildObserver, LaunchInfo, LongLived } from '../../util/processRunner.js';
import { startOrAdopt } from '../../util/withPrestarted.js';
import type { Account } from '../accounts.js';
import { GEMINI_WORKSPACE_SETTINGS, GeminiCliBackend, geminiSpec, geminiWorkspace, type GeminiCliOptions } from './geminiCli.js';
import { GEMINI_HINTS, geminiInternalRetry, geminiNotLoggedIn } from './classifyGeminiExit.js';
import { acpErrorText, apiError, promptBlocks, WarmFailure } from './translateAcp.js';
import { turnTimeoutMessage } from '../apiFault.js';
import { byLine } from '../cliBackend.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';
import { replaceFileSync } from '../../util/replaceFileSync.js';
import { debug } from '../../util/prestart.js';

const since = (what: string) => () => `warm gemini: ${what} ${Math.round(performance.now())} ms after devx started`;

const START_TIMEOUT_MS = 60_000;

/** The warm process's workspace settings: the same as a per-call gemini's (geminiCli.ts). */
export const WARM_WORKSPACE_SETTINGS = GEMINI_WORKSPACE_SETTINGS;

export interface WarmGeminiOptions extends GeminiCliOptions {
  observer?: ChildObserver;
}

class WarmProcess {
  private proc: LongLived | null = null;
  /** Records this launch for the next one-shot run's head start, once the process has answered. */
  private answered: (() => void) | null = null;
  private conn: acp.ClientConnection | null = null;
  private chunks: ((text: string) => void) | null = null;
  private ready: Promise<void> | null = null;
  private stderr = '';
  /** When the call in flight last heard from the API (its start, then each chunk of text). */
  private heard = Date.now();
  /** Fails the call in flight: gemini began retrying an API error on its own. */
  private early: ((err: BackendError) => void) | null = null;
  busy = false;

  constructor(
    private readonly spawnArgs: {
      file: string;
      args: string[];
      env: Record<string, string>;
      cwd: string;
      observer?: ChildObserver;
      /** Called once the process has exited, with when it was started (geminiSpec's afterExit). */
      afterExit?: (env: Record<string, string>, startedAt: number) => void;
    },
    readonly systemFile: string,
    /** What a head start of this launch needs (util/prestart); none when the launch carries an account's secrets. */
    private readonly launch?: Omit<LaunchInfo, 'tooEarly'>,
  ) {}

  /** Started once, and gone since. */
  get dead(): boolean {
    return this.proc !== null && !this.alive;
  }

  get alive(): boolean {
    return this.proc !== null && this.proc.child.exitCode === null && this.proc.child.signalCode === null;
  }

  start(): Promise<void> {
    this.ready ??= this.connect().catch((err: unknown) => {
      throw err instanceof WarmFailure ? err : new WarmFailure(`the warm gemini process did not start: ${acpErrorText(err)}`);
    });
    return this.ready;
  }

  private async connect(): Promise<void> {
    const stderrFile = `${this.systemFile}.stderr.log`;
    // The system prompt is in its file by now (prompt() writes it first); a head start gets the same.
    const launch = this.launch && { ...this.launch, files: { ...this.launch.files, [this.systemFile]: fs.readFileSync(this.systemFile, 'utf8') } };
    const startedAt = Date.now();
    const started = startOrAdopt(this.spawnArgs.file, this.spawnArgs.args, {
      cwd: this.spawnArgs.cwd,
      env: this.spawnArgs.env,
      observer: this.spawnArgs.observer,
      stderrFile,
      launch,
    });
    const p = started.proc;
    this.proc = p;
    this.answered = started.answered;
    const watch = byLine((line) => {
      const failure = this.early ? geminiInternalRetry(line, undefined, Date.now() - this.heard) : null;
      if (failure) this.early?.(failure);
    });
    // Read what it logs as it grows (a few times a second).
    let offset = 0;
    const poll = setInterval(() => {
      let chunk = '';
      try {
        const fd = fs.openSync(stderrFile, 'r');
        const buf = Buffer.alloc(64 * 1024);
        const n = fs.readSync(fd, buf, 0, buf.length, offset);
        fs.closeSync(fd);
        offset += n;
        chunk = buf.subarray(0, n).toString('utf8');
      } catch {
        return;
      }
      if (!chunk) return;
      this.stderr = (this.stderr + chunk).slice(-4000);
      watch(chunk);
    }, 250);
    poll.unref();
    void p.exited.then(() => {
      clearInterval(poll);
      // Killed outright, it may have held gemini's registry lock: the next gemini would wait for it.
      this.spawnArgs.afterExit?.(this.spawnArgs.env, startedAt);
    });
    p.child.stdin?.on('error', () => undefined);
    const stream = acp.ndJsonStream(
      Writable.toWeb(p.child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(p.child.stdout!) as ReadableStream<Uint8Array>,
    );
    const app = acp
      .client({ name: 'devx' })
      // Raw notifications: gemini sends update kinds newer than the SDK's schema; only text chunks matter here.
      .onNotification('*', async ({ params }) => {
        const u = (params as { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } })?.update;
        if (u?.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text' && u.content.text) this.chunks?.(u.content.text);
      })
      // gemini's own tools are denied by policy; should it ever ask, the answer is no.
      .onRequest(acp.methods.client.session.requestPermission, async () => ({ outcome: { outcome: 'cancelled' as const } }));
    this.conn = app.connect(stream);
    await this.withDeadline(
      this.conn.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} }),
      START_TIMEOUT_MS,
      'start',
    );
    debug(since('initialized'));
  }

  private async withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const died = this.proc!.exited.then(() => {
      throw new WarmFailure(
        `the warm gemini process exited during ${what}${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}` : ''}`,
      );
    });
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new WarmFailure(`timeout:${what}`)), ms)));
    try {
      return await Promise.race([work, died, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async prompt(req: ModelRequest, timeoutMs: number, account: string): Promise<AttemptResult> {
    // A cancel stops the process itself, whenever it comes (while gemini starts, opens the session or
    // answers): a call cut off mid-request leaves nothing half-done in it, and the next call starts a fresh one.
    const { cancelled, stopListening } = this.cancelOn(req.signal, account);
    try {
      // gemini reads GEMINI_SYSTEM_MD when it starts and again for every new session.
      replaceFileSync(this.systemFile, req.systemPrompt);
      // One deadline for the whole call: what starting the process and the session took comes off the prompt's time.
      const until = Date.now() + timeoutMs;
      const left = () => Math.max(1, until - Date.now());
      debug(since('prompt asked'));
      await Promise.race([this.start(), cancelled]);
      const conn = this.conn!;
      const session = await Promise.race([
        this.withDeadline(conn.agent.request(acp.methods.agent.session.new, { cwd: this.spawnArgs.cwd, mcpServers: [] }), left(), 'session/new').catch(
          (err: unknown) => {
            if (err instanceof WarmFailure) throw err;
            // No way to log in is said at once: neither a second process nor one per call would do better.
            throw geminiNotLoggedIn(acpErrorText(err), account) ?? new WarmFailure(`session/new failed: ${acpErrorText(err)}`);
          },
        ),
        cancelled,
      ]);
      debug(since('session open'));
      return await this.answer(req, session.sessionId, left(), account, cancelled);
    } finally {
      stopListening();
    }
  }

  /** A promise that rejects as 'cancelled' (and stops the process) once `signal` aborts, at once if it has. */
  private cancelOn(signal: AbortSignal | undefined, account: string): { cancelled: Promise<never>; stopListening: () => void } {
    let onAbort = () => {};
    const cancelled = new Promise<never>((_, reject) => {
      onAbort = () => {
        this.kill();
        reject(new BackendError('cancelled', 'the model call was cancelled', null, account));
      };
    });
    cancelled.catch(() => undefined);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return { cancelled, stopListening: () => signal?.removeEventListener('abort', onAbort) };
  }

  /** The session's one prompt: its text as it streams, until gemini says the turn ended. */
  private async answer(req: ModelRequest, sessionId: string, ms: number, account: string, cancelled: Promise<never>): Promise<AttemptResult> {
    const conn = this.conn!;
    let text = '';
    this.heard = Date.now();
    this.chunks = (t) => {
      text += t;
      this.heard = Date.now();
      req.onDelta?.(t);
    };
    const early = new Promise<never>((_, reject) => {
      this.early = (err) => {
        // gemini would keep retrying inside; stop it (the next call starts a fresh one) and let devx decide.
        this.kill();
        reject(new BackendError(err.kind, err.message, null, account));
      };
    });
    early.catch(() => undefined);
    try {
      const r = await Promise.race([
        this.withDeadline(conn.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: promptBlocks(req) }), ms, 'session/prompt'),
        early,
        cancelled,
      ]);
      if (r.stopReason === 'cancelled' || req.signal?.aborted) throw new BackendError('cancelled', 'the model call was cancelled', null, account);
      const q = (r._meta as { quota?: { token_count?: { input_tokens?: number; output_tokens?: number } } } | undefined)?.quota?.token_count;
      // Said as the per-call mode says it: gemini also returns nothing when it stops a reply it judges repetitive.
      if (!text.trim()) throw new BackendError('empty', GEMINI_HINTS.empty!, null, account);
      debug(since('answered'));
      this.answered?.();
      return { text, sessionId, usage: q ? { input: q.input_tokens, output: q.output_tokens } : undefined };
    } catch (err) {
      if (req.signal?.aborted) throw new BackendError('cancelled', 'the model call was cancelled', null, account);
      if (err instanceof WarmFailure) err.received = text.length;
      if (err instanceof BackendError || err instanceof WarmFailure) throw err;
      throw apiError(err, account, Date.now() - this.heard);
    } finally {
      this.early = null;
      this.chunks = null;
    }
  }

  kill(): void {
    this.conn?.close();
    this.proc?.kill();
    this.proc = null;
    this.conn = null;
    this.ready = null;
  }
}

export class WarmGeminiBackend implements ModelBackend {
  private readonly pools = new Map<string, WarmProcess[]>();
  private readonly retrying: RetryingBackend;
  private fallback: GeminiCliBackend | null = null;
  private notices: ((e: BackendEvent) => void) | null = null;
  private seq = 0;

  constructor(private readonly opts: WarmGeminiOptions) {
    this.retrying = new RetryingBackend((a) => this.attempt(a), opts);
  }

  async complete(req: ModelRequest, onEvent: (e: BackendEvent) => void = () => {}): Promise<ModelResponse> {
    if (this.fallback) return this.fallback.complete(req, onEvent);
    this.notices = onEvent;
    return this.retrying.complete(req, onEvent);
  }

  private acquire(account: Account, model: string): WarmProcess {
    const key = `${account.name}\u0000${model}`;
    const pool = this.pools.get(key) ?? [];
    this.pools.set(key, pool);
    let p = pool.find((w) => !w.busy);
    // A process that died since its last call is started again.
    if (p?.dead) p.kill();
    if (!p) {
      const id = this.seq++;
      const dir = path.join(this.opts.workDir, `warm-${id}`);
      mkdirOwnedSync(dir, 0o700);
      const spec = geminiSpec(this.opts.workDir);
      const systemFile = path.join(dir, 'system.md');
      const [file, args] = account.command ? [account.command[0], [...account.command.slice(1)]] : [this.opts.bin, []];
      const geminiArgs = spec.acpArgs(model);
      const env = spec.env({ ...this.opts.env, ...account.env }, { systemFile, account });
      // Its own working directory, whose workspace settings turn off gemini's internal retries: an API
      // error comes back at once (a warm process shows devx no retry log to stop it by), and devx retries.
      const cwd = path.join(dir, 'scratch');
      const settingsFile = geminiWorkspace(cwd);
      // As a per-call launch (cliBackend.ts): one whose environment carries an account's secrets is never recorded.
      const launch =
        spec.launch && !account.command && !Object.keys(account.env ?? {}).length
          ? {
              dirs: [...spec.launch.dirs, dir, path.dirname(settingsFile)],
              files: { ...spec.launch.files, [settingsFile]: JSON.stringify(WARM_WORKSPACE_SETTINGS) },
            }
          : undefined;
      p = new WarmProcess({ file, args: [...args, ...geminiArgs], env, cwd, observer: this.opts.observer, afterExit: spec.afterExit }, systemFile, launch);
      pool.push(p);
    }
    p.busy = true;
    return p;
  }

  private async attempt(a: Attempt): Promise<AttemptResult> {
    for (let tries = 0; ; tries++) {
      const proc = this.acquire(a.account, a.model);
      try {
        return await proc.prompt(a.req, a.timeoutMs, a.account.name);
      } catch (err) {
        if (!(err instanceof WarmFailure)) throw err;
        proc.kill();
        if (err.message === 'timeout:session/prompt') {
          const stalled = new BackendError(
            'stalled',
            turnTimeoutMessage('the Gemini API', 'gemini', Math.round(this.opts.timeoutMs / 1000), 'providers.gemini', err.received),
            null,
            a.account.name,
          );
          stalled.outOfTime = true;
          throw stalled;
        }
        if (tries === 0) continue;
        // Twice in a row: stop trusting the warm process for this session.
        this.dispose();
        this.fallback = new GeminiCliBackend(this.opts);
        this.notices?.({
          type: 'notice',
          message: `the warm gemini process failed twice (${err.message}); using one gemini process per call for the rest of this session`,
        });
        return this.fallback.complete(a.req).then((r) => ({ text: r.text, usage: r.usage, sessionId: r.sessionId }));
      } finally {
        proc.busy = false;
      }
    }
  }

  dispose(): void {
    for (const pool of this.pools.values()) for (const p of pool) p.kill();
    this.pools.clear();
  }
}
