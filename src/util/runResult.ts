// What running a process gave (util/processRunner.ts), in a file of its own so settleOnAnswer.ts can name it.
export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came, when asked for (RunOptions.all). */
  all?: string;
  timedOut: boolean;
  cancelled: boolean;
  outputCapped: boolean;
  durationMs: number;
  /** Settled on the answer in stdout before the process exited: exitCode and signal are not known. */
  answered?: boolean;
  /** reapGroup stopped processes the child left running in its group. */
  reaped?: boolean;
}
