// A launch plan: how a one-shot command's model CLI was launched (program, arguments, environment
// additions, the files and folders it needs), with the run's own folder written as a placeholder, so the
// next run of the same command can start the same process ahead (util/prestart). Only node built-ins and
// util files that import only those: the CommonJS binary reads plans before the rest of devx loads.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { OWNER_ENV } from './reapGroups.js';
import { hashOf } from './hashOf.js';

/** Stands for the run's scratch folder (`~/.devx/run/<pid>-<hex>`) in a recorded plan. */
export const RUN = '{{DEVX_RUN}}';

export interface LaunchPlan {
  v: 1;
  file: string;
  args: string[];
  cwd: string;
  /** Environment entries the launch adds to or changes in devx's own environment. */
  env: Record<string, string>;
  dirs: string[];
  /** Files the CLI reads at start-up (gemini's deny-all policy, devx's system prompt), with their content. */
  files: Record<string, string>;
  /** The CLI's stdout goes to a file, not a pipe (RunOptions.stdoutFile); here, the file the head start uses. */
  stdoutFile?: string;
  /** A long-lived CLI (a warm `gemini --acp`): its stdout is a protocol stream, left unread until adopted. */
  protocol?: boolean;
  /** Its stderr goes to this file, not a pipe. */
  stderrFile?: string;
}

/** The plan file for this command shape in this folder. */
export function planFileFor(devxHome: string, cwd: string, argv: string[], command: string[]): string {
  // The command and flag names only: the prompt and flag values change from run to run; the exact launch is compared at adoption.
  const shape = [
    cwd,
    ...command,
    ...argv
      .filter((a) => a.startsWith('-'))
      .map((a) => a.split('=')[0])
      .sort(),
  ].join('\0');
  const key = hashOf(shape);
  return join(devxHome, 'run', 'launch-plans', `${key}.json`);
}

/** The plan in `file`, or null when there is none or it is not a plan. */
export function readPlan(file: string): LaunchPlan | null {
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as LaunchPlan;
    const strings = (xs: unknown) => Array.isArray(xs) && xs.every((x) => typeof x === 'string');
    const record = (o: unknown) => typeof o === 'object' && o !== null && Object.values(o).every((x) => typeof x === 'string');
    if (p.v !== 1 || typeof p.file !== 'string' || typeof p.cwd !== 'string' || !strings(p.args) || !strings(p.dirs) || !record(p.env) || !record(p.files))
      return null;
    if ([p.stdoutFile, p.stderrFile].some((f) => f !== undefined && typeof f !== 'string')) return null;
    if (p.protocol !== undefined && typeof p.protocol !== 'boolean') return null;
    return p;
  } catch {
    return null;
  }
}

export const fill = (s: string, runDir: string) => s.split(RUN).join(runDir);
export const template = (s: string, runDir: string) => s.split(runDir).join(RUN);

/** What a launch needs besides its command line: folders, files with their content, and where its output goes. */
export interface LaunchNeeds {
  dirs: string[];
  files: Record<string, string>;
  stdoutFile?: string;
  protocol?: boolean;
  stderrFile?: string;
}

/** The plan of a launch made in the run folder `runDir`; `env` holds the call's own entries, of which those differing from process.env are kept. */
export function planOf(file: string, args: string[], cwd: string, env: Record<string, string | undefined>, extra: LaunchNeeds, runDir: string): LaunchPlan {
  const r = runDir;
  const delta: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== process.env[k] && k !== OWNER_ENV) delta[k] = template(v, r);
  return {
    v: 1,
    file,
    args: args.map((a) => template(a, r)),
    cwd: template(cwd, r),
    env: delta,
    dirs: extra.dirs.map((d) => template(d, r)),
    files: Object.fromEntries(Object.entries(extra.files).map(([f, c]) => [template(f, r), c])),
    // The head start's own name beside the call's: a later call of this run never picks the same one.
    ...(extra.stdoutFile ? { stdoutFile: template(join(dirname(extra.stdoutFile), 'prestarted.stdout'), r) } : {}),
    // A long-lived process keeps its stderr file: the adopter reads it from there, as its own.
    ...(extra.protocol ? { protocol: true } : {}),
    ...(extra.stderrFile ? { stderrFile: template(extra.stderrFile, r) } : {}),
  };
}
