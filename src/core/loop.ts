// devx's loop, which every run runs (docs/agents.md, "Words used here"): call the model, parse
// TOOL_CALL lines, run the tools, feed TOOL_RESULT blocks back, until the model answers in prose. It
// does no I/O of its own: everything it does is reported as events, and the REPL, the session writer
// and headless output subscribe to them.
import type { Message } from './messages.js';
import type { BackendEvent, ModelBackend, TokenUsage } from '../providers/types.js';
import { BackendError } from '../providers/types.js';
import { parseToolCalls, type ParseResult } from '../protocol/parseToolCalls.js';
import { formatToolResult } from '../protocol/formatToolResult.js';
import { runToolCall, type ToolCallDeps, type ToolCallOutcome } from '../tools/runToolCall.js';
import { describeCall, type SubtaskProgress } from '../tools/types.js';
import type { BackgroundEvent } from '../tools/backgroundCommands.js';
import { planCall } from '../tools/planSummary.js';
import pLimit from 'p-limit';
import type { LoadedImage } from '../tools/loadImage.js';
import type { CompactionEvent } from './compact.js';
import { decisionInMode } from '../policy/authorize.js';

/** How often the same refused or failing call may be made in one turn. */
export const REPEAT_LIMIT = 3;

export type TurnStatus = 'answered' | 'max_rounds' | 'cancelled' | 'error';

/** What a run's loop reports as it goes (named before the words in docs/agents.md: a run's events). */
export type AgentEvent =
  | { type: 'turn_start'; input: string }
  | { type: 'message'; message: Message }
  | { type: 'model_request'; round: number; promptChars: number }
  | { type: 'backend'; event: BackendEvent }
  | { type: 'model_response'; round: number; chars: number; model: string; account?: string; usage?: TokenUsage; durationMs: number }
  | { type: 'assistant_text'; text: string; final: boolean }
  | { type: 'parse_issues'; errors: ParseResult['errors']; warnings: string[] }
  | { type: 'tool_start'; tool: string; args: Record<string, string> }
  | { type: 'tool_end'; outcome: ToolCallOutcome }
  | { type: 'subtask'; progress: SubtaskProgress }
  /** Output of a running command as it arrives (the REPL shows its last line, or all of it with Ctrl-O). */
  | { type: 'tool_output'; tool: string; text: string }
  /** An approved call starts executing (after any confirmation). */
  | { type: 'tool_running'; tool: string }
  /** A hook ran (runtime/hooks.ts): what it decided, for the person and the audit log. */
  | {
      type: 'hook';
      event: string;
      command: string;
      file: string;
      tool?: string;
      outcome: 'ok' | 'blocked' | 'error';
      exitCode: number | null;
      durationMs: number;
      message?: string;
    }
  | { type: 'turn_end'; status: TurnStatus; answer?: string; error?: { kind: string; message: string }; rounds: number }
  /** A background command started, was asked to stop, or ended (run_command background=true). */
  | BackgroundEvent
  | CompactionEvent;

export interface LoopDeps extends ToolCallDeps {
  backend: ModelBackend;
  systemPrompt: string;
  /** Renders the prompt for the given messages (budget, memory and handoff included). */
  buildPrompt(messages: Message[], turnStart: number): string;
  maxRounds: number;
  now(): Date;
  /** When set, tool calls are reported but not executed (agent --dry-run). */
  dryRun?: boolean;
  /** Model for this persona or run (else the backend's configured model). */
  model?: string;
  /** How many concurrent-safe calls (spawn_gemini) of one reply run at once. Default 4. */
  concurrency?: number;
  /** Ask the provider for the reply's text as it arrives (reported as `text_delta` backend events). */
  stream?: boolean;
  /**
   * What the model should hear before its next request (a background command that ended), each given once:
   * the loop asks before every request and adds what comes back as a note from devx. The runtime supplies it;
   * the loop itself looks at nothing outside the turn.
   */
  notes?: () => string[];
}

export interface TurnResult {
  status: TurnStatus;
  answer?: string;
  error?: { kind: string; message: string };
  rounds: number;
  /** Messages this turn added to the conversation. */
  added: Message[];
}

function protocolFeedback(parsed: ParseResult): string[] {
  const blocks: string[] = [];
  for (const e of parsed.errors) {
    blocks.push(
      formatToolResult({
        tool: e.tool ?? 'protocol',
        status: 'error',
        meta: { line: e.line },
        content: `${e.message}. The call was not run; fix it and send it again.`,
      }),
    );
  }
  if (parsed.warnings.length) {
    blocks.push(formatToolResult({ tool: 'protocol', status: 'error', content: parsed.warnings.map((w) => `warning: ${w}`).join('\n') }));
  }
  return blocks;
}

/** The conversation as the turn grows it: each message added is reported, and its images go with every request of the turn. */
interface TurnLog {
  messages: Message[];
  added: Message[];
  /** The bytes of this turn's images (the user's @mentions, analyze_image results). */
  images: LoadedImage[];
  push(role: Message['role'], content: string, images?: LoadedImage[]): void;
  /** Reports the turn's end and returns its result. */
  finish(r: Omit<TurnResult, 'added'>): TurnResult;
}

/** What one turn's rounds share. */
interface Turn {
  deps: LoopDeps;
  callDeps: ToolCallDeps;
  log: TurnLog;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  /** Where this turn's messages start in the conversation. */
  turnStart: number;
  limit: ReturnType<typeof pLimit>;
  repeats: RepeatedFailures;
}

/** The same call refused or failing again and again is a model stuck in a loop: the third time ends the turn. */
interface RepeatedFailures {
  failed: Map<string, { count: number; summary: string }>;
  /** The summary of the first call that failed REPEAT_LIMIT times. */
  stuck: string | null;
}

type ParsedCall = ParseResult['calls'][number];

export async function runTurn(
  deps: LoopDeps,
  history: readonly Message[],
  input: string,
  opts: { signal: AbortSignal; emit: (e: AgentEvent) => void; images?: LoadedImage[] },
): Promise<TurnResult> {
  const { emit, signal } = opts;
  const log = startTurnLog(deps, history, emit);
  emit({ type: 'turn_start', input });
  const turn: Turn = {
    deps,
    callDeps: toolCallDeps(deps, signal, emit),
    log,
    signal,
    emit,
    turnStart: log.messages.length,
    limit: pLimit(deps.concurrency ?? 4),
    repeats: { failed: new Map(), stuck: null },
  };
  log.push('user', input, opts.images);
  for (let round = 1; round <= deps.maxRounds; round++) {
    const ended = await runRound(turn, round);
    if (ended) return ended;
  }
  const message = `Stopped after ${deps.maxRounds} tool rounds without a final answer. Say "continue" to let the model go on, or give it more direction.`;
  log.push('devx', message);
  return log.finish({ status: 'max_rounds', rounds: deps.maxRounds, error: { kind: 'max_rounds', message } });
}

function startTurnLog(deps: LoopDeps, history: readonly Message[], emit: (e: AgentEvent) => void): TurnLog {
  const log: TurnLog = {
    messages: [...history],
    added: [],
    images: [],
    push(role, content, images = []) {
      const m: Message = {
        role,
        content,
        at: deps.now().toISOString(),
        ...(images.length ? { images: images.map(({ path, mimeType, bytes }) => ({ path, mimeType, bytes })) } : {}),
      };
      log.images.push(...images);
      log.messages.push(m);
      log.added.push(m);
      emit({ type: 'message', message: m });
    },
    finish(r) {
      emit({ type: 'turn_end', ...r });
      return { ...r, added: log.added };
    },
  };
  return log;
}

/** The tools' view of the turn: its signal, and their progress and output reported as events. */
function toolCallDeps(deps: LoopDeps, signal: AbortSignal, emit: (e: AgentEvent) => void): ToolCallDeps {
  return {
    ...deps,
    ctx: {
      ...deps.ctx,
      signal,
      progress: (p) => emit({ type: 'subtask', progress: p }),
      output: (tool, text) => emit({ type: 'tool_output', tool, text }),
      started: (tool) => emit({ type: 'tool_running', tool }),
    },
  };
}

/** One round: a model request, then its calls run. Returns the turn's result when the turn ends here, else null. */
async function runRound(turn: Turn, round: number): Promise<TurnResult | null> {
  const { deps, log, signal, emit } = turn;
  if (signal.aborted) return cancelTurn(log, round - 1);
  // Between turns (with the user's message) or between tool rounds: a note in the conversation, said once.
  const notes = deps.notes?.() ?? [];
  if (notes.length) log.push('devx', notes.join('\n'));
  const prompt = deps.buildPrompt(log.messages, turn.turnStart);
  emit({ type: 'model_request', round, promptChars: prompt.length });
  let reply;
  try {
    reply = await requestReply(turn, prompt);
  } catch (err) {
    return endOnFailedRequest(turn, err, round);
  }
  emit({
    type: 'model_response',
    round,
    chars: reply.text.length,
    model: reply.model,
    account: reply.account,
    usage: reply.usage,
    durationMs: reply.durationMs,
  });
  const parsed = parseToolCalls(reply.text);
  log.push('assistant', parsed.kept);
  if (parsed.errors.length || parsed.warnings.length) emit({ type: 'parse_issues', errors: parsed.errors, warnings: parsed.warnings });

  const needsRetry = parsed.errors.length > 0 || parsed.ignoredInCodeBlocks.length > 0 || parsed.hallucinatedResult;
  if (parsed.calls.length === 0 && !needsRetry) {
    emit({ type: 'assistant_text', text: parsed.prose, final: true });
    return log.finish({ status: 'answered', answer: parsed.prose, rounds: round });
  }
  if (parsed.prose) emit({ type: 'assistant_text', text: parsed.prose, final: false });

  const roundImages: LoadedImage[] = [];
  const feedback = protocolFeedback(parsed);
  const blocks = await runCalls(turn, parsed.calls, roundImages);
  log.push('tool', [...feedback, ...blocks].join('\n\n'), roundImages);
  if (deps.dryRun) return log.finish({ status: 'answered', answer: parsed.prose, rounds: round });
  if (turn.repeats.stuck) {
    const message = `Stopped: the model made the same call ${REPEAT_LIMIT} times and it was refused or failed each time (${turn.repeats.stuck}). Tell it what to do instead, or run it yourself.`;
    log.push('devx', message);
    return log.finish({ status: 'error', error: { kind: 'repeated_call', message }, rounds: round });
  }
  return null;
}

function requestReply(turn: Turn, prompt: string) {
  const { deps, emit, signal } = turn;
  const onDelta = deps.stream ? (text: string) => emit({ type: 'backend', event: { type: 'text_delta', text } }) : undefined;
  const images = turn.log.images.length ? turn.log.images.map(({ mimeType, data, path }) => ({ mimeType, data, path })) : undefined;
  return deps.backend.complete({ prompt, systemPrompt: deps.systemPrompt, signal, model: deps.model, onDelta, images }, (event) =>
    emit({ type: 'backend', event }),
  );
}

function endOnFailedRequest(turn: Turn, err: unknown, round: number): TurnResult {
  if (turn.signal.aborted || (err instanceof BackendError && err.kind === 'cancelled')) return cancelTurn(turn.log, round - 1);
  const kind = err instanceof BackendError ? err.kind : 'internal';
  const message = (err as Error).message;
  turn.log.push('devx', `The model call failed (${kind}): ${message}`);
  return turn.log.finish({ status: 'error', error: { kind, message }, rounds: round });
}

function cancelTurn(log: TurnLog, rounds: number): TurnResult {
  log.push('devx', 'The user cancelled this turn.');
  return log.finish({ status: 'cancelled', rounds });
}

/** Runs a reply's calls; results go back in the order the calls appeared (parse errors interleave by line). */
async function runCalls(turn: Turn, calls: ParsedCall[], roundImages: LoadedImage[]): Promise<string[]> {
  const items = calls.map((call) => ({
    line: call.line,
    concurrent: Boolean(turn.deps.tools.get(call.tool)?.concurrent),
    block: () => runCall(turn, call, roundImages),
  }));
  const blocks: string[] = [];
  const ordered = items.sort((a, b) => a.line - b.line);
  for (let k = 0; k < ordered.length;) {
    if (turn.signal.aborted) {
      blocks.push(formatToolResult({ tool: 'devx', status: 'error', content: 'the user cancelled the turn before the remaining calls ran' }));
      break;
    }
    // A run of consecutive concurrent-safe calls executes in parallel; results keep their order.
    let end = k + 1;
    if (ordered[k].concurrent) while (end < ordered.length && ordered[end].concurrent) end++;
    const batch = ordered.slice(k, end);
    blocks.push(...(batch.length === 1 ? [await batch[0].block()] : await Promise.all(batch.map((it) => turn.limit(it.block)))));
    k = end;
  }
  return blocks;
}

/** One call, reported as it starts and ends; its TOOL_RESULT block. */
async function runCall(turn: Turn, call: ParsedCall, roundImages: LoadedImage[]): Promise<string> {
  turn.emit({ type: 'tool_start', tool: call.tool, args: call.args });
  if (turn.deps.dryRun) return judgeCallDry(turn, call);
  const outcome = await runToolCall(call, turn.callDeps);
  if (outcome.images) roundImages.push(...outcome.images);
  if (outcome.status === 'error') countFailure(turn.repeats, call, outcome.summary);
  turn.emit({ type: 'tool_end', outcome });
  return formatToolResult({ tool: outcome.tool, status: outcome.status, meta: outcome.meta, content: outcome.content });
}

function countFailure(repeats: RepeatedFailures, call: ParsedCall, summary: string): void {
  const key = `${call.tool}\0${JSON.stringify(Object.entries(call.args).sort())}`;
  const seen = repeats.failed.get(key) ?? { count: 0, summary };
  seen.count++;
  repeats.failed.set(key, seen);
  if (seen.count >= REPEAT_LIMIT) repeats.stuck ??= seen.summary;
}

/** A call under a dry run is not run: say what the policy would have decided, so a dry run shows what would need approval. */
async function judgeCallDry(turn: Turn, call: ParsedCall): Promise<string> {
  const { deps } = turn;
  const tool = deps.tools.get(call.tool);
  const judged = tool ? await deps.decide(tool, call.args) : undefined;
  // As the run's approval mode would show it: what the mode refuses is a deny.
  const decision = tool && judged ? decisionInMode({ decision: judged, tool, mode: deps.mode ?? 'default', sandbox: Boolean(deps.sandbox) }) : undefined;
  const would = decision ? `the policy would ${decision.decision} it (${decision.reason})` : `there is no tool named ${call.tool}`;
  const outcome: ToolCallOutcome = {
    tool: call.tool,
    args: call.args,
    status: 'ok',
    content: `(dry run: not run; ${would})`,
    durationMs: 0,
    summary: describeCall(tool, call.tool, call.args),
    decision,
    // What it would change, planned as a real call plans it (the same plan and preview).
    ...(tool ? await planCall(tool, call.args, turn.callDeps.ctx) : {}),
  };
  turn.emit({ type: 'tool_end', outcome });
  return formatToolResult({ tool: call.tool, status: 'ok', content: outcome.content });
}
