// Whether a call runs, asks or is refused, and in which sandbox: one pure function. Everything that has a
// say comes in (the policy's decision and claim, the approval mode, the PreToolUse hook's verdict, the
// session's standing answer, a person's answer, whether a sandbox works and whether anybody can be asked);
// one value goes out. The property it keeps: nothing a person did not approve runs outside the claim the
// policy made for it (codex's SafetyCheck, in codex-rs/core/src/safety.rs, answers the same question).
import { allowedBySettings, approvableByMode, type ApprovalMode, type PolicyDecision, type SandboxClaim } from './types.js';

/** What a PreToolUse hook said of the call (the user's own hooks, runtime/hooks.ts). */
export interface HookVerdict {
  /** Stop the call, with this reason. */
  block?: string;
  /** Approve it as an approval mode would: only what a mode may approve, held to the claim. */
  allow?: boolean;
  /** Ask a person even if the policy allows it, with this reason. */
  ask?: string;
}

export interface AuthorizeInput {
  /** The policy's decision (path and command rules, settings rules, a write scope), with its claim. */
  decision: PolicyDecision;
  tool: { name: string; kind: 'read' | 'write' | 'execute' | 'meta'; writesState?: boolean };
  mode: ApprovalMode;
  /** A working sandbox (bubblewrap) holds what runs unapproved by a person. */
  sandbox: boolean;
  hook?: HookVerdict;
  /** The person said "always" to this call earlier in the session. */
  standing?: boolean;
  /** Somebody can be asked (not a headless run). */
  person: boolean;
  /** The person's answer to this call's question, once asked. */
  answer?: 'yes' | 'no';
}

/** Who let a call run: the policy alone, a settings allow rule, the approval mode, a hook, a person now or earlier. */
export type ApprovedBy = 'policy' | 'settings' | 'mode' | 'hook' | 'person' | 'standing';

export type Authorization =
  /** Run it; `sandbox` is the claim it is held to, or null when a person (or their settings rule) approved it as it is, or no sandbox works. */
  | { kind: 'run'; sandbox: SandboxClaim | null; approvedBy: ApprovedBy; decision: PolicyDecision }
  /** Ask a person, then call again with the answer. */
  | { kind: 'ask'; decision: PolicyDecision }
  /** Do not run it. `by` says who refused: the policy, a hook, the approval mode, plan mode, the person, or nobody there to ask. */
  | { kind: 'refuse'; by: 'policy' | 'hook' | 'mode' | 'plan' | 'person' | 'nobody'; decision: PolicyDecision };

const READ_ONLY_CLAIM: SandboxClaim = { profile: 'read-only', writes: [] };

/** The one decision. Pure: same input, same output. */
export function authorize(i: AuthorizeInput): Authorization {
  const d = i.decision;
  if (i.hook?.block) return { kind: 'refuse', by: 'hook', decision: { ...d, decision: 'deny', reason: i.hook.block, rule: 'hook:block' } };
  if (d.decision === 'deny') return { kind: 'refuse', by: 'policy', decision: d };
  if (i.mode === 'plan' && !(readsOnly(i.tool) && d.decision === 'allow')) return { kind: 'refuse', by: 'plan', decision: planRefusal(i) };
  // A hook's ask makes even an allowed call a person's to approve.
  const asked = i.hook?.ask && d.decision === 'allow' ? { ...d, decision: 'ask' as const, reason: i.hook.ask, rule: 'hook:ask', lift: 'person' as const } : d;
  const held = (approvedBy: ApprovedBy): Authorization => ({
    kind: 'run',
    sandbox: i.sandbox ? (d.claim ?? READ_ONLY_CLAIM) : null,
    approvedBy,
    decision: asked,
  });
  if (asked.decision === 'allow') return allowedBySettings(asked) ? { kind: 'run', sandbox: null, approvedBy: 'settings', decision: asked } : held('policy');
  // An ask from here on.
  if (i.answer === 'no') return { kind: 'refuse', by: 'person', decision: asked };
  if (i.answer === 'yes') return { kind: 'run', sandbox: null, approvedBy: 'person', decision: asked };
  if (i.standing) return { kind: 'run', sandbox: null, approvedBy: 'standing', decision: asked };
  const liftable = approvableByMode(asked, i.sandbox);
  if (liftable && i.hook?.allow) return held('hook');
  if (liftable && (i.mode === 'yolo' || (i.mode === 'auto-edit' && i.tool.kind === 'write'))) return held('mode');
  if (i.mode === 'yolo') return { kind: 'refuse', by: 'mode', decision: yoloRefusal(asked, i.sandbox) };
  return i.person ? { kind: 'ask', decision: asked } : { kind: 'refuse', by: 'nobody', decision: asked };
}

/** Tools plan mode lets run: those that only read (and run_command, whose command the policy judged read-only). */
function readsOnly(tool: AuthorizeInput['tool']): boolean {
  if (tool.writesState) return false; // MEMORY.md, a note in the shared knowledge store, stopping a running server
  return tool.kind === 'read' || tool.kind === 'meta' || tool.name === 'run_command';
}

function planRefusal(i: AuthorizeInput): PolicyDecision {
  const d = i.decision;
  const what = d.decision === 'ask' ? `would need approval (${d.reason})` : 'changes things';
  return { ...d, decision: 'deny', reason: `plan mode is read-only; ${i.tool.name} ${what}`, rule: 'mode:plan' };
}

function yoloRefusal(d: PolicyDecision, sandbox: boolean): PolicyDecision {
  const how =
    sandbox || d.lift !== 'mode-in-sandbox'
      ? 'run it yourself, or rerun without yolo to approve it'
      : 'install bubblewrap so devx can sandbox it, run it yourself, or rerun without yolo to approve it';
  return { ...d, decision: 'deny', reason: `${d.reason}; yolo approves only what devx knows the whole effect of, so this is refused (${how})` };
}

/** The decision as a mode shows it before anybody answers (`devx policy check`, a dry run): what the mode refuses is a deny. */
export function decisionInMode(i: Omit<AuthorizeInput, 'answer' | 'person' | 'standing'>): PolicyDecision {
  const a = authorize({ ...i, person: true });
  return a.kind === 'refuse' && (a.by === 'mode' || a.by === 'plan' || a.by === 'hook') ? a.decision : i.decision;
}
