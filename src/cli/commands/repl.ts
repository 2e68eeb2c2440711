// The interactive session. With a TTY it prompts, confirms commands and shows a spinner; with piped
// stdin it runs the lines as a script (nobody to ask, so actions that need approval are refused
// unless --yes was given).
import readline from 'node:readline';
import { answersLine, confirmationText, wholeDiffOf } from '../confirmText.js';
import { HISTORY_SIZE, inputHistoryFile, loadInputHistory, saveInputHistory } from '../inputHistory.js';
import { applyResume, endSession, handoffFor, type Started } from '../../runtime/startSession.js';
import { DiskError } from '../../util/ownedFile.js';
import { cycleModesOnShiftTab, planTask, type PlanIo } from '../planFlow.js';
import { AGENT_FLAGS, EXIT, UsageError, approvalModeFrom, overridesFrom, withSession, type AgentFlagValues } from '../shared.js';
import { defineCommand, flagTable } from '../command.js';
import { createRenderer, type Renderer } from '../renderEvents.js';
import type { ApprovalRequest, PersonAnswer } from '../../tools/runToolCall.js';
import { maybeDelegate, switchAgent } from '../agentSlash.js';
import { findSlash, slashNames as builtinSlashNames, type SlashContext } from '../slashCommands.js';
import { packageVersion } from '../../util/packageRoot.js';
import { createReplInput, type ReplInput } from '../replInput.js';
import { textOnly, useColor } from '../visible.js';
import { pickAgent, type PickItem } from '../agentPicker.js';
import { openBackgroundView } from '../backgroundView.js';
import { renderBackgroundList, shortDuration, type BackgroundEvent } from '../../tools/backgroundCommands.js';
import { killAllGroups } from '../../util/processGroups.js';
import { escapeControls } from '../../util/terminalText.js';
import { whenAborted } from '../../util/whenAborted.js';
import type { AgentEvent } from '../../core/loop.js';

/**
 * The end of a session: the handoff. Ctrl-C while the model drafts it skips the draft and writes the plain
 * summary; a second Ctrl-C exits at once, releasing the lock and stopping the model CLI, and says what it left.
 * A person who left with Ctrl-C twice (`leaving`) never waits on the model: the plain summary is written.
 */
async function finishSession(
  started: Started,
  io: { info: NodeJS.WritableStream; rl: readline.Interface; failed: boolean; leaving: boolean },
): Promise<number> {
  const due = handoffFor(started, { interactive: true, failed: io.failed });
  const draft = io.leaving && due === 'model' ? 'plain' : due;
  const drafting = new AbortController();
  let presses = 0;
  let exiting: Promise<never> | null = null;
  const onInterrupt = () => {
    presses++;
    if (presses === 1 && draft === 'model') {
      drafting.abort();
      io.info.write("\n(skipping the model's draft: writing HANDOFF.md from the session record; Ctrl-C again exits at once)\n");
      return;
    }
    exiting = exitAtOnce(started, io.info, draft === 'none' ? 'no handoff was due' : 'HANDOFF.md was not written (the previous one is kept)');
  };
  io.rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  try {
    if (draft === 'model') io.info.write('Writing HANDOFF.md… (Ctrl-C writes it from the session record instead)\n');
    if (draft !== due) io.info.write("(Ctrl-C twice: the model's draft of HANDOFF.md is skipped)\n");
    const note = await endSession(started, { draft, signal: drafting.signal });
    if (exiting) await exiting;
    if (note) io.info.write(`${escapeControls(note)}\n`);
    return EXIT.ok;
  } finally {
    io.rl.off('SIGINT', onInterrupt);
    process.off('SIGINT', onInterrupt);
  }
}

let exitingNow: Promise<never> | null = null;

/** Exits now, whatever is pending: the record closed, the lock released, every process devx started killed and waited for; says what it left. */
function exitAtOnce(started: Started, info: NodeJS.WritableStream, handoff: string): Promise<never> {
  return (exitingNow ??= stopEverything(started, info, handoff));
}

async function stopEverything(started: Started, info: NodeJS.WritableStream, handoff: string): Promise<never> {
  started.session.stopNow();
  await Promise.race([started.run.dispose(), new Promise((r) => setTimeout(r, 1000))]);
  // Said only once seen: every process devx started is killed and waited for, not just signalled.
  const left = await killAllGroups(2000);
  const processes = left.length ? `a process devx started (group ${left.join(', ')}) had not exited 2 s after SIGKILL` : 'no model process is left';
  info.write(`\nexited at once: ${handoff}; the session lock is released and ${processes}\n`);
  process.exit(EXIT.cancelled);
}

export const replCommand = defineCommand({
  name: 'repl',
  summary: 'the interactive session (the default when no command is given)',
  usage: ['[options]', 'repl [options]'],
  flags: {
    ...AGENT_FLAGS,
    ...flagTable(`
      --resume <id>   continue a session (default: where work last stopped)
  -c, --continue      carry on the project's conversation (what the REPL does anyway; accepted as claude takes it)
      --agent <name>  start with this agent as the persona
      --acp           serve the Agent Client Protocol on stdio (for Zed and other ACP editors)
`),
  },
  run: ({ values }, cli) =>
    values.acp ? runAcp(values as AgentFlagValues & { agent?: string; resume?: string }) : runRepl(values as ReplFlags, cli?.table.map((e) => e.name) ?? []),
});

/** `devx --acp`: the ACP agent (its module loads only in this mode). */
async function runAcp(flags: AgentFlagValues & { agent?: string; resume?: string }): Promise<number> {
  if (flags.resume) throw new UsageError('--resume does not apply to --acp: the editor continues a session with session/load');
  const { serveAcp } = await import('../../acp/serveAcp.js');
  const { editorCommands } = await import('../editorCommands.js');
  return serveAcp({
    env: process.env,
    overrides: overridesFrom(flags),
    yes: flags.yes,
    approvalMode: approvalModeFrom(flags),
    persona: flags.agent,
    commands: editorCommands(),
  });
}

/**
 * A turn that could not write devx's own state (a full or read-only disk) stops with one line naming the file
 * and what to do, and the REPL comes back to its prompt (null); nothing was half-written.
 */
async function keepPromptOnDiskError<T>(out: NodeJS.WritableStream, turn: () => Promise<T>): Promise<T | null> {
  try {
    return await turn();
  } catch (err) {
    if (!(err instanceof DiskError)) throw err;
    out.write(`✗ ${escapeControls(err.message)}; the turn stopped, nothing was half-written (${err.remedy})\n`);
    return null;
  }
}

type ReplFlags = { resume?: string; agent?: string } & Parameters<typeof withSession>[0];

/** The terminal side of the REPL: readline and the input over it, kept across the session. */
interface ReplTerminal {
  interactive: boolean;
  out: NodeJS.WriteStream;
  /** Where devx's own lines go: the terminal, or stderr when a script is piped in. */
  info: NodeJS.WriteStream;
  rl: readline.Interface;
  input: ReplInput;
  color: boolean;
  /** A question (an approval, the plan's, a wizard's) waits for the person's answer. */
  answering: boolean;
  /** What Tab completes: the slash commands, devx's own and the custom ones of this session. */
  slashNames: string[];
}

/** The REPL while its session is open: what the key handlers, the event subscribers and the message loop share. */
interface ReplSession {
  term: ReplTerminal;
  started: Started;
  run: Started['run'];
  render: Renderer;
  background: Started['run']['agent']['background'];
  /** Shows the mode and the background commands' count in the prompt. */
  showMode: () => void;
  /** Says once, before the first turn, which MCP servers did not start. */
  sayToolWarnings: () => Promise<void>;
  /** The turn (or cancellable work) in progress: Ctrl-C aborts it. */
  running: AbortController | null;
  /** Waiting at the prompt for a message (nothing else draws then). */
  atPrompt: boolean;
  /** The background view is open. */
  viewOpen: boolean;
  /** A Ctrl-C at the prompt was pressed: the next one leaves. */
  armedExit: boolean;
  /** Messages typed during a turn that Ctrl-C cancelled: put back into the prompt's line, not sent. */
  takenBack: string[];
  lastFailed: boolean;
  /** Left with Ctrl-C twice: the handoff does not wait on the model. */
  leaving: boolean;
}

async function runRepl(flags: ReplFlags, shellCommands: string[]): Promise<number> {
  const term = openTerminal();
  try {
    return await withSession(
      flags,
      { info: term.info, prompt: term.interactive ? (req) => askApproval(term, req) : undefined, stream: term.interactive, lazyTools: true },
      (started) => runSession(term, started, flags, shellCommands),
    );
  } finally {
    term.input.close();
    term.rl.close();
  }
}

function openTerminal(): ReplTerminal {
  const interactive = Boolean(process.stdin.isTTY);
  const out = process.stdout;
  const completer = (line: string): [string[], string] =>
    line.startsWith('/') && !/\s/.test(line) ? [term.slashNames.filter((n) => n.startsWith(line)), line] : [[], line];
  // A lone Esc (closing the background view) is known 100 ms after it arrives rather than Node's 500: an
  // escape sequence (an arrow key) comes in one read from a terminal.
  const rl = readline.createInterface({
    input: process.stdin,
    output: out,
    terminal: interactive,
    prompt: 'devx> ',
    completer,
    escapeCodeTimeout: 100,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  const term: ReplTerminal = {
    interactive,
    out,
    info: interactive ? out : process.stderr,
    rl,
    input: createReplInput(rl, { interactive, out, env: process.env }),
    color: useColor(out, process.env),
    answering: false,
    slashNames: [],
  };
  return term;
}

async function askApproval(term: ReplTerminal, req: ApprovalRequest): Promise<PersonAnswer> {
  const { out, color } = term;
  const columns = (out as NodeJS.WriteStream).columns;
  // What will happen (a diff of the repository's text, the directory a command runs in), then why the policy asks.
  let got = await nextAnswer(term, confirmationText(req, { columns, color }));
  // v: the whole of a diff the question cut, then the same question.
  const whole = wholeDiffOf(req, { columns, color });
  while (whole !== null && got !== null && ['v', 'view'].includes(got.trim().toLowerCase())) {
    got = await nextAnswer(term, `${whole}${answersLine(req)}`);
  }
  if (got === null) {
    // Ctrl-C (or the end of input) at a confirmation: no, and the turn stops.
    out.write('no (the turn is cancelled)\n');
    return 'no';
  }
  const said = got.trim().toLowerCase();
  if (said === 'a' || said === 'always') return 'always';
  return said === 'y' || said === 'yes' ? 'yes' : 'no';
}

/** Asks `question` and waits for the person's line (null: Ctrl-C or the end of input). */
function nextAnswer(term: ReplTerminal, question: string): Promise<string | null> {
  term.answering = true;
  return term.input.nextAnswer(question).finally(() => (term.answering = false));
}

/** A wizard's question (create, init), asked through the REPL's input: a second reader of stdin would fight it. */
function askQuestion(term: ReplTerminal, q: string): Promise<string | null> {
  return nextAnswer(term, q);
}

/** The session from its first line to its handoff. */
async function runSession(term: ReplTerminal, started: Started, flags: ReplFlags, shellCommands: string[]): Promise<number> {
  keepInputHistory(term, started.run.agent.root);
  greet(term, started, flags);
  const s = openReplSession(term, started);
  const onInterrupt = () => interrupt(s);
  term.rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  const slash = slashContextFor(s, shellCommands);
  try {
    await readMessages(s, slash);
  } finally {
    process.off('SIGINT', onInterrupt);
    term.rl.off('SIGINT', onInterrupt);
    term.input.onCtrlO(null);
    term.input.onShiftTab(null);
    term.input.onCtrlT(null);
    s.render.stop();
  }
  return await finishSession(started, { info: term.info, rl: term.rl, failed: s.lastFailed, leaving: s.leaving });
}

/** The Up key reaches what was typed in this project's earlier sessions; what is typed now is kept for the next. */
function keepInputHistory(term: ReplTerminal, root: string): void {
  if (!term.interactive) return;
  const file = inputHistoryFile(process.env, root);
  (term.rl as unknown as { history: string[] }).history = loadInputHistory(file);
  term.rl.on('history', (entries: string[]) => saveInputHistory(file, entries));
}

function greet(term: ReplTerminal, started: Started, flags: ReplFlags): void {
  const { run } = started;
  const { info, out } = term;
  info.write(
    escapeControls(
      `devx ${packageVersion()} · ${run.agent.root} · ${run.agent.settings.provider} · model ${run.agent.settings.model}${run.persona ? ` · persona ${run.persona.name}` : ''}${run.history.length ? ` · ${run.history.length} messages of history (/clear to start over)` : ''}\n`,
    ),
  );
  // The last session, its todos and HANDOFF.md's next items: a repository's or a model's text.
  if (started.orientation) info.write(`${escapeControls(started.orientation)}\n`);
  if (flags.resume) info.write(`${escapeControls(applyResume(started, flags.resume) ?? 'no earlier session to resume')}\n`);
  if (flags.agent) out.write(`${escapeControls(switchAgent(started, flags.agent))}\n`);
  if (term.interactive) info.write('Type a task, or /help.\n');
}

/** Wires the session to the terminal: completions, the renderer, Ctrl-O, Shift+Tab, Ctrl-T and the background commands' lines. */
function openReplSession(term: ReplTerminal, started: Started): ReplSession {
  const { run } = started;
  listSlashNames(term, run);
  // MCP servers start while the person types: their prompts join the completions when ready, and a
  // server that did not start is said once, before the first turn (a turn waits for them anyway).
  const toolsReady = run.ready().then((warnings) => (listSlashNames(term, run), warnings));
  const render = createRenderer({ out: term.out, answerOut: term.out, foldOutput: true });
  run.subscribe(render.onEvent);
  term.input.onCtrlO(() => render.toggleWatch());
  const s: ReplSession = {
    term,
    started,
    run,
    render,
    background: run.agent.background,
    showMode: cycleModesOnShiftTab({ input: term.input, run, out: term.out, rl: term.rl, interactive: term.interactive, busy: () => s.running !== null }),
    sayToolWarnings: sayWarningsOnce(toolsReady, term.info),
    running: null,
    atPrompt: false,
    viewOpen: false,
    armedExit: false,
    takenBack: [],
    lastFailed: false,
    leaving: false,
  };
  run.subscribe((e) => sayBackgroundEvent(s, e));
  term.input.onCtrlT(() => onCtrlT(s));
  return s;
}

function listSlashNames(term: ReplTerminal, run: Started['run']): void {
  term.slashNames = [
    ...builtinSlashNames().map((n) => `/${n}`),
    ...[...run.agent.commands.commands.values()].flatMap((c) => [`/${c.name}`, `/${c.scope}:${c.name}`]),
  ].sort();
}

function sayWarningsOnce(toolsReady: Promise<string[]>, info: NodeJS.WritableStream): () => Promise<void> {
  let warned = false;
  return async () => {
    const warnings = await toolsReady;
    if (warned) return;
    warned = true;
    for (const w of warnings) info.write(`devx: warning: ${escapeControls(w)}\n`);
  };
}

/** The prompt counts the background commands that run; one that ends by itself is said where the person looks. */
function sayBackgroundEvent(s: ReplSession, e: AgentEvent): void {
  const { term } = s;
  if (e.type !== 'background') return;
  s.showMode();
  if (e.phase !== 'exit' || e.by || !term.interactive) return;
  const line = `◦ ${backgroundEnded(e)}\n`;
  if (s.atPrompt && !s.viewOpen) {
    term.out.write(`\r\x1b[K${escapeControls(line)}`);
    term.rl.prompt(true);
  } else if (s.running && !term.answering && !s.viewOpen) s.render.note(line);
}

/** Ctrl-T at the prompt opens the view, keeping what was typed; during a turn it lists them above the spinner. */
function onCtrlT(s: ReplSession): void {
  if (s.viewOpen || s.term.answering) return;
  if (!s.atPrompt) {
    if (s.running) s.render.note(renderBackgroundList(s.background.list()));
    return;
  }
  void showBackgroundAtPrompt(s);
}

async function showBackgroundAtPrompt(s: ReplSession): Promise<void> {
  const { out, rl } = s.term;
  out.write('\n');
  if (s.background.list().length) await viewBackground(s);
  else out.write('No background commands in this session.\n');
  if (s.atPrompt) rl.prompt(true);
}

async function viewBackground(s: ReplSession): Promise<void> {
  s.viewOpen = true;
  try {
    await openBackgroundView(s.background, { input: process.stdin, out: s.term.out });
  } finally {
    s.viewOpen = false;
  }
}

/** Ctrl-C: cancels a question or the turn; at the prompt, the second one leaves. */
function interrupt(s: ReplSession): void {
  const { term, started } = s;
  if (term.answering) {
    term.input.cancelAnswer();
    // A question outside a turn (the plan's "Carry it out?", a wizard's): its no, and nothing more.
    if (!s.running) return;
  }
  // A second Ctrl-C while a cancelled turn is still stopping: exit now, whatever is pending.
  if (s.running?.signal.aborted) {
    const due = handoffFor(started, { interactive: true }) !== 'none';
    void exitAtOnce(started, term.info, due ? 'HANDOFF.md was not written (the previous one is kept)' : 'no handoff was due');
    return;
  }
  if (s.running) {
    s.running.abort();
    // What was typed while it worked is not sent: it comes back to the prompt, to edit or send.
    s.takenBack.push(...term.input.takeBackQueued());
    return;
  }
  // Ctrl-C on something being written throws it away, as in a shell; on an empty prompt it arms the exit.
  if (term.input.discardTyped()) {
    s.armedExit = false;
    term.out.write('^C\n');
    if (term.interactive) term.rl.prompt();
    return;
  }
  if (s.armedExit) {
    s.leaving = true;
    term.rl.close();
    return;
  }
  s.armedExit = true;
  term.out.write('\n(press Ctrl-C again to exit, or type /exit)\n');
  if (term.interactive) term.rl.prompt();
}

function slashContextFor(s: ReplSession, shellCommands: string[]): SlashContext {
  const { term } = s;
  const { out, interactive } = term;
  return {
    started: s.started,
    // What slash commands print quotes the conversation, agents, MCP servers, todos and undo records.
    out: textOnly(out),
    shellCommands,
    pick: interactive ? (items: PickItem[]) => pickAgent(items, { input: process.stdin, out, env: process.env }) : undefined,
    viewBackground: interactive ? () => viewBackground(s) : undefined,
    ask: interactive ? (q: string) => askQuestion(term, q) : undefined,
    edit: (initial) => term.input.edit(initial),
    cancellable: (work) => {
      s.running = new AbortController();
      return work(s.running.signal).finally(() => (s.running = null));
    },
  };
}

/** How plan mode asks and runs its turns; Ctrl-C cancels them as it does a turn. */
function planIo(s: ReplSession, turn: AbortController): PlanIo {
  const { term } = s;
  return {
    out: term.out,
    ask: (q) => nextAnswer(term, q),
    turn: async (message) => {
      const running = (s.running = turn.signal.aborted ? new AbortController() : turn);
      return s.run.prompt(message, { signal: running.signal }).finally(() => (s.running = null));
    },
    modeChanged: s.showMode,
  };
}

/** The messages, one after another, until the input ends or /exit. */
async function readMessages(s: ReplSession, slash: SlashContext): Promise<void> {
  const { term } = s;
  for (;;) {
    // Ctrl-D during the turn closed the input: nothing more can be typed, so the session ends.
    if (term.input.ended) {
      if (term.interactive) term.out.write('\n');
      return;
    }
    const back = s.takenBack.splice(0).join(' ');
    if (back) term.info.write(`(what you typed during the cancelled turn is back in the line: Enter sends it, Ctrl-C clears it)\n`);
    if (term.interactive) term.rl.prompt(true);
    if (back) term.input.refill(back);
    s.atPrompt = true;
    const message = await term.input.nextMessage().finally(() => (s.atPrompt = false));
    if (message === null) {
      // Ctrl-D (or Ctrl-C twice) leaves the cursor after "devx> ": what follows, and the shell's prompt, start on a line of their own.
      if (term.interactive) term.out.write('\n');
      return;
    }
    s.armedExit = false;
    const text = message.trim();
    if (!text) continue;
    if ((await handleMessage(s, slash, text)) === 'exit') return;
  }
}

/** One message: a slash command, a custom command, or a task for the model. */
async function handleMessage(s: ReplSession, slash: SlashContext, typed: string): Promise<'exit' | undefined> {
  let text = typed;
  let found = findSlash(text);
  if (found?.command.names[0] === 'edit') {
    const r = await found.command.run!(slash, found.args, text);
    if (typeof r === 'string') return;
    text = r.message;
    // What came from the editor is handled as typed (a command in it too, but not /edit again).
    found = findSlash(text);
    if (found?.command.names[0] === 'edit') found = null;
  }
  if (found) {
    const done = await found.command.run!(slash, found.args, text);
    s.showMode();
    if (done === 'exit') return 'exit';
    if (typeof done === 'string') return;
    // A command that hands on a message (/plan <task>): it is handled as if typed.
    text = done.message;
  }
  // A first word with a second slash is a path (`/tmp/app.log shows a crash`): a message, not a command.
  if (text.startsWith('/') && !text.includes('\n') && !/^\/\S*\//.test(text)) await runCustomCommand(s, slash, text);
  else await runTask(s, slash, text);
}

/** A custom command (.gemini/commands, .claude/commands, .devx/commands) is a turn of its own. */
async function runCustomCommand(s: ReplSession, slash: SlashContext, text: string): Promise<void> {
  await s.sayToolWarnings();
  const r = await keepPromptOnDiskError(s.term.out, () =>
    slash.cancellable(async (signal) => (await s.run.promptCommand(text, { signal })) ?? ('unknown' as const)),
  );
  if (r === 'unknown') s.term.out.write(`${unknownCommand(text.split(/\s+/)[0], s.term.slashNames)}\n`);
  else s.lastFailed = r === null || r === undefined || r.status === 'error';
}

/** What an unknown `/name` gets: the commands it starts (`/stat` → /stats) or that start it, and where the list is. */
function unknownCommand(name: string, known: string[]): string {
  const near = known.filter((k) => k.startsWith(name) || name.startsWith(k)).slice(0, 3);
  return `unknown command ${escapeControls(name)}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; /help lists them`;
}

async function runTask(s: ReplSession, slash: SlashContext, text: string): Promise<void> {
  const { term, run, started } = s;
  // A script piped in may be anyone's file: its lines are echoed as text.
  if (!term.interactive) term.out.write(`devx> ${escapeControls(text)}\n`);
  // A Ctrl-C from the first moment cancels the turn, while MCP servers or gemini still start too.
  const turn = (s.running = new AbortController());
  await Promise.race([s.sayToolWarnings(), whenAborted(turn.signal)]);
  s.running = null; // a Ctrl-C at maybeDelegate's question is the question's
  if (!turn.signal.aborted) await maybeDelegate(text, started, slash.out, term.interactive ? term.input.nextLine : null);
  s.running = turn;
  const r = await keepPromptOnDiskError(term.out, () =>
    run.mode === 'plan' ? planTask(started, text, planIo(s, turn)) : run.prompt(text, { signal: turn.signal }),
  );
  s.lastFailed = r === null || r.status === 'error';
  s.running = null;
}

/** A background command that ended by itself, in a line: `bg1 exited (exit 3) after 2s: npm run build`. */
function backgroundEnded(e: BackgroundEvent): string {
  const how = e.exitCode !== null && e.exitCode !== undefined ? `exit ${e.exitCode}` : (e.signal ?? 'no exit code');
  const cmd = e.cmd.split('\n')[0];
  return `${e.id} exited (${how}) after ${shortDuration(e.durationMs ?? 0)}: ${cmd.length > 80 ? `${cmd.slice(0, 79)}…` : cmd}`;
}
