// `devx undo [N] [--force]`, `devx undo --list`, and /undo in the REPL: put back what devx changed in the
// newest turns (session/undoStore.ts keeps it). From a second terminal while a session runs in the project,
// `devx undo` refuses (exit 4) and says to use /undo there: the session may be changing the same files.
import path from 'node:path';
import fs from 'node:fs';
import { findProjectRoot } from '../../config/paths.js';
import { changeOf, loadTurns, undoDir, undoTurns, type UndoResult } from '../../session/undoStore.js';
import { acquireLock, isAlive, liveHolder, lockPath, readLock } from '../../session/sessionLock.js';
import { historyFile, loadHistory, saveHistory } from '../../session/history.js';
import { setAsideLine } from '../../session/setAside.js';
import type { Message } from '../../core/messages.js';
import type { Started } from '../../runtime/startSession.js';
import { defineCommand, flagTable } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { makeVisible } from '../visible.js';
import { escapeControls } from '../../util/terminalText.js';

const when = (iso: string) => iso.slice(0, 19).replace('T', ' ');
const quoted = (input: string) => {
  const first = input.split('\n')[0];
  return `"${makeVisible(first.length > 70 ? `${first.slice(0, 70)}…` : first)}${input.includes('\n') && first.length <= 70 ? ' …' : ''}"`;
};
/** A call as the person would name it: `npm install` for a command, else its one-line summary. */
const callName = (what: string) => (what.startsWith('run: ') ? `\`${makeVisible(what.slice(5))}\`` : makeVisible(what));

/** The turns devx can undo, newest first, each with what it changed and what it ran that undo cannot reverse. */
export function renderUndoList(root: string): string {
  const all = loadTurns(root);
  const open = all.filter((t) => !t.undoneAt);
  if (!open.length)
    return all.length
      ? `nothing left to undo (${all.length} turn${all.length > 1 ? 's were' : ' was'} undone already)\n`
      : 'nothing to undo: devx has changed no files in this project yet\n';
  const lines = ['Turns devx can undo, newest first (`devx undo N` or /undo N undoes the newest N):'];
  open.forEach((t, i) => {
    const state = !t.endedAt ? (t.pid !== process.pid && isAlive(t.pid) ? ' (still running)' : ' (devx stopped during this turn)') : '';
    lines.push(`  ${String(i + 1).padStart(2)}  ${when(t.startedAt)}  ${quoted(t.input)}${state}`);
    if (t.entries.length)
      lines.push(
        `        ${t.entries.map((e) => `${e.path || '.'}${e.before.t === 'dir' || e.after?.t === 'dir' ? '/' : ''} ${changeOf(e) === 'interrupted' ? 'being changed when devx stopped' : changeOf(e)}`).join(' · ')}`,
      );
    for (const n of t.notUndoable) lines.push(`        not undoable: ${callName(n.what)} (${n.why})`);
  });
  const undone = all.length - open.length;
  if (undone) lines.push(`(${undone} older undo${undone > 1 ? 's' : ''} kept: turns already undone)`);
  return `${lines.join('\n')}\n`;
}

/** What an undo did (or why it did nothing), for the terminal. */
export function renderUndo(r: UndoResult, force: boolean): string {
  if (r.status === 'nothing') return 'nothing to undo\n';
  if (r.status === 'running') return `not undone: the turn ${quoted(r.turn.input)} is still running (devx pid ${r.turn.pid}); wait for it to end\n`;
  if (r.status === 'refused') {
    const unsafe = r.conflicts.some((c) => c.kind === 'unsafe');
    const out = [`nothing was undone: ${unsafe ? 'devx cannot put some of these back' : 'these files are not as devx left them'}:`];
    for (const c of r.conflicts) out.push(`  ${c.path}: ${c.why} (turn ${quoted(c.turn.input)})`);
    if (!unsafe && !force) out.push('Look at them first. `devx undo --force` (or /undo --force) puts them back anyway, and what changed them since is lost.');
    return `${out.join('\n')}\n`;
  }
  const out: string[] = [];
  for (const { turn, restored } of r.turns) {
    out.push(`Undid ${quoted(turn.input)} (${when(turn.startedAt)}):`);
    if (!restored.length) out.push('  (no file to put back)');
    for (const p of restored)
      out.push(
        `  ${p.path}${p.dir ? '/' : ''}: ${p.action}${p.files > 1 ? ` (${p.files} files)` : ''}${p.forced ? ' (overwrote later changes: --force)' : ''}`,
      );
    for (const n of turn.notUndoable) out.push(`  that turn also ran ${callName(n.what)}, which undo cannot reverse (${n.why})`);
  }
  if (r.status === 'failed') out.push(`undo stopped at ${r.path}: ${r.error}. What is listed above was put back; fix that and run undo again to go on.`);
  return `${out.join('\n')}\n`;
}

/** The note the model gets in the conversation, so it does not take its undone edits as still there. */
export function undoNote(r: UndoResult & { status: 'undone' | 'failed' }): Message {
  const files = r.turns.flatMap((t) => t.restored.map((p) => `${p.path}${p.dir ? '/' : ''} ${p.action}`));
  const kept = r.turns.flatMap((t) => t.turn.notUndoable.map((n) => callName(n.what)));
  return {
    role: 'devx',
    at: new Date().toISOString(),
    content:
      `The user undid the file changes of ${r.turns.length === 1 ? 'the turn' : `${r.turns.length} turns`} ${r.turns.map((t) => quoted(t.turn.input)).join(', ')}` +
      `${files.length ? `: ${files.join(', ')}` : ''}. Those files are as they were before; re-read them before editing.` +
      (kept.length ? ` Not reversed: ${kept.join(', ')}.` : ''),
  };
}

/** One undo at a time per project (a REPL's /undo and `devx undo` elsewhere). Null when another is running. */
function withUndoLock<T>(root: string, fn: () => T): T | null {
  const file = path.join(undoDir(root), 'undo.lock');
  const got = acquireLock(root, `undo-${process.pid}`, new Date(), file);
  if (got.status === 'busy') return null;
  try {
    return fn();
  } finally {
    if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
  }
}

function parseUndoArgs(words: string[]): { n: number } {
  if (words.length > 1) throw new UsageError('usage: devx undo [N] [--force] | devx undo --list');
  const n = words[0] === undefined ? 1 : /^\d+$/.test(words[0]) && Number(words[0]) > 0 ? Number(words[0]) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`devx undo takes how many turns to undo (a whole number from 1); got "${words[0]}"`);
  return { n };
}

/** /undo [N] [--force] [--list] in the REPL: the session holds the project, so no other devx is changing its files. */
export function undoSlash(text: string, started: Started, out: NodeJS.WritableStream): void {
  const words = text.split(/\s+/).slice(1).filter(Boolean);
  const root = started.run.agent.root;
  if (words.includes('--list')) return void out.write(escapeControls(renderUndoList(root)));
  const force = words.includes('--force');
  let n: number;
  try {
    n = parseUndoArgs(words.filter((w) => w !== '--force')).n;
  } catch (err) {
    return void out.write(`${(err as Error).message.replace('devx undo', '/undo')}\n`);
  }
  // A command still running may change the files meanwhile (a build could swap a folder for a link): undo waits for none.
  const running = started.run.agent.background.running;
  if (running)
    return void out.write(
      `${running} background command(s) of this session still running; they may change what undo would put back. Stop them first (/bg stop <id>, or Ctrl-T), then /undo.\n`,
    );
  const r = withUndoLock(root, () => undoTurns(root, n, { force }));
  if (!r) return void out.write('another devx undo is running in this project; try again when it ends\n');
  out.write(escapeControls(renderUndo(r, force)));
  if ((r.status === 'undone' || r.status === 'failed') && r.turns.some((t) => t.restored.length)) {
    started.run.history.push(undoNote(r));
    saveHistory(started.run.agent.historyPath, started.run.history);
  }
}

export const undoCommand = defineCommand({
  name: 'undo',
  summary: 'put back the files devx changed in the newest turn(s)',
  usage: ['undo [N] [--force]', 'undo --list'],
  flags: flagTable(`
      --list   the turns devx can undo, newest first, with what each changed
      --force  put files back even when they changed since devx changed them (those later changes are lost)
`),
  async run({ values, positionals }) {
    const root = findProjectRoot(process.cwd());
    if (values.list) {
      if (positionals.length || values.force) throw new UsageError('devx undo --list takes nothing else');
      process.stdout.write(escapeControls(renderUndoList(root)));
      return EXIT.ok;
    }
    const { n } = parseUndoArgs(positionals);
    const aside = setAsideLine(root);
    if (aside) process.stderr.write(`devx: warning: ${escapeControls(aside)}\n`);
    // A live session may be changing these files right now: the undo belongs there (/undo).
    const holder = liveHolder(lockPath(root));
    if (holder) {
      process.stderr.write(`devx: a devx session (pid ${holder.pid}) is active in this project; type /undo there, or end it first\n`);
      return EXIT.busy;
    }
    const force = Boolean(values.force);
    const r = withUndoLock(root, () => undoTurns(root, n, { force }));
    if (!r) {
      process.stderr.write('devx: another devx undo is running in this project; try again when it ends\n');
      return EXIT.busy;
    }
    // File names and reasons are the repository's: shown, never obeyed.
    (r.status === 'undone' || r.status === 'nothing' ? process.stdout : process.stderr).write(escapeControls(renderUndo(r, force)));
    if ((r.status === 'undone' || r.status === 'failed') && r.turns.some((t) => t.restored.length)) noteInHistory(root, undoNote(r));
    return r.status === 'undone' || r.status === 'nothing' ? EXIT.ok : EXIT.failed;
  },
});

/** The project's conversation (when it is this user's) learns of the undo, for the next session. */
function noteInHistory(root: string, note: Message): void {
  const file = historyFile(root);
  if (!fs.existsSync(file)) return;
  const h = loadHistory(file);
  if (h.warning) return;
  h.messages.push(note);
  saveHistory(file, h.messages);
}
