// One agent run with nobody to ask: a persona, a prompt, a result. Queued tasks, agent runs and
// chains, and workflow steps all run through here.
import path from 'node:path';
import crypto from 'node:crypto';
import type { AgentEvent, TurnStatus } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import type { ApprovalMode } from '../policy/decide.js';
import { ensureDevxDir } from '../session/projectFiles.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import type { ChildObserver, ProcessRunner } from '../util/processRunner.js';
import type { ModelBackend } from '../providers/types.js';
import type { Settings } from '../config/settings.js';
import type { AgentDef } from '../personas/loadAgents.js';
import { AgentRun } from './agentRun.js';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/runToolCall.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';

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
  runner?: ProcessRunner;
  /**
   * Decides the calls the policy asks about that the approval mode does not approve (a flow that may
   * write only its own files). Returning 'headless' refuses the call as an unattended run would.
   */
  approve?: (req: ApprovalRequest) => Promise<ApprovalAnswer>;
}

export interface HeadlessToolCall {
  tool: string;
  args: Record<string, string>;
  summary: string;
  status: 'ok' | 'error';
  decision: string | null;
  answer: string | null;
  durationMs: number;
}

export interface HeadlessResult {
  status: TurnStatus;
  answer?: string;
  error?: { kind: string; message: string };
  rounds: number;
  toolCalls: HeadlessToolCall[];
  usage: { input: number; output: number };
  messages: Message[];
  /** The run's messages and tool calls, under .devx/runs/. */
  transcriptPath: string;
}

/** Calls that did not run because the policy, the approval mode or a person refused them. */
export function refusedCalls(calls: HeadlessToolCall[]): HeadlessToolCall[] {
  return calls.filter((c) => c.status === 'error' && (c.decision === 'deny' || c.answer === 'headless' || c.answer === 'no'));
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
    runner: opts.runner,
    prompt: opts.approve,
  });
  for (const w of run.agent.warnings) opts.onWarning?.(w);
  const toolCalls: HeadlessToolCall[] = [];
  const usage = { input: 0, output: 0 };
  const started = new Date();
  try {
    run.subscribe((e) => {
      if (e.type === 'tool_end') {
        const o = e.outcome;
        toolCalls.push({ tool: o.tool, args: o.args, summary: o.summary, status: o.status, decision: o.decision?.decision ?? null, answer: o.answer ?? null, durationMs: o.durationMs });
      } else if (e.type === 'model_response' && e.usage) {
        usage.input += e.usage.input ?? 0;
        usage.output += e.usage.output ?? 0;
      }
      opts.onEvent?.(e);
    });
    const missing = opts.backend ? null : run.agent.missingBinary([run.agent.settings.provider, ...(run.persona?.provider ? [run.persona.provider] : [])]);
    const r = missing
      ? { status: 'error' as const, error: { kind: 'binary_missing', message: missing }, rounds: 0, added: [] as Message[] }
      : await run.prompt(opts.prompt, { signal: opts.signal });
    const transcriptPath = saveRunTranscript(run.agent.root, started, { persona: run.persona?.name, prompt: opts.prompt, status: r.status, messages: r.added, toolCalls });
    return { status: r.status, answer: 'answer' in r ? r.answer : undefined, error: r.error, rounds: r.rounds, toolCalls, usage, messages: r.added, transcriptPath };
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
