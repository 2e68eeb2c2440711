// The process runner side of util/prestart: a launch that matches the pre-started process is given
// to it; one that does not runs as usual and, in a one-shot command, is recorded for the next run.
import { claimPrestarted, debug, recordLaunch } from './prestart.js';
import { runStarted, type ProcessRunner } from './processRunner.js';

export function withPrestarted(runner: ProcessRunner): ProcessRunner {
  return async (file, args, opts) => {
    const launch = opts.extendEnv === false ? undefined : opts.launch;
    if (!launch) return runner(file, args, opts);
    const pre = claimPrestarted(file, args, opts.cwd, opts.env ?? {}, Boolean(opts.stdoutFile));
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
