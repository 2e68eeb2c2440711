// What the tool wrapper needs to run one call in a temp project, the way the agent wires it: every built-in
// tool, the real process runner, paths resolved inside `root`, and the policy's judgement.
import { plainToolContext } from './toolContext.js';
import { builtinTools } from '../../src/tools/registry.js';
import type { ApprovalRequest, PersonAnswer, ToolCallDeps } from '../../src/tools/runToolCall.js';
import type { PolicyEngine } from '../../src/policy/decide.js';

export interface ToolDepsOptions {
  /** ripgrep's path, or null for search_code's JS fallback (the default). */
  rgPath?: string | null;
  /** What the person answers when a call asks (default: yes). */
  approve?: (req: ApprovalRequest) => PersonAnswer | Promise<PersonAnswer>;
  /** Anything else in the tools' context (an undo journal, a shorter timeout). */
  ctx?: Partial<ToolCallDeps['ctx']>;
}

export function toolDeps(root: string, policy: PolicyEngine, opts: ToolDepsOptions = {}): ToolCallDeps {
  const approve = opts.approve ?? (() => 'yes' as const);
  return {
    tools: new Map(builtinTools().map((t) => [t.name, t])),
    ctx: plainToolContext(root, { rgPath: opts.rgPath ?? null, ...opts.ctx }),
    decide: (tool, args) => policy.judge(tool, args),
    approve: async (req) => approve(req),
    maxOutputChars: 50_000,
  };
}
