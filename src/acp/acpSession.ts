// One ACP session: a devx session (startSession: project lock, session record, audit log, policy)
// whose events become `session/update` notifications, whose `ask` decisions become
// `session/request_permission` requests, and whose persona is the ACP mode.
import { findProvider } from '../providers/registry.js';
import * as acp from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../core/loop.js';
import { PersonaError, type SubAgentSource } from '../runtime/agentRun.js';
import { endSession, handoffFor, type Started } from '../runtime/startSession.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { createProseStream, type ProseStream } from './proseStream.js';
import { ToolCallTracker } from './toolCalls.js';
import { promptImages, promptText } from './promptText.js';
import { MAX_IMAGE_BYTES } from '../tools/loadImage.js';
import type { McpServerSetting } from './mcpServers.js';
import { availableCommands, findEditorCommand, type EditorCommand } from './editorCommands.js';
import { escapeForEditor } from './editorText.js';
import { escapeControls } from '../util/terminalText.js';
import { PLAN_MODE, PLAN_MODE_INFO, planOverAcp } from './acpPlan.js';

export const DEFAULT_MODE = 'default';

const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Allow always (this session)', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
];

export class AcpSession {
  private running: AbortController | null = null;
  private sending: Promise<void> = Promise.resolve();
  private readonly tracker: ToolCallTracker;
  private readonly prose: ProseStream;
  started!: Started;

  constructor(
    readonly id: string,
    private readonly client: acp.AgentContext,
    /** MCP servers the client offered, as `mcpServers` settings (started with the session). */
    readonly mcpServers: Record<string, McpServerSetting>,
    private readonly log: (line: string) => void,
    /** devx's own slash commands offered to the editor (/compact, /undo, ...). */
    private readonly commands: EditorCommand[] = [],
  ) {
    this.tracker = new ToolCallTracker(
      () => this.started.run.agent.root,
      () => this.started.run.loopDeps.tools,
    );
    this.prose = createProseStream((text) => this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }));
  }

  /** Binds the devx session once started (the approval callback exists before it does). */
  attach(started: Started): void {
    this.started = started;
  }

  /** Tells the client the commands it can offer as `/name` (ACP's available commands): devx's own, the custom ones and MCP prompts. */
  announceCommands(): void {
    const list = availableCommands(this.commands, this.run.agent.commands);
    if (!list.length) return;
    this.send({ sessionUpdate: 'available_commands_update', availableCommands: list });
  }

  get run() {
    return this.started.run;
  }

  get root(): string {
    return this.started.run.agent.root;
  }

  /** Sends an update (its text with controls shown, never obeyed); updates go out in order, and a turn's response waits for them. */
  send(update: acp.SessionUpdate): void {
    const shown = escapeForEditor(update);
    this.sending = this.sending
      .then(() => this.client.notify(acp.methods.client.session.update, { sessionId: this.id, update: shown }))
      .catch((err: unknown) => this.log(`devx: could not send a session update: ${(err as Error).message}`));
  }

  flushed(): Promise<void> {
    return this.sending;
  }

  modes(): acp.SessionModeState {
    const loaded = this.run.loadAgents();
    // The project's and the user's agents; devx's shipped workflow roles are not modes.
    // Plan mode is a mode too (an agent named "plan" stays reachable by /agent use).
    const agents = [...loaded.agents.values()]
      .filter((a) => a.scope !== 'builtin' && a.name !== PLAN_MODE)
      .map((a) => ({ id: a.name, name: a.name, description: a.description }));
    return escapeForEditor({
      currentModeId: this.run.mode === 'plan' ? PLAN_MODE : (this.run.persona?.name ?? DEFAULT_MODE),
      availableModes: [{ id: DEFAULT_MODE, name: 'devx', description: 'devx without a persona' }, PLAN_MODE_INFO, ...agents],
    });
  }

  /** The session's options an editor shows (ACP's config options): the model, from the provider's list and the one in use. */
  configOptions(): acp.SessionConfigOption[] {
    const current = this.run.model;
    const offered = findProvider(this.run.agent.settings.provider)?.models ?? [];
    const names = [...new Set([current, this.run.agent.settings.model, ...offered])];
    return escapeForEditor([
      { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: current, options: names.map((v) => ({ value: v, name: v })) },
    ]);
  }

  /** `session/set_config_option`: the model for the next turns, kept in the session record for session/load. */
  setConfigOption(configId: string, value: unknown): acp.SessionConfigOption[] {
    if (configId !== 'model') throw acp.RequestError.invalidParams({ configId }, `devx has no option "${configId}"; its options: model`);
    if (typeof value !== 'string' || !value.trim()) throw acp.RequestError.invalidParams({ value }, 'the model is a name, e.g. gemini-2.5-flash');
    this.run.useModel(value.trim());
    this.started.session.setModel(value.trim());
    const options = this.configOptions();
    this.send({ sessionUpdate: 'config_option_update', configOptions: options });
    return options;
  }

  /** `session/set_mode`: plan mode, the persona, or plain devx for the default mode (each leaves plan mode). */
  setMode(modeId: string): void {
    if (modeId === PLAN_MODE) {
      this.run.setMode('plan');
      this.send({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
      return;
    }
    if (this.run.mode === 'plan') this.run.setMode('default');
    try {
      this.run.usePersona(modeId === DEFAULT_MODE ? null : modeId);
    } catch (err) {
      if (err instanceof PersonaError) throw acp.RequestError.invalidParams({ modeId }, err.message);
      throw err;
    }
    // Kept in the session record, so session/load comes back in the same mode.
    this.started.session.setPersona(modeId === DEFAULT_MODE ? undefined : modeId);
    this.send({ sessionUpdate: 'current_mode_update', currentModeId: modeId });
  }

  private readonly onEvent = (e: AgentEvent): void => {
    switch (e.type) {
      case 'model_request':
        this.prose.reset();
        break;
      case 'backend':
        if (e.event.type === 'text_delta') this.prose.add(e.event.text);
        else if (e.event.type === 'notice') this.log(`devx: ${e.event.message}`);
        break;
      case 'assistant_text':
        this.prose.finish(e.text, e.final);
        break;
      case 'tool_start':
        this.send(this.tracker.start(e.tool, e.args));
        break;
      case 'tool_end':
        this.send(this.tracker.end(e.outcome));
        break;
      case 'turn_end':
        for (const u of this.tracker.closeDetached()) this.send(u);
        // A failed turn is the prompt's error (below); running out of rounds is said in the prose.
        if (e.status === 'max_rounds')
          this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n■ ${e.error?.message ?? e.status}` } });
        break;
      default:
        break;
    }
  };

  /** A sub-agent's calls (the agent tool's, spawn_gemini's) are shown as tool calls too, titled with the agent. */
  private readonly onSubEvent = (e: AgentEvent, from: SubAgentSource): void => {
    if (e.type === 'tool_start') this.send(this.tracker.start(e.tool, e.args, 'pending', from));
    else if (e.type === 'tool_end') this.send(this.tracker.end(e.outcome, from));
  };

  /** `session/prompt`: runs one turn; a `session/cancel` (or the request's own cancel) stops it. */
  async prompt(blocks: acp.ContentBlock[], signal: AbortSignal): Promise<acp.PromptResponse> {
    if (this.running) throw acp.RequestError.invalidRequest({ sessionId: this.id }, 'a turn is already running in this session; cancel it first');
    const controller = new AbortController();
    this.running = controller;
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort);
    const unsubscribe = this.run.subscribe(this.onEvent);
    const unsubscribeSub = this.run.subscribeSubAgents(this.onSubEvent);
    this.prose.newTurn();
    let status;
    let error: { kind: string; message: string } | undefined;
    try {
      const text = promptText(blocks);
      const pictures = promptImages(blocks, MAX_IMAGE_BYTES);
      if ('error' in pictures) throw acp.RequestError.invalidParams({ sessionId: this.id }, pictures.error);
      const own = findEditorCommand(this.commands, text);
      if (own) {
        // "/compact", "/undo 2": devx's own command, run here; what it says is the answer (no model turn).
        let said = '';
        await own.command.run(this.started, own.args, own.line, { write: (t) => void (said += t), signal: controller.signal });
        if (said.trim()) this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\`\`\`\n${said.trimEnd()}\n\`\`\`\n` } });
        status = controller.signal.aborted ? 'cancelled' : 'answered';
      } else {
        // "/name args" naming a custom command runs it (its injections through the policy, as in the REPL).
        const viaCommand = text.startsWith('/') ? await this.run.promptCommand(text.trim(), { signal: controller.signal }) : null;
        const r =
          viaCommand ??
          (this.run.mode === 'plan'
            ? await planOverAcp(this.planSession(), text, controller.signal)
            : await this.run.prompt(text, { signal: controller.signal, images: pictures.images }));
        status = r.status;
        error = r.error;
      }
    } finally {
      unsubscribe();
      unsubscribeSub();
      signal.removeEventListener('abort', onAbort);
      this.running = null;
    }
    await this.flushed();
    if (status === 'cancelled' || controller.signal.aborted) return { stopReason: 'cancelled' };
    // A turn that failed (the API, a missing binary, a refused message) is an error with its message, not an answer.
    if (status === 'error') throw new acp.RequestError(-32603, escapeControls(error?.message ?? 'the turn failed'), { kind: error?.kind ?? 'error' });
    return { stopReason: status === 'max_rounds' ? 'max_turn_requests' : 'end_turn' };
  }

  cancel(): void {
    this.running?.abort();
  }

  /** What plan mode needs of this session: its updates, and a permission request for the plan. */
  private planSession() {
    return {
      started: this.started,
      id: this.id,
      send: (u: acp.SessionUpdate) => this.send(u),
      flushed: () => this.flushed(),
      ask: async (params: acp.RequestPermissionRequest, signal: AbortSignal) => {
        const cancelled = new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }));
        try {
          const res = await Promise.race([this.client.request(acp.methods.client.session.requestPermission, escapeForEditor(params)), cancelled]);
          return res?.outcome.outcome === 'selected' ? res.outcome.optionId : null;
        } catch (err) {
          this.log(`devx: the plan's permission request failed: ${(err as Error).message}`);
          return null;
        }
      },
    };
  }

  /** The approval callback of the devx session: asks the client, or refuses once the turn is cancelled. */
  readonly askPermission = async (req: ApprovalRequest): Promise<PersonAnswer> => {
    const turn = this.running;
    if (!turn || turn.signal.aborted) return 'no';
    const { id, announce, toolCall } = this.tracker.forPermission(req);
    if (announce) this.send(announce);
    await this.flushed();
    const asked = this.client.request(acp.methods.client.session.requestPermission, {
      sessionId: this.id,
      toolCall: escapeForEditor(toolCall),
      options: PERMISSION_OPTIONS,
    });
    const cancelled = new Promise<null>((resolve) => turn.signal.addEventListener('abort', () => resolve(null), { once: true }));
    let res: acp.RequestPermissionResponse | null;
    try {
      res = await Promise.race([asked, cancelled]);
    } catch (err) {
      this.log(`devx: the permission request failed: ${(err as Error).message}`);
      return 'no';
    }
    const chosen = res?.outcome.outcome === 'selected' ? res.outcome.optionId : null;
    if (chosen === 'allow_once' || chosen === 'allow_always') {
      this.send(this.tracker.running(id));
      return chosen === 'allow_always' ? 'always' : 'yes';
    }
    if (this.tracker.isDetached(id)) this.send(this.tracker.rejected(id));
    return 'no';
  };

  /** Ends the devx session (lock released, record closed); a handoff is written from the record, never by a model call. */
  async end(): Promise<void> {
    this.cancel();
    const draft = handoffFor(this.started, { interactive: true });
    await endSession(this.started, { draft: draft === 'model' ? 'plain' : draft }).catch((err: unknown) =>
      this.log(`devx: ending session ${this.id}: ${(err as Error).message}`),
    );
    this.started.session.abandon();
    await this.started.run.dispose().catch((err: unknown) => this.log(`devx: ending session ${this.id}: ${(err as Error).message}`));
  }
}
