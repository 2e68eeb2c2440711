// The single decision point called before every tool call: allow | ask | deny, with the reason and
// the rule that matched. Tools never check policy themselves.
import type { Tool } from '../tools/types.js';
import { PathError, resolveInside } from '../sandbox/resolvePath.js';

export type Decision = 'allow' | 'ask' | 'deny';

export interface PolicyDecision {
  decision: Decision;
  reason: string;
  /** Identifier of the rule that decided, for the audit log and `devx policy check`. */
  rule: string;
}

export interface PolicyContext {
  root: string;
}

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** Deny beats ask beats allow. */
export function strictest(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  return RANK[b.decision] > RANK[a.decision] ? b : a;
}

export function decideToolCall(tool: Tool, args: Record<string, unknown>, ctx: PolicyContext): PolicyDecision {
  let result: PolicyDecision = { decision: 'allow', reason: `${tool.kind} tool`, rule: `default:${tool.kind}` };
  for (const key of tool.pathArgs ?? []) {
    const p = args[key];
    if (typeof p !== 'string') continue;
    try {
      resolveInside(ctx.root, p);
    } catch (err) {
      if (err instanceof PathError) return { decision: 'deny', reason: err.message, rule: 'path:outside-root' };
      throw err;
    }
  }
  if (tool.kind === 'execute') {
    result = strictest(result, { decision: 'ask', reason: 'every command needs the user\'s approval', rule: 'default:execute' });
  }
  return result;
}
