// The process runner side of util/prestart: a launch that matches the pre-started process is given
// to it; one that does not runs as usual and, in a one-shot command, is recorded for the next run.
import { claimPrestarted, debug, recordLaunch } from './prestart.js';
import { keepLongLived, runStarted, startProcess, type ChildObserver, type LaunchInfo, type LongLived, type ProcessRunner } from './processRunner.js';

export function withPrestarted(runner: ProcessRunner): ProcessRunner {
  return async (file, args, opts) => {
    const launch = opts.extendEnv === false ? undefined : opts.launch;
    if (!launch) return runner(file, args, opts);
    const pre = claimPrestarted(file, args, opts.cwd, opts.env ?? {}, { stdoutToFile: Boolean(opts.stdoutFile) });
    if (pre) {
      const r = await runStarted(pre, opts);
      // It reached its system prompt or stdin before devx had written them: it made no model call.
      if (r.answered || r.exitCode === 0 || r.cancelled || r.timedOut || !launch.tooEarly.test(r.stderr)) return r;
      debug('the model CLI started ahead was ready before its prompt; starting a fresh one');
    }
    const r = await runner(file, args, opts);
    if ((r.answered || r.exitCode === 0) && !r.timedOut && !r.cancelled)
      recordLaunch(file, args, opts.cwd, opts.env ?? {}, { ...launch, stdoutFile: opts.stdoutFile });
    return r;
  };
}

export interface LongLivedStart {
  proc: LongLived;
  /** The process was started ahead by this one-shot run's entry point (util/prestart). */
  adopted: boolean;
  /** Once it has answered a call: records its launch for the next run of this command (no-op without `launch`). */
  answered(): void;
}

/**
 * startProcess for a long-lived CLI that speaks a protocol on stdio (a warm `gemini --acp`): adopts the
 * process this run started ahead when it was launched exactly so, else starts one.
 */
export function startOrAdopt(
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; observer?: ChildObserver; stderrFile?: string; launch?: Omit<LaunchInfo, 'tooEarly'> },
): LongLivedStart {
  const pre = opts.launch ? claimPrestarted(file, args, opts.cwd, opts.env, { protocol: true, stderrFile: opts.stderrFile }) : null;
  const proc = pre ? keepLongLived(pre.child, opts.observer) : startProcess(file, args, opts);
  let recorded = Boolean(pre) || !opts.launch;
  return {
    proc,
    adopted: Boolean(pre),
    answered: () => {
      if (recorded) return;
      recorded = true;
      recordLaunch(file, args, opts.cwd, opts.env, { ...opts.launch!, protocol: true, stderrFile: opts.stderrFile });
    },
  };
}
