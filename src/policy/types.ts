export type Decision = 'allow' | 'ask' | 'deny';

export interface PolicyDecision {
  decision: Decision;
  reason: string;
  /** Identifier of the rule that decided, for the audit log and `devx policy check`. */
  rule: string;
}

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

const GENERIC = /:(all-allowed|paths)$/;

/**
 * Asks whose effect devx cannot see in advance (a computed argument, an option outside a command's
 * model, a recursive read over denied files without the sandbox, a script file, targets an archive or
 * diff names): a person may approve them, but an approval mode may not, so yolo turns them into denials.
 */
export const UNAPPROVABLE = /^(command:(expansion|computed-argument|unknown-option|recursive-denied|glob-large|heredoc-expansion|script-file|unverifiable|sed-script-file)|mcp:outside-project)/;

/** Deny beats ask beats allow; an ask no approval mode may lift beats one it may; on a tie the first specific decision (and its reason) stays. */
export function strictest(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  if (RANK[b.decision] !== RANK[a.decision]) return RANK[b.decision] > RANK[a.decision] ? b : a;
  if (a.decision === 'ask' && UNAPPROVABLE.test(a.rule) !== UNAPPROVABLE.test(b.rule)) return UNAPPROVABLE.test(b.rule) ? b : a;
  return GENERIC.test(a.rule) && !GENERIC.test(b.rule) ? b : a;
}

export const ALLOW = (reason: string, rule: string): PolicyDecision => ({ decision: 'allow', reason, rule });
export const ASK = (reason: string, rule: string): PolicyDecision => ({ decision: 'ask', reason, rule });
export const DENY = (reason: string, rule: string): PolicyDecision => ({ decision: 'deny', reason, rule });

export type PathIntent = 'read' | 'write' | 'list';

/** One path a tool call touches, with what it does there. */
export interface Location {
  path: string;
  intent: PathIntent;
}

/** What the policy needs to know of a tool (tools/types.ts's Tool satisfies it). */
export interface PolicyTool {
  name: string;
  kind: 'read' | 'write' | 'execute' | 'meta';
  commandFor?: (args: Record<string, unknown>) => string;
  confirm?: boolean;
  locations?: (args: Record<string, unknown>) => Location[];
  aliases?: string[];
  /** Set for a tool of an MCP server. */
  mcp?: McpToolPolicy;
}

/** What the policy knows of an MCP server's tool. */
export interface McpToolPolicy {
  server: string;
  /** `trust: true` in the server's settings. */
  trusted: boolean;
  /** A directory the server was pointed at outside the project (a filesystem server's root): every call asks. */
  outsideRoot?: string;
}
