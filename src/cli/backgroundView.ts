// The background commands' view (`/bg` in a terminal, or Ctrl-T at the prompt), as Claude Code's background
// tasks view: one entry per background command of the session (id, state, how long it ran, the command, its
// last line of output), ↑/↓ to select, k (or Delete) to stop the selected one (its whole process group, as
// `/bg stop` and stop_command do, audited the same way), Enter to show its output so far, Esc or q to close.
// It draws under the cursor and redraws in place, as the agent picker does. A command and its output are a
// model's or a program's text: every line is drawn with its controls shown (escapeControls), never obeyed.
import { describeState, shortDuration, type BackgroundCommands, type BackgroundView } from '../tools/backgroundCommands.js';
import { escapeControls } from '../util/terminalText.js';
import { takeKeys } from './takeKeys.js';
import { fitColumns } from './visible.js';

/** One background command as the view draws it: its state, and what it printed that devx keeps. */
export interface ViewRow {
  view: BackgroundView;
  output: string;
}

/** What the view shows: the list, or the output of the selected command; and the line under it. */
export interface ViewScreen {
  rows: ViewRow[];
  selected: number;
  showing: 'list' | 'output';
  /** Ids being stopped (asked to, not ended yet). */
  stopping: ReadonlySet<string>;
  /** A line under the list: what the last key did. */
  status: string;
}

export const VIEW_TITLE = 'Background commands';
const LIST_KEYS = '↑/↓ select · k stop · Enter output · Esc close';
const OUTPUT_KEYS = 'k stop · Esc back';

// eslint-disable-next-line no-control-regex
const CSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * A program's output as lines a terminal can show: colour and cursor sequences removed, a line rewritten with
 * CR (a progress bar) as its last state, tabs as spaces, every other control shown (escapeControls).
 */
export function outputLines(text: string): string[] {
  const lines = text
    .replace(CSI, '')
    .split(/\r?\n/)
    .map((l) => {
      const parts = l.split('\r').filter((p) => p !== '');
      return escapeControls((parts.at(-1) ?? '').replace(/\t/g, '  ')).trimEnd();
    });
  while (lines.length && !lines[lines.length - 1]) lines.pop();
  return lines;
}

/** The last line with something on it, trimmed; '' when none. */
function lastOf(lines: string[]): string {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim()) return lines[i].trim();
  return '';
}

/** A model's or a person's one-line text (a command), whitespace folded, controls shown. */
function oneLine(s: string): string {
  return escapeControls(s.replace(/\s+/g, ' ').trim());
}

/** A line cut to the terminal's width (a wrapped line would throw off the redraw). */
const fit = (s: string, width: number): string => fitColumns(s, width);

function stateOf(row: ViewRow, stopping: ReadonlySet<string>): string {
  return row.view.state === 'running' && stopping.has(row.view.id) ? 'stopping…' : describeState(row.view);
}

function ranFor(v: BackgroundView, now: number): string {
  return shortDuration((v.endedAt ?? now) - v.startedAt);
}

/** The view's lines: a title, then per command its line and its last line of output (or the selected one's output). */
export function renderBackgroundView(screen: ViewScreen, size: { width: number; height: number; now: number }): string[] {
  const width = Math.max(40, size.width - 1);
  const height = Math.max(8, size.height - 2);
  const { rows, stopping } = screen;
  const sel = rows[screen.selected];
  const running = rows.filter((r) => r.view.state === 'running').length;
  const status = screen.status ? [escapeControls(screen.status)] : [];
  if (screen.showing === 'output' && sel) {
    const v = sel.view;
    const all = outputLines(sel.output);
    const room = Math.max(1, height - 3 - status.length);
    const shown = all.slice(-room);
    const head = [
      `${v.id} · ${stateOf(sel, stopping)} · ${ranFor(v, size.now)} · ${oneLine(v.cmd)}`,
      all.length > shown.length ? `${OUTPUT_KEYS} · the newest ${shown.length} of ${all.length} lines` : OUTPUT_KEYS,
    ];
    const body = shown.length ? shown.map((l) => `│ ${l}`) : ['│ (no output yet)'];
    return [...head, ...body, ...status].map((l) => fit(l, width));
  }
  const title = `${VIEW_TITLE} (${running} running) · ${LIST_KEYS}`;
  if (!rows.length) return [title, '  (none in this session)', ...status].map((l) => fit(l, width));
  // Two lines each: as many as fit (with the title and a line for those above and below), around the selected one.
  const fits = Math.max(1, Math.floor((height - 3 - status.length) / 2));
  const first = Math.min(Math.max(0, screen.selected - fits + 1), Math.max(0, rows.length - fits));
  const idW = Math.max(4, ...rows.map((r) => r.view.id.length));
  const stateW = Math.max(9, ...rows.map((r) => stateOf(r, stopping).length));
  const lines = [title];
  if (first > 0) lines.push(`  … ${first} more above`);
  rows.slice(first, first + fits).forEach((r, i) => {
    const mark = first + i === screen.selected ? '▸' : ' ';
    const last = lastOf(outputLines(r.output.slice(-4000)));
    lines.push(`${mark} ${r.view.id.padEnd(idW)}  ${stateOf(r, stopping).padEnd(stateW)}  ${ranFor(r.view, size.now).padStart(6)}  ${oneLine(r.view.cmd)}`);
    lines.push(`  ${' '.repeat(idW)}  │ ${last || '(no output yet)'}`);
  });
  if (first + fits < rows.length) lines.push(`  … ${rows.length - first - fits} more below`);
  return [...lines, ...status].map((l) => fit(l, width));
}

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

/** How often the view redraws on its own (elapsed times, new output, a command that ended). */
const REDRAW_MS = 500;

/**
 * Runs the view on a terminal until the person closes it; then it is erased and what was done stays on the
 * screen (`bg1 stopped (SIGTERM)`). Other keypress listeners on `input` (the REPL's readline) are detached
 * meanwhile and restored after, as the agent picker does.
 */
export async function openBackgroundView(bg: BackgroundCommands, io: { input: NodeJS.ReadStream; out: NodeJS.WriteStream }): Promise<void> {
  const { input, out } = io;
  const giveBack = takeKeys(input);
  const screen: ViewScreen & { stopping: Set<string> } = { rows: [], selected: 0, showing: 'list', stopping: new Set(), status: '' };
  const done: string[] = [];
  const pending = new Set<Promise<void>>();
  let drawn = 0;
  let closed = false;
  const draw = () => {
    if (closed) return;
    screen.rows = bg.list().map((view) => ({ view, output: bg.output(view.id) ?? '' }));
    screen.selected = Math.min(screen.selected, Math.max(0, screen.rows.length - 1));
    const lines = renderBackgroundView(screen, { width: out.columns ?? 80, height: out.rows ?? 24, now: Date.now() });
    out.write(`${drawn ? `\x1b[${drawn}A` : ''}\r\x1b[J${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const stopSelected = () => {
    const v = screen.rows[screen.selected]?.view;
    if (!v || screen.stopping.has(v.id)) return;
    if (v.state !== 'running') {
      screen.status = `${v.id} has already ended: ${describeState(v)}`;
      return;
    }
    screen.stopping.add(v.id);
    screen.status = `stopping ${v.id} (its whole process group)…`;
    // The same stop as `/bg stop` and stop_command: SIGTERM to the group, SIGKILL after a second; the audit log records who.
    const stopping = bg
      .stop(v.id, 'person')
      .then(
        (after) => `${v.id} ${after ? describeState(after) : 'stopped'}`,
        (err: unknown) => `${v.id} could not be stopped: ${(err as Error).message}`,
      )
      .then((said) => {
        screen.stopping.delete(v.id);
        screen.status = said;
        done.push(said);
        pending.delete(stopping);
        draw();
      });
    pending.add(stopping);
  };
  const timer = setInterval(draw, REDRAW_MS);
  try {
    draw();
    await new Promise<void>((resolve) => {
      const close = () => {
        input.off('keypress', onKey);
        resolve();
      };
      const back = () => {
        if (screen.showing === 'output') screen.showing = 'list';
        else return close();
        draw();
      };
      const onKey = (str: string | undefined, key: Key | undefined) => {
        const k = key ?? {};
        // A lone Esc, once the decoder has said so (the REPL's readline waits 100 ms for more of a sequence):
        // acting on the raw byte sooner would leave the decoder taking the next key typed for Alt+key.
        if (k.name === 'escape') return back();
        if (k.ctrl && (k.name === 'c' || k.name === 'd' || k.name === 'g')) return close();
        if (k.name === 'up' || (k.ctrl && k.name === 'p')) screen.selected = Math.max(0, screen.selected - 1);
        else if (k.name === 'down' || (k.ctrl && k.name === 'n')) screen.selected = Math.min(screen.rows.length - 1, screen.selected + 1);
        else if ((str === 'k' && !k.ctrl && !k.meta) || k.name === 'delete') stopSelected();
        else if (k.name === 'return' || k.name === 'enter') screen.showing = screen.showing === 'list' && screen.rows.length ? 'output' : 'list';
        else if (str === 'q' || (screen.showing === 'output' && (k.name === 'left' || k.name === 'backspace'))) return back();
        else return;
        draw();
      };
      input.on('keypress', onKey);
    });
    // A stop asked for just before closing is seen to its end (at most a few seconds: the registry bounds it).
    await Promise.all([...pending]);
  } finally {
    closed = true;
    clearInterval(timer);
    out.write(`${drawn ? `\x1b[${drawn}A` : ''}\r\x1b[J`);
    for (const line of done) out.write(`${escapeControls(line)}\n`);
    giveBack();
  }
}
