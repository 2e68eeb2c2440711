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
import { getProvider } from '../providers/registry.js';
import { imageModelFor } from '../providers/gemini/imageModel.js';
import { missingProviderBinary } from './checkBinaries.js';
import { builtinTools } from '../tools/registry.js';
import { findExecutable } from '../util/findExecutable.js';
import { loadCustomTools } from '../tools/customTools.js';
import type { Tool } from '../tools/types.js';
import { resolveInside } from '../sandbox/resolvePath.js';
import { INSTALL_HINT, probeBwrap } from '../sandbox/bwrap.js';
import type { PolicyEngine, ApprovalMode } from '../policy/decide.js';
import { matchToolRules } from '../policy/permissions.js';
import { namesHost } from '../policy/webRules.js';
import { approvableByMode } from '../policy/types.js';
import { loadCommandJudge } from '../policy/loadCommandJudge.js';
import { auditFile } from '../audit/auditLog.js';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/runToolCall.js';
import { observeChildren, runProcess, type ChildObserver, type ProcessRunner } from '../util/processRunner.js';
import { withPrestarted } from '../util/withPrestarted.js';
import { takeReservedRunName } from '../util/prestart.js';
import { buildPrompt } from '../core/buildPrompt.js';
import { renderSystemPrompt } from '../core/systemPrompt.js';
import type { AgentEvent, LoopDeps } from '../core/loop.js';
import { historyFile, loadHistory } from '../session/history.js';
import { readProjectNote } from '../session/projectFiles.js';
import { isAlive } from '../session/sessionLock.js';
import { UndoJournal } from '../session/undoStore.js';
import { HookRunner, toolHooks } from './hooks.js';
import { customCommandsFor } from './customCommands.js';
import { settleMcp } from './settleMcp.js';
import { loadSkills } from '../personas/loadSkills.js';
import { makeSkillTool } from '../tools/skillTool.js';
import type { LoadedCommands } from '../commands/loadCommands.js';
import type { Message } from '../core/messages.js';
import type { SessionHooks } from '../tools/types.js';
import type { McpManager } from '../mcp/manager.js';
import { packageVersion } from '../util/packageRoot.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import { yamlFilesIn } from '../util/yamlFiles.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import type { SharedBackends } from './sharedBackends.js';

export interface AgentOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  /** Approve every `ask` without prompting (--yes; the same as --approval-mode yolo). */
  yes?: boolean;
  approvalMode?: ApprovalMode;
  /** Asks the person; absent in headless runs. */
  prompt?: (req: ApprovalRequest) => Promise<ApprovalAnswer>;
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
  approveHeadless(req: ApprovalRequest): Promise<ApprovalAnswer>;
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
  /** Stops the providers and MCP servers and removes the scratch folder. */
  dispose(): Promise<void>;
}

/** Scratch folders of devx processes that died without cleaning up (kill -9) are removed at the next start. */
function removeDeadScratch(runDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(runDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(runDir, name), { recursive: true, force: true });
  }
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
  let store: KnowledgeStore | undefined;
  removeDeadScratch(path.join(home, 'run'));
  // A one-shot command's entry point reserved the name (its model CLI may already be starting in it).
  const workDir = path.join(home, 'run', takeReservedRunName(home) ?? `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  mkdirOwnedSync(workDir, 0o700);
  // The environment devx was given (tests and embedders pass their own; the CLI passes process.env).
  const env = Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined));
  const backends = new Map<string, ModelBackend>();
  const backendFor = (id: string): ModelBackend => {
    if (opts.backend) return opts.backend;
    let b = backends.get(id);
    if (!b) {
      const ps = settings.providers[id];
      const make = (dir: string) => getProvider(id).create(ps, { workDir: dir, runner, env, observer: opts.childObserver });
      if (opts.sharedBackends) {
        b = opts.sharedBackends.get(`${id}\0${JSON.stringify(ps)}\0${JSON.stringify(env)}`, home, make);
      } else {
        const dir = path.join(workDir, id);
        mkdirOwnedSync(dir, 0o700);
        b = make(dir);
      }
      backends.set(id, b);
    }
    return b;
  };
  const rgPath = opts.env.DEVX_RG === 'none' ? null : findExecutable('rg', opts.env);
  const changes = new UndoJournal(root, { readDenied: (p) => policy.isReadDenied(p) });
  const hookEvents = { emit: (_e: AgentEvent) => {} };
  const hooks = settings.hooks.length
    ? new HookRunner(settings.hooks, { root, runner, session: () => opts.session?.record.id ?? 'none', env: opts.env, emit: (e) => hookEvents.emit(e) })
    : null;
  const always = new Set<string>();
  const builtins = builtinTools();
  // A project's own tools run programs of its choosing: loaded only once the user trusts the project.
  const projectTools = path.join(root, '.devx', 'tools');
  const custom = loadCustomTools([path.join(home, 'tools'), ...(settings.trusted ? [projectTools] : [])], new Set(builtins.map((t) => t.name)));
  const untrustedTools = settings.trusted ? [] : yamlFilesIn(projectTools);
  // MCP servers start in the background, in parallel, each within its start-up timeout: the session does not
  // wait for them, its first turn does (settle, below). One that fails is a warning line.
  const extra = opts.extraMcpServers ?? [];
  const servers = [...settings.mcpServers.filter((m) => !extra.some((e) => e.name === m.name)), ...extra];
  // The MCP client (and its SDK) loads only for a session that has servers.
  const mcp = servers.length
    ? (await import('../mcp/manager.js')).McpManager.launch(servers, { root, env: opts.env, version: packageVersion(), devxHome: home })
    : null;
  const skills = loadSkills({ root, home: userHome, devxHome: home, trusted: settings.trusted, importSetup: settings.importSetup });
  const skillTools = skills.skills.size ? [makeSkillTool([...skills.skills.values()])] : [];
  const tools = [...builtins, ...custom.tools, ...skillTools];
  const byName = new Map(tools.map((t) => [t.name, t]));
  // "Always" covers the exact command line for tools that run one, and the whole tool otherwise.
  const approvalKey = (req: ApprovalRequest) => {
    const cmd = byName.get(req.tool)?.commandFor;
    return cmd ? `${req.tool}:${cmd(req.args)}` : req.tool;
  };
  // yolo approves the asks whose whole effect devx knows (the policy refused the others already); auto-edit
  // approves file edits. A deny never reaches approval; what a mode approves runs held to the policy's claim.
  const approvedByMode = (req: ApprovalRequest) =>
    approvableByMode(req.decision, Boolean(sandbox)) && (mode === 'yolo' || (mode === 'auto-edit' && byName.get(req.tool)?.kind === 'write'));
  const approve = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    if (approvedByMode(req)) return 'auto';
    if (always.has(approvalKey(req))) return 'yes';
    if (!opts.prompt) return 'headless';
    const answer = await opts.prompt(req);
    if (answer === 'always') always.add(approvalKey(req));
    return answer;
  };
  // The manual lists only what the model may call: a bare deny rule or plan mode removes a tool from it
  // (a call to it still gets the policy's answer).
  const offer = (t: Tool) =>
    matchToolRules(t, [], { rules: settings.permissionRules, root, home: userHome })?.kind !== 'deny' && !(mode === 'plan' && t.kind === 'write');
  const offeredTools = tools.filter(offer);
  const loaded = opts.projectHistory ? loadHistory(historyFile(root)) : { messages: [] as Message[], warning: undefined };
  const warnings = [...settings.warnings, ...(loaded.warning ? [loaded.warning] : [])];
  for (const e of custom.errors) warnings.push(`custom tool ${e.file} was not loaded: ${e.message}`);
  const commands = customCommandsFor({ root, home: userHome, devxHome: home, trusted: settings.trusted, importSetup: settings.importSetup }, []);
  warnings.push(...commands.warnings);
  // A note devx will not read (a FIFO, a hard link, too large) is left out of every prompt: said once here.
  for (const note of ['MEMORY.md', 'HANDOFF.md'] as const) readProjectNote(root, note, (line) => warnings.push(line));
  for (const e of skills.errors) warnings.push(`skill ${e.file}${e.line ? `:${e.line}` : ''} was not loaded: ${e.message}`);
  if (skills.untrusted.length) warnings.push(`this project has skills (${skills.untrusted.join(', ')}); run \`devx trust\` to allow them`);
  if (untrustedTools.length)
    warnings.push(`this project asks for its own tools (${untrustedTools.join(', ')} in .devx/tools); run \`devx trust\` to allow them`);
  if (!sandbox)
    warnings.push(
      `no sandbox: ${probeBwrap(opts.env).why ?? 'bubblewrap is not available'}. Only ls, cat, head, tail, wc, grep, rg and git status/diff/log/show run without a question; everything else asks (yolo refuses what runs project code). To sandbox commands, ${INSTALL_HINT}`,
    );
  let settled: Promise<string[]> | undefined;
  const deps: LoopDeps = {
    backend: backendFor(settings.provider),
    // Tools such as `agent` are offered only to a persona whose agent file lists them.
    systemPrompt: renderSystemPrompt(
      root,
      offeredTools.filter((t) => !t.onlyWhenListed),
    ),
    tools: byName,
    ctx: {
      root,
      signal: new AbortController().signal,
      runner,
      resolve: (p) => resolveInside(root, p),
      readDenied: (p) => policy.isReadDenied(p),
      rgPath,
      commandTimeoutMs: settings.commandTimeoutMs,
      session: opts.session,
      spawn: opts.spawn,
      runAgent: opts.runAgent,
      knowledge: () =>
        (store ??= openStore({
          env: opts.env,
          devxHome: home,
          collection: settings.knowledge.collection,
          embeddings: settings.knowledge.embeddings,
          cwd: root,
        })),
      changes,
      webHostNamed: (host) => namesHost(host, policy.opts.permissions),
      imageModel: () => imageModelFor(settings.provider, opts.env),
    },
    // The bash parser and the command rules load on the first command to judge, not at every start.
    decide: async (tool, args) => {
      if (tool.commandFor && !policy.canJudgeCommands) policy.useCommandJudge(await loadCommandJudge());
      return policy.decideToolCall(tool, args);
    },
    approve,
    sandbox,
    hooks: hooks ? toolHooks(hooks) : undefined,
    explainUnknown: mcp ? (name) => mcp.explainUnknown(name) : undefined,
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
    backendFor,
    missingBinary: (providers = [settings.provider]) => (opts.backend ? null : missingProviderBinary(settings, opts.env, providers)),
    approveHeadless: async (req) => (approvedByMode(req) ? 'auto' : 'headless'),
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
    dispose: async () => {
      // Shared backends belong to the job (a workflow, a chain, a queue runner), which stops them.
      if (!opts.sharedBackends) for (const b of backends.values()) b.dispose?.();
      // A model CLI that answered may still be exiting inside workDir.
      await awaitLingering();
      fs.rmSync(workDir, { recursive: true, force: true });
      await mcp?.stop();
    },
  };
}
