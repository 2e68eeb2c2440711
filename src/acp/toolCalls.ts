// devx tool calls as ACP tool calls: an id per call, the kind and one-line title from the tool,
// the paths it touches as locations, and file edits as diffs: the tool's planned change (Tool.plan, the
// one object the confirmation, a dry run and the audit log use too), at the permission request and once
// it ran. Only a write tool that does not plan (generate_image) is diffed from the file before and after.
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describeCall, type PlannedChange, type Tool } from '../tools/types.js';
import type { ApprovalRequest, ToolCallOutcome } from '../tools/runToolCall.js';
import { readTextOrNull } from '../util/readRegularFileSync.js';
import { shownForApproval } from '../util/terminalText.js';
import type { SubAgentSource } from '../runtime/agentRun.js';

/** Diffs of files larger than this are not sent (the edit is still reported). */
const MAX_DIFF_BYTES = 1_000_000;
/** How much of a tool's result the client sees in the tool call. */
const MAX_RESULT_CHARS = 4000;
const SEARCH_TOOLS = new Set(['search_code', 'glob', 'query_qdrant']);

/** The ACP kind of a devx tool (the client picks its icon from it). */
export function acpKind(tool: Pick<Tool, 'name' | 'kind'> | undefined): acp.ToolKind {
  if (!tool) return 'other';
  if (SEARCH_TOOLS.has(tool.name)) return 'search';
  if (tool.kind === 'read') return 'read';
  if (tool.kind === 'write') return 'edit';
  if (tool.kind === 'execute') return 'execute';
  return 'other';
}

interface OpenCall {
  id: string;
  tool: string;
  /** The sub-agent whose call it is (the agent tool's agent name, or a spawn_gemini key); absent for the session's. */
  by?: string;
  /** The title's `[agent helper] ` for a sub-agent's call. */
  label: string;
  /** Files a write tool without a plan writes, with their text before it ran (null: absent or too large). */
  before: Map<string, string | null>;
}

function readText(abs: string): string | null {
  return readTextOrNull(abs, MAX_DIFF_BYTES, 'any');
}

/** A planned change as an ACP diff; null without a plan, or for a file too large to send. */
function planAsDiff(p: PlannedChange | undefined): acp.ToolCallContent | null {
  const size = (t: string | null) => (t === null ? 0 : Buffer.byteLength(t));
  if (!p || size(p.oldText) > MAX_DIFF_BYTES || size(p.newText) > MAX_DIFF_BYTES) return null;
  return { type: 'diff', path: p.path, oldText: p.oldText, newText: p.newText };
}

export class ToolCallTracker {
  private n = 0;
  private readonly open: OpenCall[] = [];
  /** Calls announced for a permission request only (a sub-agent's call): closed when the turn ends. */
  private readonly detached: string[] = [];

  constructor(
    private readonly root: () => string,
    private readonly tools: () => Map<string, Tool>,
    private readonly prefix = 'call',
  ) {}

  private locationsOf(tool: Tool | undefined, args: Record<string, unknown>): { path: string; intent: string }[] {
    try {
      return (tool?.locations?.(args) ?? []).map((l) => ({ path: path.resolve(this.root(), l.path), intent: l.intent }));
    } catch {
      return [];
    }
  }

  /**
   * The `tool_call` update announcing a call the loop is about to run; a sub-agent's (`from`) is titled with the
   * agent it comes from, `[agent helper] read a.txt`.
   */
  start(name: string, args: Record<string, unknown>, status: acp.ToolCallStatus = 'pending', from?: SubAgentSource): acp.SessionUpdate {
    const tool = this.tools().get(name);
    const id = `${this.prefix}_${++this.n}`;
    const locations = this.locationsOf(tool, args);
    const before = new Map<string, string | null>();
    if (tool?.kind === 'write' && !tool.plan) for (const l of locations) if (l.intent === 'write') before.set(l.path, readText(l.path));
    const label = from ? `[${from.tool === 'agent' ? 'agent' : 'spawn_gemini'}${from.name ? ` ${shownForApproval(from.name)}` : ''}] ` : '';
    this.open.push({ id, tool: name, before, by: from && keyOf(from), label });
    return {
      sessionUpdate: 'tool_call',
      toolCallId: id,
      title: label + describeCall(tool, name, args),
      kind: acpKind(tool),
      status,
      locations: locations.map((l) => ({ path: l.path })),
      rawInput: args,
    };
  }

  /** The call a permission request is about (the oldest open call of that tool), announcing it if the loop did not. */
  forPermission(req: ApprovalRequest): { id: string; announce?: acp.SessionUpdate; toolCall: acp.ToolCallUpdate } {
    let call = this.open.find((c) => c.tool === req.tool && c.by === req.by);
    let announce: acp.SessionUpdate | undefined;
    if (!call) {
      announce = this.start(req.tool, req.args, 'pending', req.by === undefined ? undefined : { tool: 'agent', name: req.by });
      call = this.open.pop()!;
      this.detached.push(call.id);
    }
    const tool = this.tools().get(req.tool);
    const locations = req.locations.map((l) => ({ path: path.resolve(this.root(), l.path) }));
    return {
      id: call.id,
      announce,
      toolCall: {
        toolCallId: call.id,
        // The editor shows it as the question, as the terminal does: hidden characters shown, newlines and padding
        // (blanks, fillers like U+3164) unable to push a command's end out of view.
        title: `${req.by ? `[agent ${shownForApproval(req.by)}] ` : ''}${shownForApproval(req.summary)}`,
        kind: acpKind(tool),
        status: 'pending',
        locations,
        content: this.plannedContent(req),
        rawInput: req.args,
      },
    };
  }

  /** What the call would do: the tool's planned change as a diff (the text devx then writes), else its preview. */
  private plannedContent(req: ApprovalRequest): acp.ToolCallContent[] {
    const diff = planAsDiff(req.plan);
    if (diff) return [diff];
    return req.preview ? [{ type: 'content', content: { type: 'text', text: req.preview } }] : [];
  }

  /**
   * At the end of a turn: the sub-agents' calls announced for a permission request only are done (their results
   * went to the sub-agent); one a sub-agent started and never ended (it was stopped) did not finish.
   */
  closeDetached(): acp.SessionUpdate[] {
    const done = this.detached.splice(0).map((id): acp.SessionUpdate => ({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed' }));
    const cut = this.open.filter((c) => c.by !== undefined);
    this.open.splice(0, this.open.length, ...this.open.filter((c) => c.by === undefined));
    return [...done, ...cut.map((c): acp.SessionUpdate => ({ sessionUpdate: 'tool_call_update', toolCallId: c.id, status: 'failed' }))];
  }

  /** A rejected call of a sub-agent: it will not run. */
  rejected(id: string): acp.SessionUpdate {
    const i = this.detached.indexOf(id);
    if (i !== -1) this.detached.splice(i, 1);
    return { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' };
  }

  /** Whether a call was announced for a permission request only. */
  isDetached(id: string): boolean {
    return this.detached.includes(id);
  }

  /** The update once the call was approved and runs. */
  running(id: string): acp.SessionUpdate {
    return { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' };
  }

  /** The update for a finished call (a sub-agent's: `from`): completed or failed, with the diffs it made or its result. */
  end(outcome: ToolCallOutcome, from?: SubAgentSource): acp.SessionUpdate {
    const by = from && keyOf(from);
    const i = this.open.findIndex((c) => c.tool === outcome.tool && c.by === by);
    const call = i === -1 ? undefined : this.open.splice(i, 1)[0];
    const id = call?.id ?? `${this.prefix}_${++this.n}`;
    const content: acp.ToolCallContent[] = [];
    const p = outcome.plan;
    const planned = outcome.status === 'ok' && p && p.oldText !== p.newText ? planAsDiff(p) : null;
    if (planned) content.push(planned);
    else if (call && outcome.status === 'ok') {
      for (const [file, oldText] of call.before) {
        const newText = readText(file);
        if (newText !== null && newText !== oldText) content.push({ type: 'diff', path: file, oldText, newText });
      }
    }
    if (!content.length && outcome.content) {
      const text = outcome.content.length > MAX_RESULT_CHARS ? `${outcome.content.slice(0, MAX_RESULT_CHARS)}\n…` : outcome.content;
      content.push({ type: 'content', content: { type: 'text', text } });
    }
    const title = (call?.label ?? '') + outcome.summary;
    return { sessionUpdate: 'tool_call_update', toolCallId: id, status: outcome.status === 'ok' ? 'completed' : 'failed', title, content };
  }
}

/** The key a sub-agent's calls are matched by: the agent tool's agent name (what its permission requests carry as `by`). */
function keyOf(from: SubAgentSource): string {
  return from.tool === 'agent' ? (from.name ?? '') : `\0spawn_gemini:${from.name ?? ''}`;
}
