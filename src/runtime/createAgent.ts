// Wires one agent from settings: project root, backend, tools, policy, approvals, prompt builder.
// Shared by the REPL and `devx run`, so both behave the same.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ResolvedSettings, Settings } from '../config/settings.js';
import { createPolicy } from '../policy/createPolicy.js';
import { openStore } from '../knowledge/openStore.js';
import type { KnowledgeStore } from '../knowledge/types.js';
import { GeminiCliBackend } from '../backend/geminiCli.js';
import type { ModelBackend } from '../backend/types.js';
import { builtinTools } from '../tools/registry.js';
import { findExecutable } from '../util/findExecutable.js';
import { loadCustomTools } from '../tools/customTools.js';
import type { Tool } from '../tools/types.js';
import { resolveInside } from '../sandbox/resolvePath.js';
import type { PolicyEngine, ApprovalMode } from '../policy/decide.js';
import { auditFile } from '../audit/auditLog.js';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/runToolCall.js';
import { runProcess, type ProcessRunner } from '../util/processRunner.js';
import { buildPrompt } from '../agent/buildPrompt.js';
import { renderSystemPrompt } from '../agent/systemPrompt.js';
import { runTurn, type AgentEvent, type LoopDeps } from '../agent/loop.js';
import { loadAgents } from '../agents/loadAgents.js';
import { applyAgent } from '../agents/applyAgent.js';
import type { Message } from '../agent/messages.js';
import { historyFile, loadHistory } from '../session/history.js';
import { readProjectNote } from '../session/projectFiles.js';

export interface AgentOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  /** Approve every `ask` without prompting (--yes; the same as --approval-mode yolo). */
  yes?: boolean;
  approvalMode?: ApprovalMode;
  /** Asks the person; absent in headless runs. */
  prompt?: (req: ApprovalRequest) => Promise<ApprovalAnswer>;
  backend?: ModelBackend;
  runner?: ProcessRunner;
  /** The live session (todo and remember tools use it). */
  session?: import('../session/session.js').Session;
}

export interface Agent {
  root: string;
  settings: ResolvedSettings;
  deps: LoopDeps;
  tools: Tool[];
  history: Message[];
  historyPath: string;
  auditPath: string;
  session: string;
  policy: PolicyEngine;
  mode: ApprovalMode;
  warnings: string[];
  /** Listeners for events of spawn_gemini sub-sessions (the audit log subscribes). */
  subListeners: ((e: AgentEvent) => void)[];
  /** The persona in use (/agent use), if any. */
  activeAgent?: string;
  userHome: string;
  devxHome: string;
  dispose(): void;
}

function approvalKey(req: ApprovalRequest): string {
  return req.tool === 'run_command' ? `run_command:${String(req.args.cmd)}` : req.tool;
}

export async function createAgent(opts: AgentOptions): Promise<Agent> {
  const { root, home, userHome, settings, mode, sandbox, policy } = await createPolicy({
    cwd: opts.cwd,
    env: opts.env,
    overrides: opts.overrides,
    yes: opts.yes,
    approvalMode: opts.approvalMode,
    headless: !opts.prompt,
  });
  const runner = opts.runner ?? runProcess;
  let store: KnowledgeStore | undefined;
  const workDir = path.join(home, 'run', `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const backend =
    opts.backend ??
    new GeminiCliBackend({
      bin: settings.geminiBin,
      model: settings.model,
      fallbackModel: settings.fallbackModel,
      accounts: settings.accounts,
      workDir,
      timeoutMs: settings.geminiTimeoutMs,
      maxRetries: settings.maxRetries,
      baseDelayMs: settings.retryBaseMs,
      maxDelayMs: settings.retryMaxMs,
      runner,
      // The environment devx was given (tests and embedders pass their own; the CLI passes process.env).
      env: Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined)),
    });
  const rgPath = opts.env.DEVX_RG === 'none' ? null : findExecutable('rg', opts.env);
  const always = new Set<string>();
  const builtins = builtinTools();
  const custom = loadCustomTools([path.join(home, 'tools'), path.join(root, '.devx', 'tools')], new Set(builtins.map((t) => t.name)));
  const tools = [...builtins, ...custom.tools];
  const kinds = new Map(tools.map((t) => [t.name, t.kind]));
  // yolo approves every ask; auto-edit approves file edits. A deny never reaches approval.
  const approvedByMode = (req: ApprovalRequest) => mode === 'yolo' || (mode === 'auto-edit' && kinds.get(req.tool) === 'write');
  const approve = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    if (approvedByMode(req)) return 'yes';
    if (always.has(approvalKey(req))) return 'yes';
    if (!opts.prompt) return 'headless';
    const answer = await opts.prompt(req);
    if (answer === 'always') always.add(approvalKey(req));
    return answer;
  };
  const loaded = loadHistory(historyFile(root));
  const subListeners: ((e: AgentEvent) => void)[] = [];
  // spawn_gemini: a headless sub-session with the same backend (accounts keep rotating), policy and
  // tools, minus spawn_gemini itself (depth limit 1). Nobody is asked inside it: asks are refused
  // unless the approval mode approves them.
  const subTools = tools.filter((t) => t.name !== 'spawn_gemini');
  let subSystemPrompt: string | undefined;
  const spawn = async (query: string, agentName: string | undefined, signal: AbortSignal) => {
    let sub: LoopDeps = {
      ...deps,
      // spawn_gemini stays callable (it explains the depth limit) but is not offered in the manual.
      systemPrompt: (subSystemPrompt ??= renderSystemPrompt(root, subTools)),
      ctx: { ...deps.ctx, spawn: undefined, session: undefined },
      approve: async (req) => (approvedByMode(req) ? 'yes' : 'headless'),
      buildPrompt: (messages, turnStart) => buildPrompt({ messages, turnStart, budgetChars: settings.contextBudgetChars }).text,
    };
    if (agentName) {
      const found = loadAgents(root, userHome, home).agents.get(agentName);
      if (!found) return { answer: `no agent named "${agentName}"; see devx agent list`, status: 'error' };
      sub = applyAgent(sub, subTools, root, found);
    }
    const r = await runTurn(sub, [], query, { signal, emit: (e) => subListeners.forEach((l) => l(e)) });
    return { answer: r.answer ?? r.error?.message ?? '(no answer)', status: r.status };
  };
  const warnings = [...settings.warnings, ...(loaded.warning ? [loaded.warning] : [])];
  for (const e of custom.errors) warnings.push(`custom tool ${e.file} was not loaded: ${e.message}`);
  if (!sandbox) warnings.push('bubblewrap (bwrap) is not available, so test runners ask before running; install the "bubblewrap" package to sandbox them');
  const deps: LoopDeps = {
    backend,
    systemPrompt: renderSystemPrompt(root, tools),
    tools: new Map(tools.map((t) => [t.name, t])),
    ctx: {
      root,
      signal: new AbortController().signal,
      runner,
      resolve: (p) => resolveInside(root, p),
      rgPath,
      commandTimeoutMs: settings.commandTimeoutMs,
      session: opts.session,
      spawn,
      knowledge: () => (store ??= openStore({ env: opts.env, devxHome: home, collection: settings.knowledge.collection, embeddings: settings.knowledge.embeddings, cwd: root })),
    },
    decide: (tool, args) => policy.decideToolCall(tool, args),
    approve,
    sandbox,
    maxOutputChars: settings.maxToolOutputChars,
    buildPrompt: (messages, turnStart) =>
      buildPrompt({
        memory: readProjectNote(root, 'MEMORY.md'),
        handoff: readProjectNote(root, 'HANDOFF.md'),
        messages,
        turnStart,
        budgetChars: settings.contextBudgetChars,
      }).text,
    maxRounds: settings.maxToolRounds,
    concurrency: settings.spawnConcurrency,
    now: () => new Date(),
  };
  return {
    root,
    settings,
    deps,
    tools,
    history: loaded.messages,
    historyPath: historyFile(root),
    auditPath: auditFile(root),
    session: crypto.randomUUID(),
    policy,
    mode,
    warnings,
    subListeners,
    userHome,
    devxHome: home,
    dispose: () => fs.rmSync(workDir, { recursive: true, force: true }),
  };
}
