// How a tool runs a program for the model: inside the sandbox held to the claim when no person approved
// it, or as the person approved it. Either way git's program-running configuration is off (commandEnv),
// and after a sandboxed run what it made that runs later is moved aside (sandbox/creationGuard.ts).
import { sandboxCommand, sandboxFailure } from '../sandbox/bwrap.js';
import { forgetScan } from '../sandbox/projectScan.js';
import type { RunOptions, RunResult } from '../util/processRunner.js';
import { commandEnv } from './commandEnv.js';
import type { ToolContext } from './types.js';

export interface ContainedRun {
  r: RunResult;
  /** One line per entry the command made that devx moved aside. */
  moved: string[];
}

export async function runContained(
  ctx: Pick<ToolContext, 'env' | 'root' | 'runner' | 'sandbox'>,
  argv: string[],
  opts: Omit<RunOptions, 'cwd' | 'env' | 'extendEnv'>,
): Promise<ContainedRun> {
  const env = commandEnv(ctx.env, ctx.root);
  const sb = ctx.sandbox ? sandboxCommand(ctx.sandbox, ctx.root, argv) : null;
  let moved: string[] = [];
  const r = await ctx
    .runner(sb?.file ?? argv[0], sb?.args ?? argv.slice(1), { ...opts, cwd: ctx.root, env, extendEnv: false, passFds: sb?.fds, mayLeaveGroup: !sb })
    .finally(() => {
      if (sb) moved = sb.cleanup();
      // A command outside the sandbox may have made a git directory or a hard link: the next one looks again.
      else forgetScan(ctx.root);
    });
  sandboxFailure(sb, r);
  return { r, moved };
}

/** The lines a tool result adds for what devx moved aside. */
export function movedNote(moved: string[]): string[] {
  return moved.length ? [`[devx moved aside what the command made:\n${moved.map((m) => `  ${m}`).join('\n')}]`] : [];
}
