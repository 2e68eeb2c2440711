// A run (docs/agents.md, "Words used here"): the loop with its conversation, as a persona or as plain
// devx; AgentRun is "a run of an agent", not an agent. The one way anything runs the loop (with
// runHeadless, built on it). It owns the wiring (createAgent), the conversation, the persona, the audit
// log and the sub-agents its tool calls start (spawn_gemini, the agent tool), and reports everything
// as events to its subscribers; it does no terminal I/O.
import { runTurn, type AgentEvent, type LoopDeps, type TurnResult } from '../core/loop.js';
import type { Message } from '../core/messages.js';
import type { ApprovalMode } from '../policy/types.js';
import { buildPrompt } from '../core/buildPrompt.js';
import { renderSystemPrompt } from '../core/systemPrompt.js';
import { applyAgent, AgentConfigError } from '../personas/applyAgent.js';
import { findAgent, loadAgents, PersonaError, type AgentDef } from '../personas/loadAgents.js';
import { saveHistory } from '../session/history.js';
import { createHistoryWriter } from '../session/historyWriter.js';
import { createAuditSubscriber } from '../audit/auditLog.js';
import { createAgent, type Agent, type AgentOptions } from './createAgent.js';
import { attachImages } from './attachImages.js';
import type { EditorFs } from '../tools/types.js';
import { whenAborted } from '../util/whenAborted.js';
import type { LoadedImage } from '../tools/loadImage.js';
import { attachResources } from './attachResources.js';
import { expandCustomCommand, findCustomCommand } from './customCommands.js';
import { compactHistory, compactionDue, oversizedInput, type CompactResult } from './compaction.js';
import { UsageMeter } from '../core/usageMeter.js';

export type Listener = (e: AgentEvent) => void;
/** Which sub-agent an event is from: the agent tool's named agent, or a spawn_gemini sub-agent (its agent, if any). */
export interface SubAgentSource {
  tool: 'agent' | 'spawn_gemini';
  name?: string;
}
export type SubListener = (e: AgentEvent, from: SubAgentSource) => void;

export interface AgentRunOptions extends Omit<AgentOptions, 'spawn' | 'runAgent' | 'projectHistory'> {
  /**
   * 'project': the conversation continues .devx/history.json and is saved after every message; 'fresh': the
   * model starts with an empty conversation (a one-shot run, as `gemini -p` and `claude -p` do), whose messages
   * are still added to .devx/history.json for a later --continue; 'none': nothing is kept.
   */
  history?: 'project' | 'fresh' | 'none';
  /** The persona to start with: an agent name or a loaded definition. */
  persona?: string | AgentDef;
  /** The model and provider for this run (they win over the persona's). */
  model?: string;
  provider?: string;
  /** Report tool calls without running them, with the decision the policy would make. */
  dryRun?: boolean;
  /** Stream the model's text as it arrives (`text_delta` events), where the provider can. */
  stream?: boolean;
}

export { PersonaError };

export class AgentRun {
  readonly agent: Agent;
  private readonly listeners = new Set<Listener>();
  private readonly subListeners = new Set<SubListener>();
  private base: LoopDeps;
  private deps: LoopDeps;
  private personaName?: string;
  private personaDef?: AgentDef;
  private readonly keepHistory: boolean;
  private readonly over: { model?: string; provider?: string };
  /** What the model calls of this run cost, per turn and for the session (sub-agents' calls included). */
  readonly usage = new UsageMeter();
  /** The model chosen for the session (useModel): wins over the persona's, as --model does. */
  get model(): string {
    return this.deps.model ?? this.agent.settings.model;
  }

  /** The approval mode the next calls are judged in. */
  get mode(): ApprovalMode {
    return this.agent.policy.opts.mode;
  }

  /**
   * Judges the next calls in `mode` (Shift+Tab, /plan, an approved plan, ACP's mode option): the policy's view,
   * the call pipeline's authorization and what hooks are told all follow it. A persona keeps its tools.
   */
  setMode(mode: ApprovalMode): void {
    this.agent.policy.opts.mode = mode;
    this.agent.mode = mode;
    this.base = { ...this.base, mode };
    this.deps = { ...this.deps, mode };
  }

  /** Uses `model` for the next turns (ACP's model option); the persona, if any, keeps its tools and prompt. */
  useModel(model: string): void {
    this.over.model = model;
    this.base.model = model;
    if (this.personaDef) this.usePersona(this.personaName ?? this.personaDef);
    else this.deps = this.base;
  }

  private constructor(agent: Agent, opts: AgentRunOptions) {
    this.agent = agent;
    this.keepHistory = opts.history === 'project' || opts.history === 'fresh';
    this.ownConversation = opts.history === 'fresh' ? [] : null;
    this.over = { model: opts.model, provider: opts.provider };
    this.base = { ...agent.deps, dryRun: opts.dryRun, stream: opts.stream, model: opts.model ?? agent.deps.model };
    this.deps = this.base;
    const audit = createAuditSubscriber(agent.auditPath, agent.session);
    this.listeners.add(audit);
    this.subListeners.add(audit);
    this.listeners.add((e) => this.usage.observe(e));
    this.subListeners.add((e) => this.usage.observe(e, true));
    // Saved after every message, atomically, so a killed process loses at most the one in flight.
    if (this.keepHistory) this.listeners.add(createHistoryWriter(agent.root, agent.historyPath, agent.history));
    agent.hookEvents.emit = this.emit;
  }

  /** A fresh run's own messages: what its model sees instead of the project's conversation. */
  private ownConversation: Message[] | null;

  /** The conversation the next turn starts from. */
  private conversation(): Message[] {
    if (this.ownConversation) return [...this.ownConversation];
    return this.keepHistory ? [...this.agent.history] : [];
  }

  /** What SessionStart hooks said, added to the next message. */
  private hookContext: string[] = [];

  /** Runs the SessionStart hooks; what they print is context for the first turn. */
  async sessionStart(source: 'startup' | 'resume' = 'startup'): Promise<void> {
    const h = this.agent.hooks;
    if (!h?.has('SessionStart')) return;
    const v = await h.run('SessionStart', { source });
    this.hookContext.push(...v.context);
  }

  static async create(opts: AgentRunOptions): Promise<AgentRun> {
    let self: AgentRun | undefined;
    const agent = await createAgent({
      ...opts,
      overrides: { ...opts.overrides, ...(opts.provider ? { provider: opts.provider } : {}), ...(opts.model ? { model: opts.model } : {}) },
      projectHistory: opts.history === 'project' || opts.history === 'fresh',
      spawn: (query, name, signal, account) => self!.spawn(query, name, signal, account),
      runAgent: (name, input, signal) => self!.runAgentTool(name, input, signal),
    });
    self = new AgentRun(agent, opts);
    if (opts.persona !== undefined) self.usePersona(opts.persona);
    return self;
  }

  private readying?: Promise<string[]>;

  /**
   * Waits for the session's MCP servers (they start in the background while devx starts): their tools
   * join the manual, with the persona's applied again. Gives the warnings of servers that did not
   * start (the same list at every call). Every turn waits for it; so may a surface that shows tools.
   */
  ready(): Promise<string[]> {
    return (this.readying ??= this.agent.settle().then((warnings) => {
      this.base.systemPrompt = this.agent.deps.systemPrompt;
      this.subSystemPrompt = undefined;
      if (this.personaDef) {
        try {
          this.usePersona(this.personaName ?? this.personaDef);
        } catch {
          /* the persona stays as it was; the next turn reports a broken agent file */
        }
      }
      return warnings;
    }));
  }

  get history(): Message[] {
    return this.agent.history;
  }

  /** The active persona, if any. */
  get persona(): AgentDef | undefined {
    return this.personaDef;
  }

  /** The loop's dependencies as the next turn will use them (persona applied). */
  get loopDeps(): LoopDeps {
    return this.deps;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Events of sub-agents, spawn_gemini's and the agent tool's (the REPL shows their progress through `subtask` events instead). */
  subscribeSubAgents(listener: SubListener): () => void {
    this.subListeners.add(listener);
    return () => this.subListeners.delete(listener);
  }

  private emit = (e: AgentEvent): void => {
    for (const l of this.listeners) l(e);
  };

  /**
   * A `/name args` line naming a custom command: its text (injections fetched through the policy) is sent
   * as the message. Null when the line names none.
   */
  async promptCommand(line: string, opts: { signal?: AbortSignal } = {}): Promise<TurnResult | null> {
    await this.ready(); // MCP prompts are commands too
    const found = findCustomCommand(this.agent.commands, line);
    if (!found) return null;
    const signal = opts.signal ?? new AbortController().signal;
    const r = await expandCustomCommand(found.cmd, found.args, this.deps, this.emit, signal, this.agent.mcp);
    if ('error' in r) {
      const error = { kind: 'command', message: r.error };
      this.emit({ type: 'turn_start', input: line });
      this.emit({ type: 'turn_end', status: 'error', error, rounds: 0 });
      return { status: 'error', error, rounds: 0, added: [] };
    }
    return this.prompt(r.text, { signal });
  }

  /** Runs one turn. The conversation continues only for 'project' runs; other runs start fresh each time. */
  async prompt(input: string, opts: { signal?: AbortSignal; images?: LoadedImage[] } = {}): Promise<TurnResult> {
    this.usage.beginTurn();
    // A Ctrl-C while MCP servers still start ends the turn at once (the loop sees the signal first).
    await Promise.race([this.ready(), whenAborted(opts.signal)]);
    // An edited agent file (or its memory file) takes effect on the next turn.
    if (this.personaName) this.usePersona(this.personaName);
    // `@server:uri` attaches an MCP resource; a mention that cannot be read stops the message with the reason.
    const withResources = await attachResources(input, this.agent.mcp, opts.signal ?? new AbortController().signal);
    if (!withResources.ok) {
      const error = { kind: 'resource', message: withResources.message };
      this.emit({ type: 'turn_start', input });
      this.emit({ type: 'turn_end', status: 'error', error, rounds: 0 });
      return { status: 'error', error, rounds: 0, added: [] };
    }
    input = withResources.input;
    const tooBig = oversizedInput(input, this.agent.root, this.agent.settings.contextBudgetChars);
    const attached = tooBig ? { ok: false as const, message: tooBig } : await attachImages(input, this.deps);
    if (!attached.ok) {
      // Nothing is sent: the user fixes the mention (or shortens the message) and asks again.
      const error = { kind: tooBig ? 'too_large' : 'image', message: attached.message };
      this.emit({ type: 'turn_start', input });
      this.emit({ type: 'turn_end', status: 'error', error, rounds: 0 });
      return { status: 'error', error, rounds: 0, added: [] };
    }
    const hooks = this.agent.hooks;
    hooks?.newPrompt();
    if (hooks?.has('UserPromptSubmit')) {
      // A UserPromptSubmit hook may stop the message before it is sent, or add context to it.
      const v = await hooks.run('UserPromptSubmit', { prompt: input }, undefined, opts.signal);
      if (v.block) {
        const error = { kind: 'hook', message: `a UserPromptSubmit hook stopped this message: ${v.block}` };
        this.emit({ type: 'turn_start', input });
        this.emit({ type: 'turn_end', status: 'error', error, rounds: 0 });
        return { status: 'error', error, rounds: 0, added: [] };
      }
      this.hookContext.push(...v.context);
    }
    if (this.hookContext.length) input = `${input}\n\n[context from your hooks]\n${this.hookContext.splice(0).join('\n')}`;
    if (this.keepHistory && !this.ownConversation) await this.autoCompact(input, opts.signal);
    const history = this.conversation();
    // What the turn changes is kept for undo under this turn (its input line names it).
    this.agent.changes.beginTurn(input);
    try {
      const signal = opts.signal ?? new AbortController().signal;
      let r = await runTurn(this.deps, history, input, { signal, emit: this.emit, images: [...(opts.images ?? []), ...attached.images] });
      // Stop hooks may send the model back to work, with their reason (three times at most).
      let seen = [...history, ...r.added];
      for (let i = 0; i < 3 && r.status === 'answered' && hooks?.has('Stop'); i++) {
        const answer = r.answer ?? '';
        // Claude Code's fields, Gemini CLI's (AfterAgent) and devx's own name for the answer.
        const v = await hooks.run(
          'Stop',
          {
            stop_hook_active: i > 0,
            last_assistant_message: answer,
            background_tasks: [],
            session_crons: [],
            prompt: input,
            prompt_response: answer,
            last_answer: answer,
          },
          undefined,
          signal,
        );
        if (!v.block) break;
        const next = await runTurn(
          this.deps,
          this.keepHistory && !this.ownConversation ? [...this.agent.history] : seen,
          `[a Stop hook asks you to go on: ${v.block}]`,
          {
            signal,
            emit: this.emit,
          },
        );
        seen = [...seen, ...next.added];
        r = { ...next, added: [...r.added, ...next.added] };
      }
      this.ownConversation?.push(...r.added);
      return r;
    } finally {
      this.agent.changes.endTurn();
    }
  }

  /** Turns to wait after a failed automatic compaction before trying again. */
  private compactPause = 0;

  private async autoCompact(input: string, signal?: AbortSignal): Promise<void> {
    if (this.compactPause > 0) return void this.compactPause--;
    const s = this.agent.settings;
    if (!compactionDue(this.agent.history, input, this.agent.root, s.contextBudgetChars, s.compactThreshold)) return;
    if ((await this.compact({ signal }, 'auto')).status === 'failed') this.compactPause = 3;
  }

  /** Summarises the older turns of the conversation into one note with one model call (/compact; automatic near the budget). */
  async compact(opts: { signal?: AbortSignal } = {}, reason: 'auto' | 'asked' = 'asked'): Promise<CompactResult> {
    if (!this.keepHistory) return { status: 'nothing', message: 'nothing to compact: this run keeps no conversation' };
    const hooks = this.agent.hooks;
    if (hooks?.has('PreCompact'))
      await hooks.run('PreCompact', { trigger: reason === 'auto' ? 'auto' : 'manual', custom_instructions: '' }, undefined, opts.signal);
    const save = () => saveHistory(this.agent.historyPath, this.agent.history);
    return compactHistory(
      {
        root: this.agent.root,
        history: this.agent.history,
        budgetChars: this.agent.settings.contextBudgetChars,
        backend: this.deps.backend,
        model: this.deps.model,
        emit: this.emit,
        save,
        now: this.deps.now,
        signal: opts.signal,
      },
      reason,
    );
  }

  /** Reads and writes files through an editor (ACP's fs methods) from now on, for this run and its persona. */
  useEditorFs(editorFs: EditorFs | undefined): void {
    this.base.ctx = { ...this.base.ctx, editorFs };
    this.deps = this.personaDef ? { ...this.deps, ctx: { ...this.deps.ctx, editorFs } } : this.base;
  }

  /** Switches persona by name or definition; null goes back to plain devx. Throws PersonaError. */
  usePersona(persona: string | AgentDef | null): AgentDef | undefined {
    if (persona === null) {
      this.personaName = undefined;
      this.personaDef = undefined;
      this.deps = this.base;
      return undefined;
    }
    const def = typeof persona === 'string' ? findAgent(this.loadAgents(), persona) : persona;
    try {
      this.deps = applyAgent(this.base, this.agent.offeredTools, this.agent.root, def, { ...this.over, backendFor: this.agent.backendFor });
    } catch (err) {
      if (err instanceof AgentConfigError) throw new PersonaError(err.message);
      throw err;
    }
    this.personaName = typeof persona === 'string' ? persona : undefined;
    this.personaDef = def;
    return def;
  }

  loadAgents() {
    return loadAgents(this.agent.root, this.agent.userHome, this.agent.devxHome);
  }

  /** Forgets the conversation. */
  reset(): void {
    this.agent.history.length = 0;
    if (this.keepHistory) saveHistory(this.agent.historyPath, this.agent.history);
  }

  async dispose(): Promise<void> {
    // SessionEnd hooks see the session go (their failure never keeps it).
    if (this.agent.hooks?.has('SessionEnd')) await this.agent.hooks.run('SessionEnd', { reason: 'other' }).catch(() => undefined);
    // Background commands end with the session, their stop and exit still told (the audit log).
    await this.agent.background.stopAll('session');
    this.listeners.clear();
    this.subListeners.clear();
    return this.agent.dispose();
  }

  private subSystemPrompt?: string;

  /**
   * spawn_gemini: a sub-agent (a headless run) with the same backend (accounts keep rotating), policy and
   * tools, minus those that start sub-agents (depth limit 1). Nobody is asked inside it: asks are refused
   * unless the approval mode approves them.
   */
  private async spawn(query: string, agentName: string | undefined, signal: AbortSignal, account?: string): Promise<{ answer: string; status: string }> {
    const subTools = this.agent.offeredTools.filter((t) => !t.spawnsAgents);
    let sub: LoopDeps = {
      ...this.base,
      // spawn_gemini stays callable (it explains the depth limit) but is not offered in the manual.
      systemPrompt: (this.subSystemPrompt ??= renderSystemPrompt(this.agent.root, subTools)),
      ctx: { ...this.base.ctx, spawn: undefined, runAgent: undefined, callableAgents: undefined, session: undefined },
      approve: this.agent.approveHeadless,
      standing: undefined, // the person's "always" answers are theirs, not a sub-agent's
      notes: undefined, // the session's notes are for its own model, not a sub-agent's
      buildPrompt: (messages, turnStart) => buildPrompt({ messages, turnStart, budgetChars: this.agent.settings.contextBudgetChars }).text,
    };
    if (agentName) {
      try {
        sub = applyAgent(sub, subTools, this.agent.root, findAgent(this.loadAgents(), agentName), { backendFor: this.agent.backendFor });
      } catch (err) {
        if (err instanceof PersonaError || err instanceof AgentConfigError) return { answer: err.message, status: 'error' };
        throw err;
      }
    }
    // account=…: every model call of the sub-agent on that account (the backend says if there is none).
    if (account) {
      const backend = sub.backend;
      sub = { ...sub, backend: { complete: (req, onEvent) => backend.complete({ ...req, account }, onEvent) } };
    }
    const from: SubAgentSource = { tool: 'spawn_gemini', name: agentName };
    const r = await runTurn(sub, [], query, { signal, emit: (e) => this.subListeners.forEach((l) => l(e, from)) });
    const hooks = this.agent.hooks;
    if (hooks?.has('SubagentStop'))
      await hooks.run(
        'SubagentStop',
        { stop_hook_active: false, agent_type: agentName ?? 'spawn_gemini', last_assistant_message: r.answer ?? '' },
        undefined,
        signal,
      );
    return { answer: r.answer ?? r.error?.message ?? '(no answer)', status: r.status };
  }

  /**
   * The agent tool: a sub-agent that runs the named agent headless with its own prompt, tools and model,
   * under the same policy and depth limit as spawn_gemini (it cannot start sub-agents). Its calls are approved
   * as its caller's would be: the agent tool runs one call at a time, so a person can still be asked.
   */
  private async runAgentTool(name: string, input: string, signal: AbortSignal): Promise<{ answer: string; status: string }> {
    const subTools = this.agent.offeredTools.filter((t) => !t.spawnsAgents);
    let sub: LoopDeps = {
      ...this.base,
      ctx: { ...this.base.ctx, spawn: undefined, runAgent: undefined, callableAgents: undefined, session: undefined },
      buildPrompt: (messages, turnStart) => buildPrompt({ messages, turnStart, budgetChars: this.agent.settings.contextBudgetChars }).text,
      notes: undefined,
      // The person is asked as for the session's own calls, told which agent asks; "always" answers stay with that agent.
      approve: (req) => this.base.approve({ ...req, by: name }),
      standing: this.base.standing && ((req) => this.base.standing!({ ...req, by: name })),
    };
    try {
      sub = applyAgent(sub, subTools, this.agent.root, findAgent(this.loadAgents(), name), { backendFor: this.agent.backendFor });
    } catch (err) {
      if (err instanceof PersonaError || err instanceof AgentConfigError) return { answer: err.message, status: 'error' };
      throw err;
    }
    const from: SubAgentSource = { tool: 'agent', name };
    const r = await runTurn(sub, [], input, { signal, emit: (e) => this.subListeners.forEach((l) => l(e, from)) });
    return { answer: r.answer ?? r.error?.message ?? '(no answer)', status: r.status };
  }
}
