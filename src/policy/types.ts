export type Decision = 'allow' | 'ask' | 'deny';

export interface PolicyDecision {
  decision: Decision;
  reason: string;
  /** Identifier of the rule that decided, for the audit log and `devx policy check`. */
  rule: string;
  /** For a command: what the policy claims it may do, which the sandbox enforces when no person approved it. */
  claim?: SandboxClaim;
}

export type { SandboxClaim } from '../sandbox/claim.js';
import type { SandboxClaim } from '../sandbox/claim.js';

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

const GENERIC = /:(all-allowed|paths)$/;

/**
 * Asks no approval mode may lift, only a person: reads outside the project, writes to other tools'
 * executable configuration, an MCP server working outside the project, a sandbox that failed to start,
 * a fetch of a host no rule allows.
 */
const UNAPPROVABLE_OTHER = /^(path:(outside-root-read|exec-config|hardlink)|mcp:outside-project|sandbox:|web:)/;
/**
 * The command asks an approval mode (yolo) may lift: the effect is known completely and the sandbox holds
 * the command to it. Every other command ask (an unknown program, an option outside a command's model,
 * an interpreter, a builtin that evaluates, a computed argument, a script file) is a person's to approve.
 */
const APPROVABLE_COMMAND = /^command:(write:|redirect-write|env-prefix|git-change|test-runner|package-manager|package-install)/;
/** Of those, the ones that run project code or change the work tree in ways not modelled path by path (git
 * checkout can plant a link a later read follows), and environment prefixes (a variable such as TAR_OPTIONS
 * or LD_PRELOAD changes what a program does beyond its model): an approval mode lifts them only inside the sandbox. */
const NEEDS_SANDBOX = /^command:(test-runner|package-manager|package-install|git-change|env-prefix)/;

/** True when an approval mode may approve this ask only inside the sandbox. */
export function needsSandbox(rule: string): boolean {
  return NEEDS_SANDBOX.test(rule);
}

/** True when no approval mode may approve this ask (with or without the sandbox). */
export function unapprovable(rule: string): boolean {
  return UNAPPROVABLE_OTHER.test(rule) || (rule.startsWith('command:') && !APPROVABLE_COMMAND.test(rule));
}

/** Whether an approval mode (yolo, auto-edit) may approve this ask; `sandboxed`: the command would run in the sandbox. */
export function approvableByMode(d: PolicyDecision, sandboxed: boolean): boolean {
  if (unapprovable(d.rule)) return false;
  return sandboxed || !NEEDS_SANDBOX.test(d.rule);
}

/** Deny beats ask beats allow; an ask no approval mode may lift beats one it may; on a tie the first specific decision (and its reason) stays. */
export function strictest(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  if (RANK[b.decision] !== RANK[a.decision]) return RANK[b.decision] > RANK[a.decision] ? b : a;
  if (a.decision === 'ask' && unapprovable(a.rule) !== unapprovable(b.rule)) return unapprovable(b.rule) ? b : a;
  if (a.decision === 'ask' && NEEDS_SANDBOX.test(a.rule) !== NEEDS_SANDBOX.test(b.rule)) return NEEDS_SANDBOX.test(b.rule) ? b : a;
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
  /** For a tool that fetches a URL (web_fetch): the URL, judged by the WebFetch(domain:…) rules. */
  urlFor?: (args: Record<string, unknown>) => string;
}

/** What the policy knows of an MCP server's tool. */
export interface McpToolPolicy {
  server: string;
  /** `trust: true` in the server's settings. */
  trusted: boolean;
  /** A directory the server was pointed at outside the project (a filesystem server's root): every call asks. */
  outsideRoot?: string;
}
