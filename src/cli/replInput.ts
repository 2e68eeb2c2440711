// What the person types, as whole messages: a bracketed paste is one message however many lines it
// has, a line ending in a backslash continues on the next, and /edit (or Ctrl-X Ctrl-E) opens
// $VISUAL/$EDITOR for a long message. Approvals read single raw lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runProcessSync } from '../util/runSync.js';
import type readline from 'node:readline';

const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

export interface ReplInput {
  /** The next whole message, or null at end of input. */
  nextMessage(): Promise<string | null>;
  /** The next raw line, or null at end of input. */
  nextLine(): Promise<string | null>;
  /**
   * A fresh answer to a confirmation: what was typed before it was shown (complete lines, or a line half
   * typed) never answers it, and is kept as queued messages for after the turn. Null at end of input or
   * when cancelAnswer() was called (Ctrl-C).
   */
  nextAnswer(): Promise<string | null>;
  /** Ends a pending nextAnswer() with null (Ctrl-C at a confirmation means no). */
  cancelAnswer(): void;
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

export function createReplInput(rl: readline.Interface, opts: { interactive: boolean; out: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): ReplInput {
  const lines: string[] = [];
  const waiters: ((l: string | null) => void)[] = [];
  let closed = false;
  let pasting = false;
  let pasted: string[] = [];
  let pendingEdit: string | null = null;
  let ctrlX = false;

  // A line typed while devx works waits for the turn's end; `/drop` typed meanwhile takes back what waits.
  let queuedWhileBusy = 0;
  let dropped = 0;
  const deliver = (l: string) => {
    if (waiters.length) return waiters.shift()!(l);
    if (opts.interactive && l.trim() === '/drop') {
      dropped += lines.length;
      queuedWhileBusy = 0;
      lines.length = 0;
      return;
    }
    lines.push(l);
    if (opts.interactive) queuedWhileBusy++;
  };
  rl.on('line', (l) => {
    // Lines inside a bracketed paste are held until the paste is sent with Enter.
    if (pasting) {
      pasted.push(l);
      return;
    }
    if (pasted.length) {
      const whole = [...pasted, l].join('\n');
      pasted = [];
      deliver(whole);
      return;
    }
    deliver(l);
  });
  rl.on('close', () => {
    closed = true;
    if (pasted.length) deliver(pasted.splice(0).join('\n'));
    while (waiters.length) waiters.shift()!(null);
  });

  const input = (rl as unknown as { input: NodeJS.ReadStream }).input;
  let onCtrlO: (() => void) | null = null;
  let onShiftTab: (() => void) | null = null;
  let onCtrlT: (() => void) | null = null;
  let promptText = 'devx> ';
  const onKey = (_s: string | undefined, key: Key | undefined) => {
    if (!key) return;
    if (key.name === 'tab' && key.shift) {
      onShiftTab?.();
      return;
    }
    if (key.name === 'paste-start') pasting = true;
    else if (key.name === 'paste-end') {
      pasting = false;
      if (pasted.length) opts.out.write(`\n[pasted ${pasted.length + 1} lines: Enter sends them as one message]\n`);
    } else if (key.ctrl && key.name === 'o') {
      onCtrlO?.();
      return;
    } else if (key.ctrl && key.name === 't') {
      // Not bound by Node's readline (nor by devx before): "tasks", the background commands.
      onCtrlT?.();
      return;
    } else if (key.ctrl && key.name === 'x') {
      ctrlX = true;
      return;
    } else if (ctrlX && key.ctrl && key.name === 'e') {
      // Ctrl-X Ctrl-E: edit what is typed so far in the editor, as bash does.
      pendingEdit = (rl as unknown as { line: string }).line;
      rl.write(null, { ctrl: true, name: 'u' });
      rl.write('/edit\n');
    }
    ctrlX = false;
  };
  if (opts.interactive) {
    input.on('keypress', onKey);
    opts.out.write(PASTE_ON);
    redrawOnlyAtPrompt(rl);
  }

  const nextLine = (): Promise<string | null> => {
    if (lines.length) return Promise.resolve(lines.shift()!);
    if (closed) return Promise.resolve(null);
    return new Promise((resolve) => waiters.push(resolve));
  };

  let answering: ((l: string | null) => void) | null = null;
  const nextAnswer = async (): Promise<string | null> => {
    if (!opts.interactive) return nextLine(); // piped input is a script: its lines answer in order
    // Type-ahead is a message for after the turn, never an answer: a stray "y" must not approve anything.
    const typed = (rl as unknown as { line: string }).line;
    const held = lines.splice(0);
    if (typed.trim()) {
      held.push(typed);
      rl.write(null, { ctrl: true, name: 'u' });
    }
    if (held.length)
      opts.out.write(`\n(queued for after this turn: ${held.map((h) => JSON.stringify(h.length > 60 ? `${h.slice(0, 57)}...` : h)).join(', ')})\n`);
    const answer = await new Promise<string | null>((resolve) => {
      answering = resolve;
      waiters.push((l) => {
        if (answering === resolve) {
          answering = null;
          resolve(l);
        } else if (l !== null) deliver(l); // cancelled meanwhile: the line is a message
      });
    });
    lines.unshift(...held);
    return answer;
  };
  const cancelAnswer = () => {
    const a = answering;
    answering = null;
    a?.(null);
  };

  const edit = (initial = pendingEdit ?? ''): string | null => {
    pendingEdit = null;
    const editor = opts.env.VISUAL ?? opts.env.EDITOR ?? 'vi';
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-edit-')), 'message.md');
    fs.writeFileSync(file, initial);
    const raw = opts.interactive && typeof input.setRawMode === 'function';
    rl.pause();
    if (raw) input.setRawMode(false);
    const r = runProcessSync(editor, [file], { stdio: 'inherit', shell: /\s/.test(editor) });
    if (raw) input.setRawMode(true);
    rl.resume();
    const text = r.status === 0 ? fs.readFileSync(file, 'utf8').replace(/\n$/, '') : null;
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    return text && text.trim() ? text : null;
  };

  return {
    nextLine,
    nextAnswer,
    cancelAnswer,
    async nextMessage() {
      // Say what happens to what was typed during the turn: sent now, or dropped with /drop.
      if (dropped) opts.out.write(`(dropped ${dropped === 1 ? 'the message' : `${dropped} messages`} typed while devx worked)\n`);
      else if (queuedWhileBusy && lines.length)
        opts.out.write(
          `(sending what you typed while devx worked: ${JSON.stringify(lines[0].length > 60 ? `${lines[0].slice(0, 57)}...` : lines[0])}; type /drop during a turn to take it back)\n`,
        );
      dropped = 0;
      queuedWhileBusy = 0;
      const parts: string[] = [];
      for (;;) {
        const l = await nextLine();
        if (l === null) return parts.length ? parts.join('\n') : null;
        // A trailing backslash continues the message on the next line.
        if (/(^|[^\\])\\$/.test(l) && !l.includes('\n')) {
          parts.push(l.slice(0, -1));
          if (opts.interactive) rl.setPrompt('   ... ');
          if (opts.interactive) rl.prompt();
          continue;
        }
        if (opts.interactive) rl.setPrompt(promptText);
        parts.push(l);
        return parts.join('\n');
      }
    },
    edit,
    onCtrlO(fn: (() => void) | null) {
      onCtrlO = fn;
    },
    onShiftTab(fn: (() => void) | null) {
      onShiftTab = fn;
    },
    onCtrlT(fn: (() => void) | null) {
      onCtrlT = fn;
    },
    setPromptText(text: string) {
      promptText = text;
      rl.setPrompt(text);
    },
    close() {
      if (opts.interactive) {
        input.off('keypress', onKey);
        opts.out.write(PASTE_OFF);
      }
    },
  };
}
