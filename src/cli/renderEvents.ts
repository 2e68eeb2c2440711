// Turns a run's events (AgentEvent) into human-readable progress lines (the REPL and `devx run` share it).
import type { AgentEvent } from '../core/loop.js';
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

export function createRenderer(opts: RenderOptions): Renderer {
  const spinner = new Spinner(opts.out, opts.env);
  let watching = false;
  let tail = '';
  // The last finished command's output, whole, for Ctrl-O after it was folded.
  let folded: string[] = [];
  // Every line the renderer writes may quote the model, a tool or a file: its controls are shown, not obeyed.
  const write = (s: string) => {
    spinner.stop();
    opts.out.write(escapeControls(s));
    spinner.resume();
  };
  const streamOut = opts.answerOut ?? opts.out;
  const stream = createStreamShow((s) => {
    spinner.stop();
    streamOut.write(escapeControls(s));
  });
  /** The first lines of a command's output under its line; the rest waits for Ctrl-O. */
  const showFolded = (lines: string[]) => {
    folded = lines.length > FOLD_LINES ? lines : [];
    if (!lines.length) return;
    const shown = lines.slice(0, FOLD_LINES).map((l) => `      │ ${l}`);
    if (lines.length > FOLD_LINES) shown.push(`      … +${lines.length - FOLD_LINES} lines (Ctrl-O shows them)`);
    write(`${shown.join('\n')}\n`);
  };
  return {
    stop: () => spinner.stop(),
    note: (text) => (spinner.running ? spinner.above(text) : opts.out.write(escapeControls(text))),
    toggleWatch() {
      if (!spinner.running && folded.length) {
        write(`${folded.map((l) => `      │ ${l}`).join('\n')}\n`);
        folded = [];
        return watching;
      }
      watching = !watching;
      if (spinner.running) {
        spinner.setDetail(watching ? '' : lastLine(tail));
        spinner.above(
          watching
            ? `  (Ctrl-O: showing the output as it arrives${tail ? '; earlier output:' : ''})\n${tail.slice(-2000)}${tail && !tail.endsWith('\n') ? '\n' : ''}`
            : '  (Ctrl-O: showing the last line only)\n',
        );
      }
      return watching;
    },
    onEvent(e) {
      switch (e.type) {
        case 'model_request':
          stream.reset();
          spinner.start(e.round === 1 ? 'thinking' : `thinking (round ${e.round})`);
          break;
        case 'backend':
          if (e.event.type === 'retry')
            write(
              `  ↻ ${RETRY_LABEL[e.event.kind] ?? `${e.event.kind} error`}, retrying in ${Math.round(e.event.delayMs / 100) / 10}s: ${oneLine(e.event.message)}\n`,
            );
          else if (e.event.type === 'account_switch') write(`  ↻ account ${e.event.from} hit its quota; trying ${e.event.to}\n`);
          else if (e.event.type === 'model_fallback') write(`  ↻ every account is out of quota on ${e.event.from}; falling back to ${e.event.to}\n`);
          else if (e.event.type === 'text_delta') stream.add(e.event.text);
          else if (e.event.type === 'notice') write(`  ! ${e.event.message}\n`);
          break;
        case 'model_response':
          spinner.stop();
          break;
        case 'assistant_text': {
          // What streamed in already was shown; show the rest of the prose.
          const text = unsentProse(e.text, stream.shown);
          // A line shown in part is ended here when nothing of it is left to show.
          const open = stream.shown !== '' && !stream.shown.endsWith('\n');
          if (e.final) {
            spinner.stop();
            if (opts.answerOut && (text || !stream.shown || open)) opts.answerOut.write(escapeControls(`${text}\n`));
          } else if (text || open) write(`${text}\n`);
          break;
        }
        case 'parse_issues':
          for (const err of e.errors) write(`  ! line ${err.line}: ${err.message}\n`);
          for (const w of e.warnings) write(`  ! ${w}\n`);
          break;
        case 'tool_start':
          write(`  → ${e.tool} ${oneLine(summarizeArgs(e.args))}\n`);
          break;
        case 'hook':
          if (e.outcome === 'blocked') write(`  ⛔ ${e.event} hook${e.tool ? ` (${e.tool})` : ''}: ${oneLine(e.message ?? '', 200)}\n`);
          else if (e.outcome === 'error') write(`  ! ${e.event} hook \`${oneLine(e.command, 60)}\` failed (${oneLine(e.message ?? '', 160)}); going on\n`);
          break;
        case 'tool_running':
          // A command may run for minutes: the spinner says for how long, and what it printed last.
          tail = '';
          if (e.tool === 'run_command' || e.tool.startsWith('mcp') || e.tool === 'spawn_gemini' || e.tool === 'agent')
            spinner.start(`running ${e.tool}${spinner.enabled && e.tool === 'run_command' ? ' (Ctrl-O shows its output)' : ''}`);
          break;
        case 'tool_output':
          tail = (tail + e.text).slice(-8000);
          if (watching) spinner.above(e.text);
          else spinner.setDetail(lastLine(tail).slice(0, Math.max(20, (opts.out.columns ?? 80) - 8)));
          break;
        case 'tool_end': {
          spinner.stop();
          // A command watched with Ctrl-O has shown its output whole already.
          const wasWatching = watching && tail !== '';
          if (watching && tail && !tail.endsWith('\n')) opts.out.write('\n');
          tail = '';
          const o = e.outcome;
          if (opts.dryRun) {
            const d = o.decision;
            write(d ? `    ${DRY_MARK[d.decision]} would ${d.decision}: ${oneLine(d.reason, 160)} [${d.rule}]\n` : `    ✗ there is no tool named ${o.tool}\n`);
            // What it would change: the tool's preview of its plan, as a confirmation would show it (escaped, then indented).
            if (o.plan && o.preview) write(`${escapeControls(o.preview).replace(/^/gm, '      ')}\n`);
            break;
          }
          const first = oneLine(o.content.split('\n')[0] ?? '', 120);
          write(`    ${o.status === 'ok' ? '✓' : '✗'} ${o.tool} (${o.durationMs} ms) ${o.status === 'ok' ? '' : first}\n`);
          if (opts.foldOutput && !wasWatching && o.meta?.exit_code !== undefined) showFolded(commandOutputLines(o.content));
          if (o.cut)
            write(
              `      output cut for the model to ${o.content.length.toLocaleString('en-US')} of ${o.cut.totalChars.toLocaleString('en-US')} characters${o.cut.savedAs ? `; the whole output is in ${o.cut.savedAs}` : ''}\n`,
            );
          break;
        }
        case 'compaction':
          if (e.phase === 'start') spinner.start(e.reason === 'auto' ? 'compacting the conversation (near the context budget)' : 'compacting the conversation');
          else if (e.phase === 'done')
            write(
              `◇ compacted ${e.messages} messages into a summary (${kchars(e.beforeChars)} → ${kchars(e.afterChars)} characters); the full transcript is in ${e.transcript}\n`,
            );
          else
            write(
              `! could not compact the conversation: ${e.error}; nothing was lost${e.reason === 'auto' ? ', and older messages are elided from the prompt instead' : ''}\n`,
            );
          if (e.phase !== 'start') spinner.stop();
          break;
        case 'subtask': {
          const p = e.progress;
          spinner.subtask(p.id, p.phase === 'start' ? p.label : null);
          if (p.phase === 'start') {
            if (!spinner.enabled) write(`  ⇉ [${p.id}] ${p.label} …\n`);
          } else
            write(
              `  ${p.status === 'answered' ? '✓' : '✗'} [${p.id}] ${p.label} (${((p.elapsedMs ?? 0) / 1000).toFixed(1)}s${p.status === 'answered' ? '' : `, ${p.status}`})\n`,
            );
          break;
        }
        case 'turn_end':
          spinner.stop();
          if (e.status === 'error') write(`✗ ${e.error?.message}\n`);
          else if (e.status === 'max_rounds') write(`■ ${e.error?.message}\n`);
          else if (e.status === 'cancelled') write('■ turn cancelled\n');
          break;
        default:
          break;
      }
    },
  };
}
