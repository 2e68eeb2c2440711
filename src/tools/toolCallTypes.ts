// What the tool wrapper (runToolCall.ts) takes and gives: its dependencies, the question it puts to a
// person, the answers, and a call's outcome.
import type * as z from 'zod';
import type { LoadedImage } from './loadImage.js';
import type { Location, PlannedChange, Tool, ToolContext } from './types.js';
import type { SandboxSpec } from '../sandbox/bwrap.js';
import type { PolicyDecision } from '../policy/types.js';
import type { HookVerdict } from '../policy/authorize.js';
import type { ApprovalMode } from '../policy/decide.js';

/** 'headless': nobody is there to ask and no mode approves it, so the call is refused. 'auto': the
 * approval mode (yolo, auto-edit) approved it, not a person, so it runs held to the policy's claim. */
export type ApprovalAnswer = 'yes' | 'no' | 'always' | 'headless' | 'auto';
/** What asking the person can give ('auto' is the mode's, never a person's). */
export type PersonAnswer = Exclude<ApprovalAnswer, 'auto'>;

export interface ApprovalRequest {
  tool: string;
  args: Record<string, unknown>;
  decision: PolicyDecision;
  /** The call in one line (the tool's describe()). */
  summary: string;
  /** What the call touches (paths and intents). */
  locations: Location[];
  /** What the call would do (a unified diff for file edits), when the tool can say. */
  preview?: string;
  /** The file change the call would make, when the tool plans one (the preview is written from it). */
  plan?: PlannedChange;
  /** The agent (its file's name) a sub-agent's call comes from; absent for the session's own calls. */
  by?: string;
}

export interface ToolCallDeps {
  tools: Map<string, Tool>;
  ctx: ToolContext;
  /** The policy's decision, before any mode, hook or answer (PolicyEngine.judge). */
  decide(tool: Tool, args: Record<string, unknown>): PolicyDecision | Promise<PolicyDecision>;
  /** The approval mode (default when absent). */
  mode?: ApprovalMode;
  /** Asks the person; 'headless' when nobody is there to ask. */
  approve(req: ApprovalRequest): Promise<PersonAnswer>;
  /** Whether the person said "always" to this call earlier in the session. */
  standing?: (req: ApprovalRequest) => boolean;
  maxOutputChars: number;
  /** When set (an agent's allowlist), only these tools may be called. */
  allowedTools?: { agent: string; names: Set<string> };
  /** The sandbox for calls no person approved (a person's yes runs the call as the person approved it). */
  sandbox?: SandboxSpec | null;
  /** Why a tool the model named is missing, when devx knows (an MCP server that did not start). */
  explainUnknown?: (name: string) => string | undefined;
  /** The user's PreToolUse and PostToolUse hooks (runtime/hooks.ts). */
  hooks?: ToolHooks;
}

/** Hooks around a call: PreToolUse may block it, approve it, ask for it or rewrite its arguments; PostToolUse may add to its result. */
export interface ToolHooks {
  /** `callId` names the call for both of its hooks (Claude Code's tool_use_id). */
  pre(tool: Tool, args: Record<string, unknown>, callId: string): Promise<HookVerdict & { updatedInput?: Record<string, string> }>;
  post(
    tool: Tool,
    args: Record<string, unknown>,
    result: { status: 'ok' | 'error'; content: string; durationMs: number },
    callId: string,
  ): Promise<{ block?: string; context: string[] }>;
}

/** Output limits every tool gets unless it declares its own. */
export const DEFAULT_LIMITS = { maxLines: 5000 };

export interface ToolCallOutcome {
  tool: string;
  args: Record<string, string>;
  status: 'ok' | 'error';
  content: string;
  meta?: Record<string, string | number | boolean | undefined>;
  decision?: PolicyDecision;
  answer?: ApprovalAnswer;
  durationMs: number;
  /** The call in one line (the tool's describe()). */
  summary: string;
  /** Paths the call touched (from the tool's locations()), for the session record. */
  locations?: Location[];
  /** Records the tool created (a knowledge store id, ...). */
  artifacts?: string[];
  /** Images shown to the model with the result. */
  images?: LoadedImage[];
  /** The output was cut to the tool's limit: its whole length, and where it was saved whole (project-relative). */
  cut?: { totalChars: number; savedAs?: string };
  /** The file change the call made or would make (Tool.plan), computed once before it ran: the audit log and ACP's diff use it. */
  plan?: PlannedChange;
  /** What the person was (or, in a dry run, would be) shown when asked: the tool's preview of the plan. */
  preview?: string;
}

export function formatZodError(err: z.ZodError): string {
  return err.issues
    .map((i) => {
      const key = i.path.join('.') || '(arguments)';
      if (i.code === 'invalid_type' && i.input === undefined) return `missing required argument "${key}"`;
      if (i.code === 'unrecognized_keys') return `unknown argument(s) ${i.keys.map((k) => `"${k}"`).join(', ')}`;
      return `argument "${key}": ${i.message}`;
    })
    .join('; ');
}
