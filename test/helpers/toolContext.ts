// The tools' context for calls in a temp project, the parts the agent wires: the real process runner, paths
// resolved inside `root`, this process's environment, search_code's JS fallback (no ripgrep) and a 10 s timeout.
import type { ToolContext } from '../../src/tools/types.js';
import { resolveInside } from '../../src/sandbox/resolvePath.js';
import { runProcess } from '../../src/util/processRunner.js';

export function plainToolContext(root: string, over: Partial<ToolContext> = {}): ToolContext {
  return {
    root,
    signal: new AbortController().signal,
    runner: runProcess,
    env: process.env,
    resolve: (p) => resolveInside(root, p),
    rgPath: null,
    commandTimeoutMs: 10_000,
    ...over,
  };
}
