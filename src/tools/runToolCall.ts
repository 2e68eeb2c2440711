// The one wrapper around every tool: lookup, argument validation (zod), the policy decision, the
// user's approval, execution, error capture and output truncation. Everything the model can fix
// comes back as an error result; nothing here throws on model input.
import * as z from 'zod';
import type { LoadedImage } from './loadImage.js';
import type { Location, PlannedChange, Tool, ToolContext } from './types.js';
import { ToolError, describeCall } from './types.js';
import { PathError } from '../sandbox/resolvePath.js';
import { SandboxStartError, type SandboxSpec } from '../sandbox/bwrap.js';
import { approvableByMode, type PolicyDecision } from '../policy/types.js';
import { limitOutput, spillOutput } from './limitOutput.js';
import { maskCommandOutput } from './maskUrlCredentials.js';
import { plannedWrites } from './plannedWrites.js';

/** 'headless': nobody is there to ask and no mode approves it, so the call is refused. 'auto': the
 * approval mode (yolo, auto-edit) approved it, not a person, so it runs held to the policy's claim. */
export type ApprovalAnswer = 'yes' | 'no' | 'always' | 'headless' | 'auto';

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
}

export interface ToolCallDeps {
  tools: Map<string, Tool>;
  ctx: ToolContext;
  decide(tool: Tool, args: Record<string, unknown>): PolicyDecision | Promise<PolicyDecision>;
  /** Asks the person (or applies --yes / headless rules). */
  approve(req: ApprovalRequest): Promise<ApprovalAnswer>;
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
  pre(tool: Tool, args: Record<string, unknown>): Promise<{ block?: string; allow?: boolean; ask?: string; updatedInput?: Record<string, string> }>;
  post(tool: Tool, args: Record<string, unknown>, result: { status: 'ok' | 'error'; content: string }): Promise<{ block?: string; context: string[] }>;
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

export async function runToolCall(call: { tool: string; args: Record<string, string> }, deps: ToolCallDeps): Promise<ToolCallOutcome> {
  const ran = { tool: null as Tool | null, args: {} as Record<string, unknown> };
  const o = await runCall(call, deps, ran);
  if (!deps.hooks || !ran.tool) return o;
  // PostToolUse: after the tool ran (not after a refusal); what a hook says reaches the model with the result.
  const post = await deps.hooks.post(ran.tool, ran.args, { status: o.status, content: o.content });
  const notes = [...(post.block ? [`[PostToolUse hook: ${post.block}]`] : []), ...post.context.map((c) => `[PostToolUse hook: ${c}]`)];
  return notes.length ? { ...o, content: `${o.content}\n${notes.join('\n')}` } : o;
}

async function runCall(
  call: { tool: string; args: Record<string, string> },
  deps: ToolCallDeps,
  ran: { tool: Tool | null; args: Record<string, unknown> },
): Promise<ToolCallOutcome> {
  let started = Date.now();
  const tool = deps.tools.get(call.tool);
  const summary = describeCall(tool, call.tool, call.args);
  const limits = { ...DEFAULT_LIMITS, maxChars: deps.maxOutputChars, ...tool?.limits };
  const shownPlan: { plan?: PlannedChange; preview?: string } = {};
  const done = (o: Omit<ToolCallOutcome, 'tool' | 'args' | 'durationMs' | 'summary'>): ToolCallOutcome => {
    // Output of a tool that runs a program can print credentials inside URLs (git remote -v, logs): masked before it is kept or shown.
    const full = tool?.kind === 'execute' ? maskCommandOutput(o.content) : o.content;
    let savedAs: string | null = null;
    const content = limitOutput(full, limits, (whole) => (savedAs = spillOutput(deps.ctx.root, call.tool, whole)));
    // The person sees that the output was cut too, not only the model.
    const cut = content === full ? undefined : { totalChars: full.length, ...(savedAs ? { savedAs } : {}) };
    return { tool: call.tool, args: call.args, summary, durationMs: Date.now() - started, ...o, content, ...(cut ? { cut } : {}), ...shownPlan };
  };
  if (!tool) {
    const why = deps.explainUnknown?.(call.tool);
    if (why) return done({ status: 'error', content: why });
    return done({ status: 'error', content: `unknown tool "${call.tool}". Available tools: ${[...deps.tools.keys()].join(', ')}.` });
  }
  if (deps.allowedTools && !deps.allowedTools.names.has(tool.name)) {
    return done({
      status: 'error',
      content: `${tool.name} is not available to the ${deps.allowedTools.agent} agent. It may use: ${[...deps.allowedTools.names].join(', ') || '(no tools)'}.`,
    });
  }
  const schema = (tool.schema as unknown as z.ZodObject).strict();
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) {
    return done({ status: 'error', content: `invalid arguments for ${tool.name}: ${formatZodError(parsed.error)}. Usage: ${tool.example.split('\n')[0]}` });
  }
  let args = parsed.data as Record<string, unknown>;
  const off = tool.unavailable?.(deps.ctx);
  if (off) return done({ status: 'error', content: off });
  // PreToolUse hooks: a block stops the call with its reason; an approval answers an ask as a mode would;
  // an ask makes even an allowed call ask; updated arguments are validated like the model's.
  const hook = deps.hooks ? await deps.hooks.pre(tool, args) : {};
  if (hook.block)
    return done({
      status: 'error',
      content: `blocked by a PreToolUse hook: ${hook.block}. Do not retry this call as it is; follow what the hook says or ask the user.`,
    });
  if (hook.updatedInput) {
    const again = schema.safeParse(hook.updatedInput);
    if (!again.success)
      return done({
        status: 'error',
        content: `a PreToolUse hook rewrote the arguments of ${tool.name} into invalid ones (${formatZodError(again.error)}); the call was not run. Tell the user.`,
      });
    args = again.data as Record<string, unknown>;
  }
  const locations = tool.locations?.(args) ?? [];
  let decision = await deps.decide(tool, args);
  if (hook.ask && decision.decision === 'allow') decision = { ...decision, decision: 'ask', reason: hook.ask, rule: 'hook:ask' };
  let answer: ApprovalAnswer | undefined;
  if (decision.decision === 'deny') {
    return done({
      status: 'error',
      decision,
      content: `denied by policy (${decision.rule}): ${decision.reason}. Do not retry this call; choose another approach or ask the user.`,
    });
  }
  if (decision.decision === 'ask' && hook.allow && approvableByMode(decision, Boolean(deps.sandbox))) {
    answer = 'auto'; // the hook approved what a mode may approve: it runs held to the policy's claim
  } else if (decision.decision === 'ask') {
    const plan = (shownPlan.plan = await tool.plan?.(deps.ctx, args as never).catch(() => undefined));
    const preview = (shownPlan.preview = await tool.preview?.(deps.ctx, args as never, plan).catch(() => undefined));
    if (!plan) delete shownPlan.plan;
    if (!preview) delete shownPlan.preview;
    answer = await deps.approve({
      tool: tool.name,
      args,
      decision,
      summary: describeCall(tool, tool.name, args),
      locations,
      preview,
      ...(plan ? { plan } : {}),
    });
    if (answer === 'no') {
      return done({
        status: 'error',
        decision,
        answer,
        content: `the user declined this ${tool.name} call (${decision.reason}). Do not retry it; ask the user what to do instead.`,
      });
    }
    if (answer === 'headless') {
      return done({
        status: 'error',
        decision,
        answer,
        content: `not run: ${tool.name} needs approval (${decision.reason}) and this run has nobody to ask (the user can rerun with --yes). Do not retry it; finish without it or explain what should be run.`,
      });
    }
  }
  // The change the call makes, planned once (asked or not) for the audit log and the editor's diff.
  if (tool.plan && !shownPlan.plan) {
    const plan = await tool.plan(deps.ctx, args as never).catch(() => undefined);
    if (plan) shownPlan.plan = plan;
  }
  started = Date.now(); // duration measures the tool, not the time spent waiting for approval
  // Undo: what the call will change is kept before it runs (or it is named as not undoable).
  const journal = deps.ctx.changes;
  const planned = journal ? plannedWrites(tool, args, decision, deps.ctx) : null;
  const writes = planned && 'paths' in planned ? planned.paths : [];
  try {
    if (planned && 'unknown' in planned) journal!.notUndoable(summary, planned.unknown);
    if (writes.length) journal!.before(writes, summary);
  } catch (err) {
    return done({
      status: 'error',
      decision,
      answer,
      content: `not run: devx could not keep a copy of what it would change, for undo (${(err as Error).message}). Tell the user.`,
    });
  }
  ran.tool = tool;
  ran.args = args;
  try {
    // What no person approved runs in the sandbox, held to what the policy claimed for it.
    // (A settings allow rule is the user's yes given in advance: a project's own counts only once trusted.)
    const unattended = (decision.decision === 'allow' && !/^settings:[^:]+:allow:/.test(decision.rule)) || answer === 'auto';
    const sandbox = unattended && deps.sandbox ? { ...deps.sandbox, claim: decision.claim ?? { profile: 'read-only' as const, writes: [] } } : null;
    let out;
    try {
      deps.ctx.started?.(tool.name); // approved and about to run: the REPL's spinner starts now, not over a question
      out = await tool.execute({ ...deps.ctx, sandbox }, args as never);
    } catch (err) {
      if (!(err instanceof SandboxStartError)) throw err;
      // Never unsandboxed on its own: a person may run it as it is, nobody else.
      const failed = { decision: 'ask' as const, reason: `${err.message}; run it without the sandbox?`, rule: 'sandbox:failed' };
      answer = await deps.approve({ tool: tool.name, args, decision: failed, summary: describeCall(tool, tool.name, args), locations });
      if (answer !== 'yes' && answer !== 'always') {
        return done({
          status: 'error',
          decision: failed,
          answer,
          content: `not run: ${err.message}, and nobody approved running it without the sandbox. Do not retry it; tell the user.`,
        });
      }
      started = Date.now();
      deps.ctx.started?.(tool.name);
      out = await tool.execute({ ...deps.ctx, sandbox: null }, args as never);
    }
    return done({
      status: out.isError ? 'error' : 'ok',
      content: out.content,
      meta: out.meta,
      decision,
      answer,
      locations,
      artifacts: out.artifacts,
      images: out.images,
    });
  } catch (err) {
    const known = err instanceof ToolError || err instanceof PathError;
    const e = err as NodeJS.ErrnoException;
    const message = known ? e.message : `${tool.name} failed: ${e.code ? `${e.code}: ` : ''}${e.message}`;
    return done({ status: 'error', content: message, decision, answer });
  } finally {
    if (writes.length) journal!.after(writes);
  }
}
