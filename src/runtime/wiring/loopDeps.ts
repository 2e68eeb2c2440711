// What the loop of one run is given (core/loop.ts's LoopDeps): the backend, the manual, the tools and the
// context each is handed, the policy's judgement, approvals, hooks, and the prompt builder.
import type { ResolvedSettings } from '../../config/settings.js';
import { buildPrompt } from '../../core/buildPrompt.js';
import type { LoopDeps } from '../../core/loop.js';
import { renderSystemPrompt } from '../../core/systemPrompt.js';
import { readExtensionContext } from '../../extensions/contextFiles.js';
import { openStore } from '../../knowledge/openStore.js';
import type { KnowledgeStore } from '../../knowledge/types.js';
import { projectView } from '../../knowledge/projectView.js';
import type { McpManager } from '../../mcp/manager.js';
import type { PolicyEngine, ApprovalMode } from '../../policy/decide.js';
import { loadCommandJudge } from '../../policy/loadCommandJudge.js';
import { namesHost } from '../../policy/webRules.js';
import { imageModelFor } from '../../providers/gemini/imageModel.js';
import type { ModelBackend } from '../../providers/types.js';
import { resolveInside } from '../../sandbox/resolvePath.js';
import { readOwnHandoff } from '../../session/handoff.js';
import { readProjectNote } from '../../session/projectFiles.js';
import type { UndoJournal } from '../../session/undoStore.js';
import { endNotice, type BackgroundCommands } from '../../tools/backgroundCommands.js';
import type { SessionHooks, Tool } from '../../tools/types.js';
import { findExecutable } from '../../util/findExecutable.js';
import type { ProcessRunner } from '../../util/processRunner.js';
import { toolHooks, type HookRunner } from '../hooks.js';
import type { Approver } from './approver.js';

/** What a tool may be given of the session (each tool receives only the members it declares). */
export interface ToolContextParts {
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
}

export function makeLoopDeps(
  o: ToolContextParts & {
    mode: ApprovalMode;
    sandbox: LoopDeps['sandbox'];
    backend: ModelBackend;
    byName: Map<string, Tool>;
    offeredTools: Tool[];
    background: BackgroundCommands;
    approver: Approver;
    hooks: HookRunner | null;
    mcp: McpManager | null;
  },
): LoopDeps {
  const { root, settings, policy, mcp, hooks, background } = o;
  const context = readExtensionContext(o.home, root);
  return {
    backend: o.backend,
    systemPrompt: renderManual(root, o.offeredTools),
    tools: o.byName,
    ctx: { ...makeToolContext(o), background },
    // The bash parser and the command rules load on the first command to judge, not at every start.
    decide: async (tool, args) => {
      if (tool.commandFor && !policy.canJudgeCommands) policy.useCommandJudge(await loadCommandJudge());
      return policy.judge(tool, args);
    },
    approve: o.approver.approve,
    mode: o.mode,
    standing: o.approver.standing,
    sandbox: o.sandbox,
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
}

/** The manual (system prompt) for the tools offered; tools such as `agent` are offered only to a persona whose agent file lists them. */
export function renderManual(root: string, offeredTools: Tool[]): string {
  return renderSystemPrompt(
    root,
    offeredTools.filter((t) => !t.onlyWhenListed),
  );
}

function makeToolContext(o: ToolContextParts): LoopDeps['ctx'] {
  const { root, policy, settings } = o;
  let store: KnowledgeStore | undefined;
  return {
    root,
    signal: new AbortController().signal,
    runner: o.runner,
    env: o.env,
    resolve: (p) => resolveInside(root, p),
    readDenied: (p) => policy.isReadDenied(p),
    rgPath: o.env.DEVX_RG === 'none' ? null : findExecutable('rg', o.env),
    commandTimeoutMs: settings.commandTimeoutMs,
    session: o.session,
    spawn: o.spawn,
    runAgent: o.runAgent,
    knowledge: () => (store ??= knowledgeFor(settings, root, o)),
    changes: o.changes,
    webHostNamed: (host) => namesHost(host, policy.opts.permissions),
    imageModel: () => imageModelFor(settings.provider, o.env),
  };
}

/** The knowledge store the tools see: all of it in a trusted project, this project's own notes in any other. */
function knowledgeFor(settings: ResolvedSettings, root: string, o: { env: NodeJS.ProcessEnv; home: string }): KnowledgeStore {
  const store = openStore({ env: o.env, devxHome: o.home, collection: settings.knowledge.collection, embeddings: settings.knowledge.embeddings, cwd: root });
  return settings.trusted ? store : projectView(store, root);
}
