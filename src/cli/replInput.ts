// What the person types, as whole messages: a bracketed paste is one message however many lines it
// has, a line ending in a backslash continues on the next, and /edit (or Ctrl-X Ctrl-E) opens
// $VISUAL/$EDITOR for a long message. Approvals read single raw lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { editorOf, runEditorSync } from '../util/runEditor.js';
import type readline from 'node:readline';

const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

export interface ReplInput {
  /** The next whole message, or null at end of input. */
  nextMessage(): Promise<string | null>;
  /** The next raw line, or null at end of input. */
  nextLine(): Promise<string | null>;
  /**
   * Asks `question` and returns a fresh answer: what was typed before it was shown (complete lines, or a line half
   * typed) never answers it, and is kept as queued messages for after the turn. Its last line is the line's prompt,
   * so the answer is redrawn as it is edited (Backspace, Ctrl-U). Null at end of input or when cancelAnswer() was
   * called (Ctrl-C).
   */
  nextAnswer(question: string): Promise<string | null>;
  /** Ends a pending nextAnswer() with null (Ctrl-C at a confirmation means no). */
  cancelAnswer(): void;
  /**
   * Ctrl-C at the prompt: throws away what is being written (the line, the lines a backslash continued, a paste
   * not yet sent); true when there was something, false at an empty prompt.
   */
  discardTyped(): boolean;
  /** The messages typed while devx worked, taken back (a cancelled turn does not send them). */
  takeBackQueued(): string[];
  /** Puts text into the prompt's line, to edit and send with Enter. */
  refill(text: string): void;
  /** The input ended (Ctrl-D, the end of a piped script) and every line it gave was taken. */
  readonly ended: boolean;
  /** Opens the editor on `initial`; returns what was saved (trimmed of a final newline), or null. */
  edit(initial?: string): string | null;
  /** Sets what Ctrl-O does (the renderer's watch toggle while a command runs). */
  onCtrlO(fn: (() => void) | null): void;
  /** Sets what Shift+Tab does (the next approval mode). */
  onShiftTab(fn: (() => void) | null): void;
  /** Sets what Ctrl-T does (the background commands' view). */
  onCtrlT(fn: (() => void) | null): void;
  /** The prompt shown for a new message (it names a mode other than the default). */
  setPromptText(text: string): void;
  close(): void;
}

interface Key {
  name?: string;
  ctrl?: boolean;
  shift?: boolean;
}

/**
 * readline redraws its prompt line when the terminal is resized: while a reply streams, that wipes the
 * lines above the cursor and leaves a `devx>` in the middle of the reply. It redraws only while its
 * prompt is on the screen (from prompt() until the line is entered).
 */
function redrawOnlyAtPrompt(rl: readline.Interface): void {
  const r = rl as unknown as { _refreshLine?: () => void; prompt: (preserveCursor?: boolean) => void };
  const refresh = r._refreshLine;
  if (typeof refresh !== 'function') return;
  let atPrompt = false;
  const prompt = r.prompt.bind(rl);
  r.prompt = (preserveCursor?: boolean) => {
    atPrompt = true;
    prompt(preserveCursor);
  };
  rl.on('line', () => (atPrompt = false));
  r._refreshLine = function (this: unknown) {
    if (atPrompt) refresh.call(this);
  };
}

interface InputOptions {
  interactive: boolean;
  out: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** What the input keeps between keys and lines. */
interface InputState {
  rl: readline.Interface;
  opts: InputOptions;
  input: NodeJS.ReadStream;
  /** Lines entered that no one has taken yet. */
  lines: string[];
  /** Who waits for the next line, first first. */
  waiters: ((l: string | null) => void)[];
  closed: boolean;
  /** Inside a bracketed paste, and the lines it held so far. */
  pasting: boolean;
  pasted: string[];
  /** The lines of a message a trailing backslash continued so far. */
  continued: string[];
  /** What was typed when Ctrl-X Ctrl-E asked for the editor. */
  pendingEdit: string | null;
  ctrlX: boolean;
  /** Lines typed while devx works, and lines taken back with /drop: said at the next prompt. */
  queuedWhileBusy: number;
  dropped: number;
  /** The pending nextAnswer()'s resolve. */
  answering: ((l: string | null) => void) | null;
  keys: { ctrlO: (() => void) | null; shiftTab: (() => void) | null; ctrlT: (() => void) | null };
  promptText: string;
}

export function createReplInput(rl: readline.Interface, opts: InputOptions): ReplInput {
  const st: InputState = {
    rl,
    opts,
    input: (rl as unknown as { input: NodeJS.ReadStream }).input,
    lines: [],
    waiters: [],
    closed: false,
    pasting: false,
    pasted: [],
    continued: [],
    pendingEdit: null,
    ctrlX: false,
    queuedWhileBusy: 0,
    dropped: 0,
    answering: null,
    keys: { ctrlO: null, shiftTab: null, ctrlT: null },
    promptText: 'devx> ',
  };
  rl.on('line', (l) => takeLine(st, l));
  rl.on('close', () => endInput(st));
  const onKey = (_s: string | undefined, key: Key | undefined) => handleKey(st, key);
  if (opts.interactive) {
    st.input.on('keypress', onKey);
    opts.out.write(PASTE_ON);
    redrawOnlyAtPrompt(rl);
  }
  return {
    nextLine: () => nextLine(st),
    nextAnswer: (question) => nextAnswer(st, question),
    cancelAnswer: () => cancelAnswer(st),
    discardTyped: () => discardTyped(st),
    takeBackQueued: () => {
      st.queuedWhileBusy = 0;
      return st.lines.splice(0);
    },
    refill(text: string) {
      // One line to edit: the line breaks of a message typed in several lines become spaces.
      if (opts.interactive && text) rl.write(text.replace(/\n/g, ' '));
    },
    get ended() {
      return st.closed && !st.lines.length && !st.pasted.length;
    },
    nextMessage: () => nextMessage(st),
    edit: (initial) => editInEditor(st, initial),
    onCtrlO(fn: (() => void) | null) {
      st.keys.ctrlO = fn;
    },
    onShiftTab(fn: (() => void) | null) {
      st.keys.shiftTab = fn;
    },
    onCtrlT(fn: (() => void) | null) {
      st.keys.ctrlT = fn;
    },
    setPromptText(text: string) {
      st.promptText = text;
      rl.setPrompt(text);
    },
    close() {
      if (opts.interactive) {
        st.input.off('keypress', onKey);
        opts.out.write(PASTE_OFF);
      }
    },
  };
}

/** A line typed while devx works waits for the turn's end; `/drop` typed meanwhile takes back what waits. */
function deliver(st: InputState, l: string): void {
  if (st.waiters.length) return st.waiters.shift()!(l);
  if (st.opts.interactive && l.trim() === '/drop') {
    st.dropped += st.lines.length;
    st.queuedWhileBusy = 0;
    st.lines.length = 0;
    return;
  }
  st.lines.push(l);
  if (st.opts.interactive) st.queuedWhileBusy++;
}

function takeLine(st: InputState, l: string): void {
  // Lines inside a bracketed paste are held until the paste is sent with Enter.
  if (st.pasting) {
    st.pasted.push(l);
    return;
  }
  if (st.pasted.length) {
    const whole = [...st.pasted, l].join('\n');
    st.pasted = [];
    deliver(st, whole);
    return;
  }
  deliver(st, l);
}

function endInput(st: InputState): void {
  st.closed = true;
  if (st.pasted.length) deliver(st, st.pasted.splice(0).join('\n'));
  while (st.waiters.length) st.waiters.shift()!(null);
}

function handleKey(st: InputState, key: Key | undefined): void {
  if (!key) return;
  if (key.name === 'tab' && key.shift) {
    st.keys.shiftTab?.();
    return;
  }
  if (key.name === 'paste-start') st.pasting = true;
  else if (key.name === 'paste-end') {
    st.pasting = false;
    if (st.pasted.length) st.opts.out.write(`\n[pasted ${st.pasted.length + 1} lines: Enter sends them as one message]\n`);
  } else if (key.ctrl && key.name === 'o') {
    st.keys.ctrlO?.();
    return;
  } else if (key.ctrl && key.name === 't') {
    // Not bound by Node's readline (nor by devx before): "tasks", the background commands.
    st.keys.ctrlT?.();
    return;
  } else if (key.ctrl && key.name === 'x') {
    st.ctrlX = true;
    return;
  } else if (st.ctrlX && key.ctrl && key.name === 'e') {
    // Ctrl-X Ctrl-E: edit what is typed so far in the editor, as bash does.
    st.pendingEdit = (st.rl as unknown as { line: string }).line;
    st.rl.write(null, { ctrl: true, name: 'u' });
    st.rl.write('/edit\n');
  }
  st.ctrlX = false;
}

function nextLine(st: InputState): Promise<string | null> {
  if (st.lines.length) return Promise.resolve(st.lines.shift()!);
  if (st.closed) return Promise.resolve(null);
  return new Promise((resolve) => st.waiters.push(resolve));
}

async function nextAnswer(st: InputState, question: string): Promise<string | null> {
  if (!st.opts.interactive) {
    st.opts.out.write(question);
    return nextLine(st); // piped input is a script: its lines answer in order
  }
  const held = holdTypeAhead(st);
  // All but its last line as text; the last is readline's prompt while the person answers, so an edit redraws it.
  const cut = question.lastIndexOf('\n') + 1;
  st.opts.out.write(question.slice(0, cut));
  st.rl.setPrompt(question.slice(cut));
  st.rl.prompt();
  const answer = await new Promise<string | null>((resolve) => {
    st.answering = resolve;
    st.waiters.push((l) => {
      if (st.answering === resolve) {
        st.answering = null;
        resolve(l);
      } else if (l !== null) deliver(st, l); // cancelled meanwhile: the line is a message
    });
  });
  st.rl.setPrompt(st.promptText);
  // An answer (y, n, a) is no message to recall with the Up key.
  const history = (st.rl as unknown as { history?: string[] }).history;
  if (answer !== null && history?.[0] === answer) history.shift();
  st.lines.unshift(...held);
  return answer;
}

/** Type-ahead is a message for after the turn, never an answer: a stray "y" must not approve anything. Takes it aside, and says so. */
function holdTypeAhead(st: InputState): string[] {
  const typed = (st.rl as unknown as { line: string }).line;
  const held = st.lines.splice(0);
  if (typed.trim()) {
    held.push(typed);
    st.rl.write(null, { ctrl: true, name: 'u' });
  }
  if (held.length)
    st.opts.out.write(`\n(queued for after this turn: ${held.map((h) => JSON.stringify(h.length > 60 ? `${h.slice(0, 57)}...` : h)).join(', ')})\n`);
  return held;
}

function cancelAnswer(st: InputState): void {
  const a = st.answering;
  st.answering = null;
  a?.(null);
}

function editInEditor(st: InputState, initial = st.pendingEdit ?? ''): string | null {
  const { opts, rl, input } = st;
  st.pendingEdit = null;
  const editor = editorOf(opts.env);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-edit-')), 'message.md');
  fs.writeFileSync(file, initial);
  const raw = opts.interactive && typeof input.setRawMode === 'function';
  rl.pause();
  if (raw) input.setRawMode(false);
  const r = runEditorSync(editor, file);
  if (raw) input.setRawMode(true);
  rl.resume();
  const text = r.status === 0 ? fs.readFileSync(file, 'utf8').replace(/\n$/, '') : null;
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return text && text.trim() ? text : null;
}

async function nextMessage(st: InputState): Promise<string | null> {
  const { opts, rl } = st;
  sayTypedWhileBusy(st);
  st.continued = [];
  for (;;) {
    const l = await nextLine(st);
    const parts = st.continued;
    if (l === null) return parts.length ? parts.join('\n') : null;
    // A trailing backslash continues the message on the next line.
    if (/(^|[^\\])\\$/.test(l) && !l.includes('\n')) {
      parts.push(l.slice(0, -1));
      if (opts.interactive) rl.setPrompt('   ... ');
      if (opts.interactive) rl.prompt();
      continue;
    }
    if (opts.interactive) rl.setPrompt(st.promptText);
    st.continued = [];
    return [...parts, l].join('\n');
  }
}

function discardTyped(st: InputState): boolean {
  const line = (st.rl as unknown as { line: string }).line;
  const had = Boolean(line) || st.continued.length > 0 || st.pasted.length > 0;
  st.continued = [];
  st.pasted = [];
  st.pasting = false;
  if (line) {
    // To the line's end, then to its start: the whole line, wherever the cursor was.
    st.rl.write(null, { ctrl: true, name: 'e' });
    st.rl.write(null, { ctrl: true, name: 'u' });
  }
  st.rl.setPrompt(st.promptText);
  return had;
}

/** Says what happens to what was typed during the turn: sent now, or dropped with /drop. */
function sayTypedWhileBusy(st: InputState): void {
  const { lines, opts } = st;
  if (st.dropped) opts.out.write(`(dropped ${st.dropped === 1 ? 'the message' : `${st.dropped} messages`} typed while devx worked)\n`);
  else if (st.queuedWhileBusy && lines.length)
    opts.out.write(
      `(sending what you typed while devx worked: ${JSON.stringify(lines[0].length > 60 ? `${lines[0].slice(0, 57)}...` : lines[0])}; type /drop during a turn to take it back)\n`,
    );
  st.dropped = 0;
  st.queuedWhileBusy = 0;
}
