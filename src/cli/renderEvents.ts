// Turns a run's events (AgentEvent) into human-readable progress lines (the REPL and `devx run` share it).
import type { AgentEvent } from '../core/loop.js';
import type { CompactionEvent } from '../core/compact.js';
import type { BackendEvent } from '../providers/types.js';
import type { ToolCallOutcome } from '../tools/runToolCall.js';
import type { SubtaskProgress } from '../tools/types.js';
import { Spinner } from './spinner.js';
import { streamable, unsentProse } from '../acp/proseStream.js';
import { escapeControls } from '../util/terminalText.js';

/** Retry lines for the kinds whose name does not read as "<kind> error". */
const RETRY_LABEL: Record<string, string> = { stalled: 'no answer', cut: 'connection cut mid-reply', unreadable: 'unreadable reply' };

function oneLine(s: string, max = 100): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** 58 k, 6.2 k, 900: character counts at a glance. */
function kchars(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)} k` : n >= 1000 ? `${(n / 1000).toFixed(1)} k` : String(n);
}

export function summarizeArgs(args: Record<string, string>): string {
  return Object.entries(args)
    .map(([k, v]) => (v.includes('\n') || v.length > 80 ? `${k}=<${v.split('\n').length} lines>` : `${k}=${v}`))
    .join(' ');
}

export interface RenderOptions {
  out: NodeJS.WriteStream;
  /** Where the final answer goes (REPL: same stream; run: stdout). Null to suppress it. */
  answerOut: NodeJS.WritableStream | null;
  env?: NodeJS.ProcessEnv;
  /** agent run --dry-run: each call shows the policy's decision (allow, ask or deny, the rule, why) instead of a result. */
  dryRun?: boolean;
  /** The REPL: a command's output is shown under its line, its first lines only (Ctrl-O shows the rest). */
  foldOutput?: boolean;
}

/** How many lines of a finished command's output show under it before the rest is folded. */
const FOLD_LINES = 5;

/** A command's printed output from its tool result (`exit_code=…`, `stdout:`, `stderr:`), as lines. */
export function commandOutputLines(content: string): string[] {
  const m = /^[\s\S]*?stdout:\n([\s\S]*?)(?:\nstderr:\n([\s\S]*))?$/.exec(content);
  if (!m) return [];
  const text = [m[1], m[2] ?? ''].join('\n').replace(/\n\[devx moved aside[\s\S]*$/, '');
  const lines = text.split('\n');
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  while (lines.length && !lines[0].trim()) lines.shift();
  return lines;
}

/**
 * Model prose as it streams in: text is shown as it arrives, up to the first TOOL_CALL line (a line that
 * may still become one waits until it cannot; calls are shown as tool lines once the reply is complete).
 */
function createStreamShow(write: (s: string) => void) {
  let buffer = '';
  let shown = '';
  let stopped = false;
  return {
    reset() {
      buffer = '';
      shown = '';
      stopped = false;
    },
    get shown() {
      return shown;
    },
    add(text: string) {
      buffer += text;
      if (stopped) return;
      const next = streamable(buffer, shown.length);
      stopped = next.stop;
      if (next.text) {
        write(next.text);
        shown += next.text;
      }
    },
  };
}

/** The last non-empty line of a command's output so far, as plain text (colours and C0 controls dropped, others shown). */
export function lastLine(tail: string): string {
  const lines = tail.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, '').split(/\r\n|\n|\r/);
  for (let i = lines.length - 1; i >= 0; i--) {
    // eslint-disable-next-line no-control-regex
    const l = lines[i].replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '').trim();
    if (l) return escapeControls(l);
  }
  return '';
}

export interface Renderer {
  onEvent: (e: AgentEvent) => void;
  stop: () => void;
  /** Ctrl-O: show a running command's whole output as it arrives, or only its last line (returns the new state); between commands, the last command's whole output. */
  toggleWatch: () => boolean;
  /** Writes a line of devx's own (escaped) above the spinner, which keeps running: what happened beside the turn. */
  note: (text: string) => void;
}

const DRY_MARK = { allow: '✓', ask: '?', deny: '✗' } as const;

/** What the renderer keeps between events. */
interface RenderState {
  opts: RenderOptions;
  spinner: Spinner;
  stream: ReturnType<typeof createStreamShow>;
  /** Writes devx's progress (escaped), above the spinner. */
  write: (s: string) => void;
  /** Ctrl-O: a running command's output is shown whole as it arrives. */
  watching: boolean;
  /** What the running command printed so far (its last 8000 characters). */
  tail: string;
  /** The last finished command's output, whole, for Ctrl-O after it was folded. */
  folded: string[];
}

export function createRenderer(opts: RenderOptions): Renderer {
  const spinner = new Spinner(opts.out, opts.env);
  const streamOut = opts.answerOut ?? opts.out;
  const r: RenderState = {
    opts,
    spinner,
    // Every line the renderer writes may quote the model, a tool or a file: its controls are shown, not obeyed.
    write: (s) => {
      spinner.stop();
      opts.out.write(escapeControls(s));
      spinner.resume();
    },
    stream: createStreamShow((s) => {
      spinner.stop();
      streamOut.write(escapeControls(s));
    }),
    watching: false,
    tail: '',
    folded: [],
  };
  return {
    stop: () => spinner.stop(),
    note: (text) => (spinner.running ? spinner.above(text) : opts.out.write(escapeControls(text))),
    toggleWatch: () => toggleWatch(r),
    onEvent: (e) => showEvent(r, e),
  };
}

function toggleWatch(r: RenderState): boolean {
  const { spinner } = r;
  if (!spinner.running && r.folded.length) {
    r.write(`${r.folded.map((l) => `      │ ${l}`).join('\n')}\n`);
    r.folded = [];
    return r.watching;
  }
  r.watching = !r.watching;
  if (spinner.running) {
    spinner.setDetail(r.watching ? '' : lastLine(r.tail));
    spinner.above(
      r.watching
        ? `  (Ctrl-O: showing the output as it arrives${r.tail ? '; earlier output:' : ''})\n${r.tail.slice(-2000)}${r.tail && !r.tail.endsWith('\n') ? '\n' : ''}`
        : '  (Ctrl-O: showing the last line only)\n',
    );
  }
  return r.watching;
}

function showEvent(r: RenderState, e: AgentEvent): void {
  switch (e.type) {
    case 'model_request':
      r.stream.reset();
      r.spinner.start(e.round === 1 ? 'thinking' : `thinking (round ${e.round})`);
      break;
    case 'backend':
      showBackendEvent(r, e.event);
      break;
    case 'model_response':
      r.spinner.stop();
      break;
    case 'assistant_text':
      showProse(r, e.text, e.final);
      break;
    case 'parse_issues':
      for (const err of e.errors) r.write(`  ! line ${err.line}: ${err.message}\n`);
      for (const w of e.warnings) r.write(`  ! ${w}\n`);
      break;
    case 'tool_start':
      r.write(`  → ${e.tool} ${oneLine(summarizeArgs(e.args))}\n`);
      break;
    case 'hook':
      showHook(r, e);
      break;
    case 'tool_running':
      startCommandSpinner(r, e.tool);
      break;
    case 'tool_output':
      showCommandOutput(r, e.text);
      break;
    case 'tool_end':
      showToolEnd(r, e.outcome);
      break;
    case 'compaction':
      showCompaction(r, e);
      break;
    case 'subtask':
      showSubtask(r, e.progress);
      break;
    case 'turn_end':
      showTurnEnd(r, e);
      break;
    default:
      break;
  }
}

function showBackendEvent(r: RenderState, ev: BackendEvent): void {
  if (ev.type === 'retry' || ev.type === 'account_switch' || ev.type === 'model_fallback') endCutReply(r);
  if (ev.type === 'retry')
    r.write(`  ↻ ${RETRY_LABEL[ev.kind] ?? `${ev.kind} error`}, retrying in ${Math.round(ev.delayMs / 100) / 10}s: ${oneLine(ev.message)}\n`);
  else if (ev.type === 'account_switch') r.write(`  ↻ account ${ev.from} hit its quota; trying ${ev.to}\n`);
  else if (ev.type === 'model_fallback') r.write(`  ↻ every account is out of quota on ${ev.from}; falling back to ${ev.to}\n`);
  else if (ev.type === 'text_delta') r.stream.add(ev.text);
  else if (ev.type === 'notice') r.write(`  ! ${ev.message}\n`);
}

/** A reply cut by a retry: its shown part ends on a line of its own, and the retried reply is shown whole, once. */
function endCutReply(r: RenderState): void {
  const shown = r.stream.shown;
  if (shown && !shown.endsWith('\n')) {
    r.spinner.stop();
    (r.opts.answerOut ?? r.opts.out).write('\n');
  }
  r.stream.reset();
}

function showProse(r: RenderState, prose: string, final: boolean): void {
  const { stream, opts } = r;
  // What streamed in already was shown; show the rest of the prose.
  const text = unsentProse(prose, stream.shown);
  // A line shown in part is ended here when nothing of it is left to show.
  const open = stream.shown !== '' && !stream.shown.endsWith('\n');
  if (final) {
    r.spinner.stop();
    if (opts.answerOut && (text || !stream.shown || open)) opts.answerOut.write(escapeControls(`${text}\n`));
  } else if (text || open) r.write(`${text}\n`);
}

function showHook(r: RenderState, e: Extract<AgentEvent, { type: 'hook' }>): void {
  if (e.outcome === 'blocked') r.write(`  ⛔ ${e.event} hook${e.tool ? ` (${e.tool})` : ''}: ${oneLine(e.message ?? '', 200)}\n`);
  else if (e.outcome === 'error') r.write(`  ! ${e.event} hook \`${oneLine(e.command, 60)}\` failed (${oneLine(e.message ?? '', 160)}); going on\n`);
}

/** A command may run for minutes: the spinner says for how long, and what it printed last. */
function startCommandSpinner(r: RenderState, tool: string): void {
  r.tail = '';
  if (tool === 'run_command' || tool.startsWith('mcp') || tool === 'spawn_gemini' || tool === 'agent')
    r.spinner.start(`running ${tool}${r.spinner.enabled && tool === 'run_command' ? ' (Ctrl-O shows its output)' : ''}`);
}

function showCommandOutput(r: RenderState, text: string): void {
  r.tail = (r.tail + text).slice(-8000);
  if (r.watching) r.spinner.above(text);
  else r.spinner.setDetail(lastLine(r.tail).slice(0, Math.max(20, (r.opts.out.columns ?? 80) - 8)));
}

function showToolEnd(r: RenderState, o: ToolCallOutcome): void {
  const { opts } = r;
  r.spinner.stop();
  // A command watched with Ctrl-O has shown its output whole already.
  const wasWatching = r.watching && r.tail !== '';
  if (r.watching && r.tail && !r.tail.endsWith('\n')) opts.out.write('\n');
  r.tail = '';
  if (opts.dryRun) return showDryDecision(r, o);
  const first = oneLine(o.content.split('\n')[0] ?? '', 120);
  r.write(`    ${o.status === 'ok' ? '✓' : '✗'} ${o.tool} (${o.durationMs} ms) ${o.status === 'ok' ? '' : first}\n`);
  if (opts.foldOutput && !wasWatching && o.meta?.exit_code !== undefined) showFolded(r, commandOutputLines(o.content));
  if (o.cut)
    r.write(
      `      output cut for the model to ${o.content.length.toLocaleString('en-US')} of ${o.cut.totalChars.toLocaleString('en-US')} characters${o.cut.savedAs ? `; the whole output is in ${o.cut.savedAs}` : ''}\n`,
    );
}

function showDryDecision(r: RenderState, o: ToolCallOutcome): void {
  const d = o.decision;
  r.write(d ? `    ${DRY_MARK[d.decision]} would ${d.decision}: ${oneLine(d.reason, 160)} [${d.rule}]\n` : `    ✗ there is no tool named ${o.tool}\n`);
  // What it would change: the tool's preview of its plan, as a confirmation would show it (escaped, then indented).
  if (o.plan && o.preview) r.write(`${escapeControls(o.preview).replace(/^/gm, '      ')}\n`);
}

/** The first lines of a command's output under its line; the rest waits for Ctrl-O. */
function showFolded(r: RenderState, lines: string[]): void {
  r.folded = lines.length > FOLD_LINES ? lines : [];
  if (!lines.length) return;
  const shown = lines.slice(0, FOLD_LINES).map((l) => `      │ ${l}`);
  if (lines.length > FOLD_LINES) shown.push(`      … +${lines.length - FOLD_LINES} lines (Ctrl-O shows them)`);
  r.write(`${shown.join('\n')}\n`);
}

function showCompaction(r: RenderState, e: CompactionEvent): void {
  if (e.phase === 'start') r.spinner.start(e.reason === 'auto' ? 'compacting the conversation (near the context budget)' : 'compacting the conversation');
  else if (e.phase === 'done')
    r.write(
      `◇ compacted ${e.messages} messages into a summary (${kchars(e.beforeChars)} → ${kchars(e.afterChars)} characters); the full transcript is in ${e.transcript}\n`,
    );
  else
    r.write(
      `! could not compact the conversation: ${e.error}; nothing was lost${e.reason === 'auto' ? ', and older messages are elided from the prompt instead' : ''}\n`,
    );
  if (e.phase !== 'start') r.spinner.stop();
}

function showSubtask(r: RenderState, p: SubtaskProgress): void {
  r.spinner.subtask(p.id, p.phase === 'start' ? p.label : null);
  if (p.phase === 'start') {
    if (!r.spinner.enabled) r.write(`  ⇉ [${p.id}] ${p.label} …\n`);
  } else
    r.write(
      `  ${p.status === 'answered' ? '✓' : '✗'} [${p.id}] ${p.label} (${((p.elapsedMs ?? 0) / 1000).toFixed(1)}s${p.status === 'answered' ? '' : `, ${p.status}`})\n`,
    );
}

function showTurnEnd(r: RenderState, e: Extract<AgentEvent, { type: 'turn_end' }>): void {
  r.spinner.stop();
  if (e.status === 'error') r.write(`✗ ${e.error?.message}\n`);
  else if (e.status === 'max_rounds') r.write(`■ ${e.error?.message}\n`);
  else if (e.status === 'cancelled') r.write('■ turn cancelled\n');
}
