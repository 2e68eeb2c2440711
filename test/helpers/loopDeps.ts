// LoopDeps for in-process tests and benchmarks: built-in tools, a real policy, an injected backend.
import { plainToolContext } from './toolContext.js';
import type { LoopDeps } from '../../src/core/loop.js';
import type { ModelBackend } from '../../src/providers/types.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { builtinTools } from '../../src/tools/registry.js';
import { buildPrompt } from '../../src/core/buildPrompt.js';

export function makeLoopDeps(root: string, backend: ModelBackend, policy: PolicyEngine, over: Partial<LoopDeps> & { budgetChars?: number } = {}): LoopDeps {
  const tools = builtinTools();
  const { budgetChars = 100_000, ...rest } = over;
  return {
    backend,
    systemPrompt: 'SYSTEM',
    tools: new Map(tools.map((t) => [t.name, t])),
    ctx: plainToolContext(root, { commandTimeoutMs: 5000 }),
    decide: (tool, args) => policy.judge(tool, args),
    mode: policy.opts.mode,
    approve: async () => 'yes',
    maxOutputChars: 50_000,
    buildPrompt: (messages, turnStart) => buildPrompt({ messages, turnStart, budgetChars }).text,
    maxRounds: 5,
    now: () => new Date(),
    ...rest,
  };
}
