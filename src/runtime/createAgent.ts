// Wires one run's runtime from settings (`Agent`, named before the words in docs/agents.md: the
// wiring of a run, not an agent file): project root, provider backends, tools, policy, approvals,
// prompt builder. Every run (REPL, `devx run`, `devx agent run`, queued tasks, workflow steps) is
// built here, through AgentRun or runHeadless, so all of them behave the same.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ResolvedSettings, Settings } from '../config/settings.js';
import { createPolicy } from './createPolicy.js';
import { openStore } from '../knowledge/openStore.js';
import type { KnowledgeStore } from '../knowledge/types.js';
import type { ModelBackend } from '../providers/types.js';
import { imageModelFor } from '../providers/gemini/imageModel.js';
import { missingProviderBinary } from './checkBinaries.js';
import { findExecutable } from '../util/findExecutable.js';
import type { Tool } from '../tools/types.js';
import { resolveInside } from '../sandbox/resolvePath.js';
import { INSTALL_HINT, probeBwrap } from '../sandbox/bwrap.js';
import type { PolicyEngine, ApprovalMode } from '../policy/decide.js';
import { namesHost } from '../policy/webRules.js';
import { loadCommandJudge } from '../policy/loadCommandJudge.js';
import { auditFile } from '../audit/auditLog.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { observeChildren, runProcess, type ChildObserver, type ProcessRunner } from '../util/processRunner.js';
import { withPrestarted } from '../util/withPrestarted.js';
import { buildPrompt } from '../core/buildPrompt.js';
import { renderSystemPrompt } from '../core/systemPrompt.js';
import type { AgentEvent, LoopDeps } from '../core/loop.js';
import { historyFile, loadHistory } from '../session/history.js';
import { readProjectNote } from '../session/projectFiles.js';
import { readOwnHandoff } from '../session/handoff.js';
import { readExtensionContext } from '../extensions/contextFiles.js';
import { UndoJournal } from '../session/undoStore.js';
import { HookRunner, toolHooks } from './hooks.js';
import { customCommandsFor } from './customCommands.js';
import { notToldBefore } from '../session/toldOnce.js';
import { settleMcp } from './settleMcp.js';
import type { LoadedCommands } from '../commands/loadCommands.js';
import type { Message } from '../core/messages.js';
import type { SessionHooks } from '../tools/types.js';
import { BackgroundCommands, endNotice } from '../tools/backgroundCommands.js';
import type { McpManager } from '../mcp/manager.js';
import { packageVersion } from '../util/packageRoot.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import type { SharedBackends } from './sharedBackends.js';
import { makeBackends } from './wiring/backends.js';
import { makeToolset } from './wiring/toolset.js';
import { makeApprover } from './wiring/approver.js';
import { makeScratch } from './wiring/scratch.js';

export interface AgentOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  /** Approve every `ask` without prompting (--yes; the same as --approval-mode yolo). */
  yes?: boolean;
  approvalMode?: ApprovalMode;
  /** Asks the person; absent in headless runs. */
  prompt?: (req: ApprovalRequest) => Promise<PersonAnswer>;
  /** Replaces the provider's backend (tests, benchmarks). */
  backend?: ModelBackend;
  /** Backends shared with the other runs of a job (runtime/sharedBackends.ts): kept, warm, after this run. */
  sharedBackends?: SharedBackends;
  runner?: ProcessRunner;
  /** Told about every child process group this run starts (session lock, task queue). */
  childObserver?: ChildObserver;
  /** The live session (todo and remember tools use it). */
  session?: SessionHooks & { record: { id: string } };
  /** Load the project's conversation (.devx/history.json); one-shot runs start empty. */
  projectHistory?: boolean;
  /** MCP servers beyond the settings' (an ACP client's); they replace settings servers of the same name. */
  extraMcpServers?: import('../config/mcpSettings.js').McpServerEntry[];
  /** Starts a spawn_gemini sub-agent; set by AgentRun, which owns the runtime. */
  spawn?: LoopDeps['ctx']['spawn'];
  /** Starts a sub-agent for the agent tool; set by AgentRun. */
  runAgent?: LoopDeps['ctx']['runAgent'];
}

/** The wiring of one run (settings, backends, tools, policy, hooks, ...): `run.agent`. Not an agent file (AgentDef). */
export interface Agent {
  root: string;
  settings: ResolvedSettings;
  deps: LoopDeps;
  tools: Tool[];
  /** The tools the model is told about: those no permission rule (or plan mode) denies outright. */
  offeredTools: Tool[];
  history: Message[];
  historyPath: string;
  auditPath: string;
  /** The id the audit log records: the session's id when there is one. */
  session: string;
  policy: PolicyEngine;
  mode: ApprovalMode;
  warnings: string[];
  userHome: string;
  devxHome: string;
  /** The backend of a provider (created once per provider and run). */
  backendFor(provider: string): ModelBackend;
  /** Programs the chosen providers need, with the install hint of the first that is missing. */
  missingBinary(providers?: string[]): string | null;
  /** Approvals as a spawn_gemini sub-agent (headless) sees them: the mode approves, nobody is asked. */
  approveHeadless(req: ApprovalRequest): Promise<PersonAnswer>;
  /** The session's MCP servers (null when none is configured); they start in the background. */
  mcp: McpManager | null;
  /**
   * Waits for the MCP servers to start, adds their tools (to `tools`, `offeredTools`, the manual in
   * `deps`) and prompts, and gives the warnings of those that did not start. The same promise each call.
   */
  settle(): Promise<string[]>;
  /** What each turn changed, kept for undo (.devx/undo/); AgentRun marks the turns. */
  changes: UndoJournal;
  /** Custom slash commands (.gemini/commands, .claude/commands, .devx/commands; a project's once trusted). */
  commands: LoadedCommands;
  /** The user's hooks (null when none is configured); their events go where AgentRun points `hookEvents`. */
  hooks: HookRunner | null;
  hookEvents: { emit: (e: AgentEvent) => void };
  /** The session's background commands (run_command background=true); they end with it. */
  background: BackgroundCommands;
  /** Stops the background commands, the providers and MCP servers, and removes the scratch folder. */
  dispose(): Promise<void>;
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
  const base = withPrestarted(opts.runner ?? runProcess);
  const runner = opts.childObserver ? observeChildren(base, opts.childObserver) : base;
  const workDir = makeScratch(home);
  // The environment devx was given (tests and embedders pass their own; the CLI passes process.env).
  const env = Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined));
  const backends = makeBackends({ settings, runner, env, workDir, home, backend: opts.backend, shared: opts.sharedBackends, observer: opts.childObserver });
  const changes = new UndoJournal(root, { readDenied: (p) => policy.isReadDenied(p) });
  const hookEvents = { emit: (_e: AgentEvent) => {} };
  // Their start, stop and exit go where the run's events go (the audit log), as hooks' do.
  const background = new BackgroundCommands((e) => hookEvents.emit(e));
  const hooks = settings.hooks.length
    ? new HookRunner(settings.hooks, {
        root,
        runner,
        session: () => opts.session?.record.id ?? 'none',
        env: opts.env,
        emit: (e) => hookEvents.emit(e),
        mode: () => policy.opts.mode,
        transcript: () =>
          opts.session ? path.join(root, '.devx', 'sessions', `${opts.session.record.id}.transcript.json`) : path.join(root, '.devx', 'history.json'),
      })
    : null;
  const mcp = await launchMcp(settings, opts, root, home);
  const toolset = makeToolset({ root, home, userHome, settings, mode });
  const { tools, byName, offeredTools, offer } = toolset;
  // Notification hooks hear that devx waits for the person (a desktop notifier), as Claude Code tells them.
  const notify = (req: ApprovalRequest) =>
    void hooks
      ?.run('Notification', { message: `devx needs your permission to use ${req.tool}`, notification_type: 'permission_prompt' })
      .catch(() => undefined);
  const approver = makeApprover(byName, opts.prompt, hooks?.has('Notification') ? notify : undefined);
  // A session writes the file: a conversation that is not the user's is moved beside it (session/history.ts).
  const loaded = opts.projectHistory ? loadHistory(historyFile(root), undefined, { setAside: true }) : { messages: [] as Message[], warning: undefined };
  const commands = customCommandsFor({ root, home: userHome, devxHome: home, trusted: settings.trusted, importSetup: settings.importSetup }, []);
  const warnings = startWarnings(root, opts.env, sandbox, [
    ...settings.warnings,
    ...(loaded.warning ? [loaded.warning] : []),
    ...toolset.warnings,
    ...commands.warnings,
    ...notToldBefore(home, commands.fileWarnings),
  ]);
  let settled: Promise<string[]> | undefined;
  const context = readExtensionContext(home, root);
  const deps: LoopDeps = {
    backend: backends.backendFor(settings.provider),
    // Tools such as `agent` are offered only to a persona whose agent file lists them.
    systemPrompt: renderSystemPrompt(
      root,
      offeredTools.filter((t) => !t.onlyWhenListed),
    ),
    tools: byName,
    ctx: {
      ...makeToolContext({ root, home, runner, policy, settings, env: opts.env, changes, session: opts.session, spawn: opts.spawn, runAgent: opts.runAgent }),
      background,
    },
    // The bash parser and the command rules load on the first command to judge, not at every start.
    decide: async (tool, args) => {
      if (tool.commandFor && !policy.canJudgeCommands) policy.useCommandJudge(await loadCommandJudge());
      return policy.judge(tool, args);
    },
    approve: approver.approve,
    mode,
    standing: approver.standing,
    sandbox,
    hooks: hooks ? toolHooks(hooks) : undefined,
    explainUnknown: mcp ? (name) => mcp.explainUnknown(name) : undefined,
    maxOutputChars: settings.maxToolOutputChars,
    buildPrompt: (messages, turnStart) =>
      buildPrompt({
        memory: readProjectNote(root, 'MEMORY.md'),
        handoff: readOwnHandoff(root),
        context,
        messages,
        turnStart,
        budgetChars: settings.contextBudgetChars,
      }).text,
    maxRounds: settings.maxToolRounds,
    concurrency: settings.spawnConcurrency,
    now: () => new Date(),
    // A background command that ended (by itself, or stopped by the person) is told to the model once, before its next request.
    notes: () => background.takeEnded().map(endNotice),
  };
  return {
    root,
    settings,
    deps,
    tools,
    offeredTools,
    history: loaded.messages,
    historyPath: historyFile(root),
    auditPath: auditFile(root),
    session: opts.session?.record.id ?? crypto.randomUUID(),
    policy,
    mode,
    warnings,
    userHome,
    devxHome: home,
    backendFor: backends.backendFor,
    missingBinary: (providers = [settings.provider]) => (opts.backend ? null : missingProviderBinary(settings, opts.env, providers)),
    approveHeadless: async () => 'headless',
    mcp,
    settle: () =>
      (settled ??= mcp
        ? settleMcp(mcp, {
            tools,
            byName,
            offeredTools,
            offer,
            commands: commands.loaded,
            renderManual: () => {
              deps.systemPrompt = renderSystemPrompt(
                root,
                offeredTools.filter((t) => !t.onlyWhenListed),
              );
            },
          })
        : Promise.resolve([])),
    changes,
    commands: commands.loaded,
    hooks,
    hookEvents,
    background,
    dispose: async () => {
      await background.stopAll('session');
      // Shared backends belong to the job (a workflow, a chain, a queue runner), which stops them.
      backends.dispose();
      // A model CLI that answered may still be exiting inside workDir.
      await awaitLingering();
      fs.rmSync(workDir, { recursive: true, force: true });
      await mcp?.stop();
    },
  };
}

/** MCP servers start in the background, in parallel, each within its start-up timeout: the session does not
 * wait for them, its first turn does (settle). The MCP client (and its SDK) loads only for a session that has servers. */
async function launchMcp(settings: ResolvedSettings, opts: AgentOptions, root: string, home: string): Promise<McpManager | null> {
  const extra = opts.extraMcpServers ?? [];
  const servers = [...settings.mcpServers.filter((m) => !extra.some((e) => e.name === m.name)), ...extra];
  return servers.length
    ? (await import('../mcp/manager.js')).McpManager.launch(servers, { root, env: opts.env, version: packageVersion(), devxHome: home })
    : null;
}

/** What a tool may be given of the session (each tool receives only the members it declares). */
function makeToolContext(o: {
  root: string;
  home: string;
  runner: ProcessRunner;
  policy: PolicyEngine;
  settings: ResolvedSettings;
  env: NodeJS.ProcessEnv;
  changes: UndoJournal;
  session?: SessionHooks;
  spawn?: LoopDeps['ctx']['spawn'];
  runAgent?: LoopDeps['ctx']['runAgent'];
}): LoopDeps['ctx'] {
  const { root, policy, settings } = o;
  let store: KnowledgeStore | undefined;
  return {
    root,
    signal: new AbortController().signal,
    runner: o.runner,
    resolve: (p) => resolveInside(root, p),
    readDenied: (p) => policy.isReadDenied(p),
    rgPath: o.env.DEVX_RG === 'none' ? null : findExecutable('rg', o.env),
    commandTimeoutMs: settings.commandTimeoutMs,
    session: o.session,
    spawn: o.spawn,
    runAgent: o.runAgent,
    knowledge: () =>
      (store ??= openStore({ env: o.env, devxHome: o.home, collection: settings.knowledge.collection, embeddings: settings.knowledge.embeddings, cwd: root })),
    changes: o.changes,
    webHostNamed: (host) => namesHost(host, policy.opts.permissions),
    imageModel: () => imageModelFor(settings.provider, o.env),
  };
}

/** The lines said once at start: what did not load, what waits for trust, a note devx will not read, no sandbox. */
function startWarnings(root: string, env: NodeJS.ProcessEnv, sandbox: unknown, loaded: string[]): string[] {
  const warnings = [...loaded];
  // A note devx will not read (a FIFO, a hard link, too large) is left out of every prompt: said once here.
  for (const note of ['MEMORY.md', 'HANDOFF.md'] as const) readProjectNote(root, note, (line) => warnings.push(line));
  if (!sandbox)
    warnings.push(
      `no sandbox: ${probeBwrap(env).why ?? 'bubblewrap is not available'}. Only ls, cat, head, tail, wc, grep, rg and git status/diff/log/show run without a question; everything else asks (yolo refuses what runs project code). To sandbox commands, ${INSTALL_HINT}`,
    );
  return warnings;
}
