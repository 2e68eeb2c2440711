// One run with nobody to ask: a persona, a prompt, a result. Queued tasks, `devx agent run` (and its
// chains), and workflow steps all run through here.
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentEvent, TurnStatus } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import type { UsageTotals } from '../core/usageMeter.js';
import type { ApprovalMode } from '../policy/decide.js';
import type { WriteScope } from '../policy/writeScope.js';
import { ensureDevxDir } from '../session/projectFiles.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import type { ChildObserver, ProcessRunner } from '../util/processRunner.js';
import type { ModelBackend } from '../providers/types.js';
import type { Settings } from '../config/settings.js';
import type { AgentDef } from '../personas/loadAgents.js';
import { AgentRun } from './agentRun.js';
import type { SharedBackends } from './sharedBackends.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { summarizePlan, type PlanSummary } from '../tools/planSummary.js';

export interface HeadlessOptions {
  prompt: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  persona?: string | AgentDef;
  approval?: ApprovalMode;
  provider?: string;
  model?: string;
  signal?: AbortSignal;
  dryRun?: boolean;
  overrides?: Partial<Settings>;
  /** Every event of the run (logs, renderers). */
  onEvent?: (e: AgentEvent) => void;
  /** Start-up warnings (settings, an MCP server that did not start), before the run. */
  onWarning?: (warning: string) => void;
  childObserver?: ChildObserver;
  backend?: ModelBackend;
  /** Backends shared with the job's other runs (a workflow, a chain, a queue runner): one warm model process for all. */
  sharedBackends?: SharedBackends;
  runner?: ProcessRunner;
  /**
   * Decides the calls the policy asks about that the approval mode does not approve (a flow that may
   * write only its own files). Returning 'headless' refuses the call as an unattended run would.
   */
  approve?: (req: ApprovalRequest) => Promise<PersonAnswer>;
  /** The only paths the run may write (a queued task); the policy refuses writes elsewhere. */
  writeScope?: WriteScope;
}

export interface HeadlessToolCall {
  tool: string;
  args: Record<string, string>;
  summary: string;
  status: 'ok' | 'error';
  decision: string | null;
  /** The rule that decided (policy), and its reason. */
  rule: string | null;
  reason: string | null;
  answer: string | null;
  durationMs: number;
  /** The call changes files: 'file' for a write tool, 'command' for a command the policy judged to write. */
  writes: 'file' | 'command' | null;
  /** What the tool said when it failed (its first line). */
  error?: string;
  /** The file change it made or, in a dry run, would make: the summary of the tool's plan, as the audit log keeps it. */
  plan?: PlanSummary;
}

export interface HeadlessResult {
  status: TurnStatus;
  answer?: string;
  error?: { kind: string; message: string };
  rounds: number;
  toolCalls: HeadlessToolCall[];
  /** Tokens (input, cached, output), requests and time of the run's model calls, its sub-agents' included. */
  usage: Pick<UsageTotals, 'input' | 'output'> & Partial<UsageTotals>;
  messages: Message[];
  /** The run's messages and tool calls, under .devx/runs/. */
  transcriptPath: string;
}

/** Calls that did not run because the policy, the approval mode or a person refused them. */
export function refusedCalls(calls: HeadlessToolCall[]): HeadlessToolCall[] {
  return calls.filter(refused);
}

const refused = (c: HeadlessToolCall) => c.status === 'error' && (c.decision === 'deny' || c.answer === 'headless' || c.answer === 'no');

/**
 * Writes that did not happen: refused calls that change files and file writes that failed (a command
 * that ran and exited non-zero is not one), except a file tool's call on a path a later call of the
 * run wrote successfully (the model tried again and it stood).
 */
export function failedWrites(calls: HeadlessToolCall[]): HeadlessToolCall[] {
  const target = (c: HeadlessToolCall) => (c.writes === 'file' ? (c.args.path ?? null) : null);
  return calls.filter(
    (c, i) =>
      c.status === 'error' &&
      (c.writes === 'file' || (c.writes === 'command' && refused(c))) &&
      !calls.slice(i + 1).some((l) => l.status === 'ok' && target(l) !== null && target(l) === target(c)),
  );
}

/** A call that did not happen, and why: `write_file notes.md (denied: … [rule])`. */
export function describeFailedCall(c: HeadlessToolCall): string {
  const why =
    c.decision === 'deny'
      ? `denied: ${c.reason} [${c.rule}]`
      : c.answer === 'headless'
        ? `needs approval: ${c.reason} [${c.rule}]`
        : c.answer === 'no'
          ? 'declined'
          : `failed: ${c.error ?? 'no message'}`;
  return `${c.summary} (${why})`;
}

export function describeCalls(calls: HeadlessToolCall[]): string {
  return calls.map(describeFailedCall).join('; ');
}

export async function runHeadless(opts: HeadlessOptions): Promise<HeadlessResult> {
  const run = await AgentRun.create({
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    approvalMode: opts.approval,
    provider: opts.provider,
    model: opts.model,
    overrides: opts.overrides,
    dryRun: opts.dryRun,
    persona: opts.persona,
    childObserver: opts.childObserver,
    backend: opts.backend,
    sharedBackends: opts.sharedBackends,
    runner: opts.runner,
    prompt: opts.approve,
  });
  try {
    // devx's own folder and logs are checked before anything runs: a planted audit log stops the run here.
    ensureDevxDir(run.agent.root);
  } catch (err) {
    await run.dispose();
    throw err;
  }
  if (opts.writeScope) run.agent.policy.limitWrites(opts.writeScope);
  for (const w of [...run.agent.warnings, ...(await run.ready())]) opts.onWarning?.(w);
  const toolCalls: HeadlessToolCall[] = [];
  const started = new Date();
  try {
    run.subscribe((e) => {
      if (e.type === 'tool_end') {
        const o = e.outcome;
        const claim = o.decision?.claim;
        const writes =
          run.agent.deps.tools.get(o.tool)?.kind === 'write' ? 'file' : claim && (claim.writes.length || claim.profile !== 'read-only') ? 'command' : null;
        toolCalls.push({
          tool: o.tool,
          args: o.args,
          summary: o.summary,
          status: o.status,
          decision: o.decision?.decision ?? null,
          rule: o.decision?.rule ?? null,
          reason: o.decision?.reason ?? null,
          answer: o.answer ?? null,
          durationMs: o.durationMs,
          writes,
          ...(o.plan ? { plan: summarizePlan(o.plan) } : {}),
          ...(o.status === 'error'
            ? {
                error: o.content
                  .split('\n')
                  .find((l) => l.trim())
                  ?.slice(0, 300),
              }
            : {}),
        });
      }
      opts.onEvent?.(e);
    });
    const missing = opts.backend ? null : run.agent.missingBinary([run.agent.settings.provider, ...(run.persona?.provider ? [run.persona.provider] : [])]);
    const r = missing
      ? { status: 'error' as const, error: { kind: 'binary_missing', message: missing }, rounds: 0, added: [] as Message[] }
      : await run.prompt(opts.prompt, { signal: opts.signal });
    const transcriptPath = saveRunTranscript(run.agent.root, started, {
      persona: run.persona?.name,
      prompt: opts.prompt,
      status: r.status,
      messages: r.added,
      toolCalls,
      usage: run.usage.session,
    });
    return {
      status: r.status,
      answer: 'answer' in r ? r.answer : undefined,
      error: r.error,
      rounds: r.rounds,
      toolCalls,
      usage: { ...run.usage.session },
      messages: r.added,
      transcriptPath,
    };
  } finally {
    await run.dispose();
  }
}

function saveRunTranscript(root: string, started: Date, record: Record<string, unknown>): string {
  const dir = path.join(ensureDevxDir(root), 'runs');
  mkdirOwnedSync(dir);
  const file = path.join(dir, `${started.toISOString().replace(/[:.]/g, '-')}-${crypto.randomBytes(3).toString('hex')}.json`);
  writeFileAtomicSync(file, `${JSON.stringify({ version: 1, startedAt: started.toISOString(), ...record }, null, 1)}\n`);
  return file;
}
