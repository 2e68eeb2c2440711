// Wires one run's runtime from settings (`Agent`, named before the words in docs/agents.md: the
// wiring of a run, not an agent file): project root, provider backends, tools, policy, approvals,
// prompt builder. Every run (REPL, `devx run`, `devx agent run`, queued tasks, workflow steps) is
// built here, through AgentRun or runHeadless, so all of them behave the same.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { withAbsolutePath } from '../util/absolutePath.js';
import type { ResolvedSettings, Settings } from '../config/settings.js';
import { createPolicy } from './createPolicy.js';
import type { ModelBackend } from '../providers/types.js';
import { missingProviderBinary } from './checkBinaries.js';
import type { Tool } from '../tools/types.js';
import { INSTALL_HINT, probeBwrap } from '../sandbox/bwrap.js';
import type { PolicyEngine, ApprovalMode } from '../policy/decide.js';
import { auditFile } from '../audit/auditLog.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { observeChildren, runProcess, type ChildObserver, type ProcessRunner } from '../util/processRunner.js';
import { withPrestarted } from '../util/withPrestarted.js';
import type { AgentEvent, LoopDeps } from '../core/loop.js';
import { historyFile, loadHistory } from '../session/history.js';
import { readProjectNote } from '../session/projectFiles.js';
import type { UndoJournal } from '../session/undoStore.js';
import type { HookRunner } from './hooks.js';
import { customCommandsFor } from './customCommands.js';
import { notToldBefore } from '../session/toldOnce.js';
import type { LoadedCommands } from '../commands/loadCommands.js';
import type { Message } from '../core/messages.js';
import type { SessionHooks } from '../tools/types.js';
import { BackgroundCommands } from '../tools/backgroundCommands.js';
import type { McpManager } from '../mcp/manager.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import type { SharedBackends } from './sharedBackends.js';
import { makeBackends, type Backends } from './wiring/backends.js';
import { makeToolset } from './wiring/toolset.js';
import { makeApprover } from './wiring/approver.js';
import { makeScratch } from './wiring/scratch.js';
import { makeHooks, notifierFor } from './wiring/hooks.js';
import { launchMcp, settleOnce } from './wiring/mcp.js';
import { programsWorkDir } from '../util/untrustedWorkDir.js';
import { makeLoopDeps, renderManual } from './wiring/loopDeps.js';
import { makeUndoJournal } from './wiring/undo.js';

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

/** The composition root of a run: each part comes from its factory (runtime/wiring/), wired here. */
export async function createAgent(given: AgentOptions): Promise<Agent> {
  // Every program the run starts, and every one it looks up, sees PATH's absolute entries only.
  const opts = { ...given, env: withAbsolutePath(given.env) };
  const { root, home, userHome, settings, mode, sandbox, policy } = await createPolicy({
    cwd: opts.cwd,
    env: opts.env,
    overrides: opts.overrides,
    yes: opts.yes,
    approvalMode: opts.approvalMode,
    headless: !opts.prompt,
  });
  const runner = makeRunner(opts);
  const workDir = makeScratch(home);
  const backends = makeBackends({
    settings,
    runner,
    env: definedEnv(opts.env),
    workDir,
    home,
    backend: opts.backend,
    shared: opts.sharedBackends,
    observer: opts.childObserver,
  });
  const changes = makeUndoJournal(root, policy);
  const hookEvents = { emit: (_e: AgentEvent) => {} };
  // Their start, stop and exit go where the run's events go (the audit log), as hooks' do.
  const background = new BackgroundCommands((e) => hookEvents.emit(e));
  // The user's own hooks and MCP servers start outside a project that is not trusted: its files are no program's to pick up.
  const programs = settings.hooks.length + settings.mcpServers.length + (opts.extraMcpServers?.length ?? 0) > 0;
  const programsDir = programsWorkDir(root, settings.trusted, home, programs);
  const hooks = makeHooks({ settings, root, workDir: programsDir, runner, env: opts.env, policy, session: opts.session, emit: (e) => hookEvents.emit(e) });
  const mcp = await launchMcp(settings, { root, workDir: programsDir, home, env: opts.env, extra: opts.extraMcpServers });
  const toolset = makeToolset({ root, home, userHome, settings, mode });
  const { tools, byName, offeredTools } = toolset;
  const approver = makeApprover(byName, opts.prompt, notifierFor(hooks));
  const loaded = loadRunHistory(root, opts.projectHistory);
  const commands = customCommandsFor({ root, home: userHome, devxHome: home, trusted: settings.trusted, importSetup: settings.importSetup }, []);
  const warnings = startWarnings(root, opts.env, sandbox, [
    ...settings.warnings,
    ...(loaded.warning ? [loaded.warning] : []),
    ...toolset.warnings,
    ...commands.warnings,
    ...notToldBefore(home, commands.fileWarnings),
  ]);
  const deps = makeLoopDeps({
    root,
    home,
    runner,
    policy,
    settings,
    env: opts.env,
    changes,
    session: opts.session,
    spawn: opts.spawn,
    runAgent: opts.runAgent,
    mode,
    sandbox,
    backend: backends.backendFor(settings.provider),
    byName,
    offeredTools,
    background,
    approver,
    hooks,
    mcp,
  });
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
    settle: settleOnce(mcp, toolset, commands.loaded, () => (deps.systemPrompt = renderManual(root, offeredTools))),
    changes,
    commands: commands.loaded,
    hooks,
    hookEvents,
    background,
    dispose: () => disposeRun({ background, backends, workDir, mcp }),
  };
}

/** The run's process runner: programs started ahead are adopted, and every child is told to the observer when there is one. */
function makeRunner(opts: AgentOptions): ProcessRunner {
  const base = withPrestarted(opts.runner ?? runProcess);
  return opts.childObserver ? observeChildren(base, opts.childObserver) : base;
}

/** The environment devx was given (tests and embedders pass their own; the CLI passes process.env), without unset names. */
function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A session writes the file: a conversation that is not the user's is moved beside it (session/history.ts). One-shot runs start empty. */
function loadRunHistory(root: string, projectHistory?: boolean): { messages: Message[]; warning?: string } {
  return projectHistory ? loadHistory(historyFile(root), undefined, { setAside: true }) : { messages: [] as Message[], warning: undefined };
}

async function disposeRun(o: { background: BackgroundCommands; backends: Backends; workDir: string; mcp: McpManager | null }): Promise<void> {
  await o.background.stopAll('session');
  // Shared backends belong to the job (a workflow, a chain, a queue runner), which stops them.
  o.backends.dispose();
  // A model CLI that answered may still be exiting inside workDir.
  await awaitLingering();
  fs.rmSync(o.workDir, { recursive: true, force: true });
  await o.mcp?.stop();
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
