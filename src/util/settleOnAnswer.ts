// A model CLI writes its final answer and then spends a while shutting down. A run that opts in settles as
// soon as its stdout holds a complete, successful answer, so devx saves history and prints while the CLI
// exits. The process is still owned: it is waited for before devx removes its folders or exits
// (awaitLingering), and stopped if it does not exit on its own.
import { StringDecoder } from 'node:string_decoder';
import type { RunResult } from './runResult.js';
import { debug } from './prestart.js';

/** How to tell, from stdout alone, that a CLI has answered successfully. */
export interface AnswerCheck {
  /** Cheap test of the chunk just read (an answer ends with it); only then is `test` run on all of stdout. */
  marker: RegExp;
  /** True only when stdout holds a complete answer that reads as a success. */
  test(stdout: string): boolean;
  /** How long the process may take to exit after it answered; LINGER_MS unless set. */
  lingerMs?: number;
  /** Called once the process that answered has exited (or was stopped). */
  afterExit?(): void;
}

/** How long a CLI that answered may take to exit before its process group is stopped. */
export const LINGER_MS = 10_000;

const lingering = new Set<Promise<void>>();

/** Resolves once every child that settled on its answer has exited (or was stopped after LINGER_MS). */
export async function awaitLingering(): Promise<void> {
  while (lingering.size) await Promise.all([...lingering]);
}

interface Streams {
  stdout: NodeJS.ReadableStream | null | undefined;
  stderr: NodeJS.ReadableStream | null | undefined;
  /** Output the child wrote before these streams were handed over (a pre-started child). */
  before?: { stdout: string[]; stderr: string[] };
}

/** What the runner does when its child answered: end the call's own limits, and how to stop the child if it stays. */
interface OnAnswer {
  settled(): void;
  stop(): void;
}

/**
 * `exited` as is without a check; with one, the first of: the child exits, or its stdout holds an
 * answer (then the result says `answered`, and the exit is waited for in the background, for at most lingerMs).
 */
export function settleOnAnswer(
  exited: Promise<RunResult>,
  streams: Streams,
  check: AnswerCheck | undefined,
  started: number,
  on: OnAnswer,
): Promise<RunResult> {
  if (!check) return exited;
  return new Promise<RunResult>((resolve, reject) => {
    let stdout = streams.before?.stdout.join('') ?? '';
    let stderr = streams.before?.stderr.join('') ?? '';
    let settled = false;
    exited.then(
      (r) => {
        settled = true;
        resolve(r);
      },
      (err) => {
        settled = true;
        reject(err);
      },
    );
    const answer = () => {
      settled = true;
      debug(() => `the model CLI answered ${Math.round(performance.now())} ms after devx started; it is still exiting`);
      on.settled();
      const linger = setTimeout(() => on.stop(), check.lingerMs ?? LINGER_MS);
      const ended = () => {
        clearTimeout(linger);
        try {
          check.afterExit?.();
        } catch {
          // what it clears up is best effort; the call has its answer
        }
      };
      const done = exited.then(ended, ended);
      lingering.add(done);
      void done.then(() => lingering.delete(done));
      resolve({
        exitCode: null,
        signal: null,
        stdout,
        stderr,
        timedOut: false,
        cancelled: false,
        outputCapped: false,
        durationMs: Date.now() - started,
        answered: true,
      });
    };
    const outText = new StringDecoder('utf8');
    const errText = new StringDecoder('utf8');
    streams.stderr?.on('data', (d: Buffer | string) => {
      if (!settled) stderr += typeof d === 'string' ? d : errText.write(d);
    });
    streams.stdout?.on('data', (d: Buffer | string) => {
      if (settled) return;
      const chunk = typeof d === 'string' ? d : outText.write(d);
      stdout += chunk;
      if (check.marker.test(chunk) && check.test(stdout)) answer();
    });
    if (stdout && check.test(stdout)) answer();
  });
}
