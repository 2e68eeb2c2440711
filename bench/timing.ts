// What every bench section measures with: the median, a millisecond figure, and a whole process timed
// from spawn to exit.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** The median (the mean of the middle two for an even count). */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const fmt = (ms: number, digits = 1): string => `${ms.toFixed(digits)} ms`;

/** ms from spawn to exit of `cmd args` (stdout ignored, stdin given and closed); rejects on a non-zero exit. */
export function timeProcess(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${cmd} exited ${code}: ${err.slice(-500)}`))));
    child.stdin.end(opts.input ?? '');
  });
}
