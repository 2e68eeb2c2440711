// The one wrapper around every tool, in named stages over one call state: resolve (the tool), validate
// (zod), hooks (PreToolUse), authorize (policy/authorize.ts decides run | ask | refuse), confirm (a
// person answers an ask), journal (undo keeps what it will change), execute (in the claim's sandbox or as
// approved), finish (output limits, PostToolUse). Everything the model can fix comes back as an error
// result; nothing here throws on model input. Its types are in toolCallTypes.ts.
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import type { Location, PlannedChange, Tool } from './types.js';
import { ToolError, argsPreview, describeCall, narrowContext } from './types.js';
import { PathError } from '../sandbox/resolvePath.js';
import { SandboxStartError } from '../sandbox/bwrap.js';
import { ASK, approvableByMode, unapprovable, type PolicyDecision } from '../policy/types.js';
import { authorize, type Authorization, type HookVerdict } from '../policy/authorize.js';
import { limitOutput, spillOutput } from './limitOutput.js';
import { maskCommandOutput } from './maskUrlCredentials.js';
import { plannedWrites } from './plannedWrites.js';
import { DEFAULT_LIMITS, formatZodError, type ApprovalAnswer, type ApprovalRequest, type ToolCallDeps, type ToolCallOutcome } from './toolCallTypes.js';

export * from './toolCallTypes.js';

export async function runToolCall(call: { tool: string; args: Record<string, string> }, deps: ToolCallDeps): Promise<ToolCallOutcome> {
  const st = newState(call, deps);
  const early = resolveTool(st, deps) ?? validateArgs(st) ?? (await runPreHooks(st, deps)) ?? (await authorizeCall(st, deps)) ?? (await confirmCall(st, deps));
  if (early) return early;
  const o = journalCall(st, deps) ?? (await executeCall(st, deps));
  return finishCall(st, deps, o);
}

/** One call as it moves through the stages. */
interface CallState {
  call: { tool: string; args: Record<string, string> };
  tool?: Tool;
  args: Record<string, unknown>;
  summary: string;
  locations: Location[];
  hook: HookVerdict;
  decision?: PolicyDecision;
  auth?: Authorization;
  answer?: ApprovalAnswer;
  /** What the person was shown (or, in a dry run, would be), and the change planned once. */
  shown: { plan?: PlannedChange; preview?: string };
  /** Paths undo kept a copy of before the call ran. */
  writes: string[];
  /** The tool's execute was reached (PostToolUse runs only then). */
  executed: boolean;
  /** The call's id for its hooks (Claude Code's tool_use_id). */
  callId: string;
  started: number;
  /** Builds the outcome (output masked, limited and spilled) from what a stage says. */
  done(o: Omit<ToolCallOutcome, 'tool' | 'args' | 'durationMs' | 'summary'>): ToolCallOutcome;
}

function newState(call: { tool: string; args: Record<string, string> }, deps: ToolCallDeps): CallState {
  const tool = deps.tools.get(call.tool);
  const st: CallState = {
    call,
    tool,
    args: {},
    summary: describeCall(tool, call.tool, call.args),
    locations: [],
    hook: {},
    shown: {},
    writes: [],
    executed: false,
    callId: `toolu_devx_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    started: Date.now(),
    done: (o) => {
      const limits = { ...DEFAULT_LIMITS, maxChars: deps.maxOutputChars, ...st.tool?.limits };
      // Output of a tool that runs a program can print credentials inside URLs (git remote -v, logs): masked before it is kept or shown.
      const full = st.tool?.kind === 'execute' ? maskCommandOutput(o.content) : o.content;
      let savedAs: string | null = null;
      const content = limitOutput(full, limits, (whole) => (savedAs = spillOutput(deps.ctx.root, call.tool, whole)));
      // The person sees that the output was cut too, not only the model.
      const cut = content === full ? undefined : { totalChars: full.length, ...(savedAs ? { savedAs } : {}) };
      return {
        tool: call.tool,
        args: call.args,
        summary: st.summary,
        durationMs: Date.now() - st.started,
        ...o,
        content,
        ...(cut ? { cut } : {}),
        ...st.shown,
      };
    },
  };
  return st;
}

/** resolve: the tool by name, and whether this agent may call it. */
function resolveTool(st: CallState, deps: ToolCallDeps): ToolCallOutcome | undefined {
  const tool = st.tool;
  if (!tool) {
    const why = deps.explainUnknown?.(st.call.tool);
    return st.done({ status: 'error', content: why ?? `unknown tool "${st.call.tool}". Available tools: ${[...deps.tools.keys()].join(', ')}.` });
  }
  if (deps.allowedTools && !deps.allowedTools.names.has(tool.name))
    return st.done({
      status: 'error',
      content: `${tool.name} is not available to the ${deps.allowedTools.agent} agent. It may use: ${[...deps.allowedTools.names].join(', ') || '(no tools)'}.`,
    });
  const off = tool.unavailable?.(narrowContext(deps.ctx, tool.needs));
  return off ? st.done({ status: 'error', content: off }) : undefined;
}

/** validate: the arguments against the tool's schema (unknown ones refused). */
function validateArgs(st: CallState): ToolCallOutcome | undefined {
  const tool = st.tool!;
  const parsed = (tool.schema as unknown as z.ZodObject).strict().safeParse(st.call.args);
  if (!parsed.success)
    return st.done({ status: 'error', content: `invalid arguments for ${tool.name}: ${formatZodError(parsed.error)}. Usage: ${tool.example.split('\n')[0]}` });
  st.args = parsed.data as Record<string, unknown>;
  return undefined;
}

/** hooks: PreToolUse may block, approve, ask, or rewrite the arguments (validated like the model's). */
async function runPreHooks(st: CallState, deps: ToolCallDeps): Promise<ToolCallOutcome | undefined> {
  const tool = st.tool!;
  if (deps.hooks) {
    const { updatedInput, ...verdict } = await deps.hooks.pre(tool, st.args, st.callId);
    st.hook = verdict;
    if (updatedInput) {
      const again = (tool.schema as unknown as z.ZodObject).strict().safeParse(updatedInput);
      if (!again.success)
        return st.done({
          status: 'error',
          content: `a PreToolUse hook rewrote the arguments of ${tool.name} into invalid ones (${formatZodError(again.error)}); the call was not run. Tell the user.`,
        });
      st.args = again.data as Record<string, unknown>;
    }
  }
  st.locations = tool.locations?.(st.args) ?? [];
  return undefined;
}

/** authorize: the policy's decision, weighed with the mode, the hook and the standing answers. */
async function authorizeCall(st: CallState, deps: ToolCallDeps): Promise<ToolCallOutcome | undefined> {
  const tool = st.tool!;
  st.decision = await deps.decide(tool, st.args);
  const req = request(st);
  st.auth = authorize({
    decision: st.decision,
    tool,
    mode: deps.mode ?? 'default',
    sandbox: Boolean(deps.sandbox),
    hook: st.hook,
    standing: deps.standing?.(req),
    person: true, // whether anybody answers is the approver's to say (confirm)
  });
  return st.auth.kind === 'refuse' ? refused(st, Boolean(deps.sandbox)) : undefined;
}

/** confirm: an ask goes to the person (with the planned change and its preview); the answer is authorized again. */
async function confirmCall(st: CallState, deps: ToolCallDeps): Promise<ToolCallOutcome | undefined> {
  const tool = st.tool!;
  if (st.auth?.kind === 'ask') {
    const plan = (st.shown.plan = await tool.plan?.(narrowContext(deps.ctx, tool.needs), st.args as never).catch(() => undefined));
    // A tool with neither a preview nor a one-line description of its own (an MCP or custom tool) shows its arguments whole.
    const preview = (st.shown.preview = tool.preview
      ? await tool.preview(narrowContext(deps.ctx, tool.needs), st.args as never, plan).catch(() => undefined)
      : tool.describe
        ? undefined
        : argsPreview(st.args));
    if (!plan) delete st.shown.plan;
    if (!preview) delete st.shown.preview;
    st.answer = await deps.approve({ ...request(st), decision: st.auth.decision, preview, ...(plan ? { plan } : {}) });
    st.auth = authorize({
      decision: st.decision!,
      tool,
      mode: deps.mode ?? 'default',
      sandbox: Boolean(deps.sandbox),
      hook: st.hook,
      person: st.answer !== 'headless',
      ...(st.answer === 'yes' || st.answer === 'always' ? { answer: 'yes' as const } : st.answer === 'no' ? { answer: 'no' as const } : {}),
    });
    if (st.auth.kind !== 'run') return refused(st, Boolean(deps.sandbox));
  } else if (st.auth?.kind === 'run') {
    st.answer = st.auth.approvedBy === 'mode' || st.auth.approvedBy === 'hook' ? 'auto' : st.auth.approvedBy === 'standing' ? 'yes' : undefined;
  }
  // The change the call makes, planned once (asked or not) for the audit log and the editor's diff.
  if (tool.plan && !st.shown.plan) {
    const plan = await tool.plan(narrowContext(deps.ctx, tool.needs), st.args as never).catch(() => undefined);
    if (plan) st.shown.plan = plan;
  }
  return undefined;
}

/** journal: undo keeps what the call will change before it runs (or names it as not undoable). */
function journalCall(st: CallState, deps: ToolCallDeps): ToolCallOutcome | undefined {
  st.started = Date.now(); // duration measures the tool, not the time spent waiting for approval
  const journal = deps.ctx.changes;
  const planned = journal ? plannedWrites(st.tool!, st.args, st.decision!, deps.ctx) : null;
  st.writes = planned && 'paths' in planned ? planned.paths : [];
  try {
    if (planned && 'unknown' in planned) journal!.notUndoable(st.summary, planned.unknown);
    if (st.writes.length) journal!.before(st.writes, st.summary);
  } catch (err) {
    return st.done({
      status: 'error',
      decision: st.decision,
      answer: st.answer,
      content: `not run: devx could not keep a copy of what it would change, for undo (${(err as Error).message}). Tell the user.`,
    });
  }
  return undefined;
}

/** execute: in the sandbox held to the claim when no person approved it; a sandbox that fails to start is a person's question. */
async function executeCall(st: CallState, deps: ToolCallDeps): Promise<ToolCallOutcome> {
  const tool = st.tool!;
  const run = st.auth as Extract<Authorization, { kind: 'run' }>;
  const sandbox = run.sandbox && deps.sandbox ? { ...deps.sandbox, claim: run.sandbox } : null;
  st.executed = true;
  try {
    let out;
    try {
      deps.ctx.started?.(tool.name); // approved and about to run: the REPL's spinner starts now, not over a question
      // The tool gets only what it declared it needs (tools/types.ts Tool.needs).
      out = await tool.execute(narrowContext({ ...deps.ctx, sandbox }, tool.needs), st.args as never);
    } catch (err) {
      if (!(err instanceof SandboxStartError)) throw err;
      const retry = await askUnsandboxed(st, deps, err);
      if (retry) return retry;
      st.started = Date.now();
      deps.ctx.started?.(tool.name);
      out = await tool.execute(narrowContext({ ...deps.ctx, sandbox: null }, tool.needs), st.args as never);
    }
    return st.done({
      status: out.isError ? 'error' : 'ok',
      content: out.content,
      meta: out.meta,
      decision: st.decision,
      answer: st.answer,
      locations: st.locations,
      artifacts: out.artifacts,
      images: out.images,
    });
  } catch (err) {
    const known = err instanceof ToolError || err instanceof PathError;
    const e = err as NodeJS.ErrnoException;
    const message = known ? e.message : `${tool.name} failed: ${e.code ? `${e.code}: ` : ''}${e.message}`;
    return st.done({ status: 'error', content: message, decision: st.decision, answer: st.answer });
  } finally {
    if (st.writes.length) deps.ctx.changes!.after(st.writes);
  }
}

/** The sandbox did not start: never unsandboxed on its own; a person may run it as it is (authorized like any ask only a person lifts). */
async function askUnsandboxed(st: CallState, deps: ToolCallDeps, err: SandboxStartError): Promise<ToolCallOutcome | undefined> {
  const failed = ASK(`${err.message}; run it without the sandbox?`, 'sandbox:failed');
  st.answer = await deps.approve({ ...request(st), decision: failed });
  const auth = authorize({
    decision: failed,
    tool: st.tool!,
    mode: deps.mode ?? 'default',
    sandbox: false,
    person: st.answer !== 'headless',
    ...(st.answer === 'yes' || st.answer === 'always' ? { answer: 'yes' as const } : {}),
  });
  if (auth.kind === 'run') return undefined;
  return st.done({
    status: 'error',
    decision: failed,
    answer: st.answer,
    content: `not run: ${err.message}, and nobody approved running it without the sandbox. Do not retry it; tell the user.`,
  });
}

/** finish: PostToolUse runs after the tool ran (not after a refusal); what a hook says reaches the model with the result. */
async function finishCall(st: CallState, deps: ToolCallDeps, o: ToolCallOutcome): Promise<ToolCallOutcome> {
  if (!deps.hooks || !st.executed) return o;
  const post = await deps.hooks.post(st.tool!, st.args, { status: o.status, content: o.content, durationMs: o.durationMs }, st.callId);
  const notes = [...(post.block ? [`[PostToolUse hook: ${post.block}]`] : []), ...post.context.map((c) => `[PostToolUse hook: ${c}]`)];
  return notes.length ? { ...o, content: `${o.content}\n${notes.join('\n')}` } : o;
}

/** The question for the person (or the standing-answer key): the call, its decision and what it touches. */
function request(st: CallState): ApprovalRequest {
  return { tool: st.tool!.name, args: st.args, decision: st.decision!, summary: describeCall(st.tool, st.tool!.name, st.args), locations: st.locations };
}

/** Who could let a call nobody was there to approve run: only a person, or --yes (which needs the sandbox for a command). */
function whoCanApprove(d: PolicyDecision, sandbox: boolean): string {
  if (approvableByMode(d, sandbox)) return 'the user can rerun with --yes';
  if (unapprovable(d)) return 'only a person can approve it: the user would run it in an interactive session';
  return 'a person can approve it in an interactive session; --yes runs it only in the sandbox, which this machine lacks (bubblewrap)';
}

/** The refusal as the model reads it: who refused and what to do instead. */
function refused(st: CallState, sandbox: boolean): ToolCallOutcome {
  const a = st.auth as Extract<Authorization, { kind: 'refuse' }>;
  const d = a.decision;
  const name = st.tool!.name;
  const content =
    a.by === 'hook'
      ? `blocked by a PreToolUse hook: ${d.reason}. Do not retry this call as it is; follow what the hook says or ask the user.`
      : a.by === 'person'
        ? `the user declined this ${name} call (${d.reason}). Do not retry it; ask the user what to do instead.`
        : a.by === 'nobody'
          ? `not run: ${name} needs approval (${d.reason}) and this run has nobody to ask (${whoCanApprove(d, sandbox)}). Do not retry it; finish without it or explain what should be run.`
          : `denied by policy (${d.rule}): ${d.reason}. Do not retry this call; choose another approach or ask the user.`;
  // A hook's block is no policy decision: the outcome keeps none, as before the stages.
  return st.done({ status: 'error', ...(a.by === 'hook' ? {} : { decision: d }), ...(st.answer ? { answer: st.answer } : {}), content });
}
