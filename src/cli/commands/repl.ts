// The interactive session. With a TTY it prompts, confirms commands and shows a spinner; with piped
// stdin it runs the lines as a script (nobody to ask, so actions that need approval are refused
// unless --yes was given).
import readline from 'node:readline';
import { applyResume, endSession, handoffFor, type Started } from '../../runtime/startSession.js';
import { DiskError } from '../../util/ownedFile.js';
import { cycleModesOnShiftTab, planTask, type PlanIo } from '../planFlow.js';
import { AGENT_FLAGS, EXIT, UsageError, approvalModeFrom, overridesFrom, withSession, type AgentFlagValues } from '../shared.js';
import { defineCommand, flagTable } from '../command.js';
import { createRenderer } from '../renderEvents.js';
import type { ApprovalRequest, PersonAnswer } from '../../tools/runToolCall.js';
import { makeVisible } from '../visible.js';
import { maybeDelegate, switchAgent } from '../agentSlash.js';
import { findSlash, slashNames as builtinSlashNames, type SlashContext } from '../slashCommands.js';
import { packageVersion } from '../../util/packageRoot.js';
import { createReplInput } from '../replInput.js';
import { colorDiff, textOnly, useColor } from '../visible.js';
import { pickAgent, type PickItem } from '../agentPicker.js';
import { openBackgroundView } from '../backgroundView.js';
import { renderBackgroundList, shortDuration, type BackgroundEvent } from '../../tools/backgroundCommands.js';
import { killAllGroups } from '../../util/processGroups.js';
import { escapeControls } from '../../util/terminalText.js';
import { whenAborted } from '../../util/whenAborted.js';

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
      --resume <id>   continue a session (default: the one that crashed, else the last)
      --agent <name>  start with this agent as the persona
      --acp           serve the Agent Client Protocol on stdio (for Zed and other ACP editors)
`),
  },
  run: ({ values }, cli) =>
    values.acp
      ? runAcp(values as AgentFlagValues & { agent?: string; resume?: string })
      : runRepl(values as Parameters<typeof runRepl>[0], cli?.table.map((e) => e.name) ?? []),
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

async function runRepl(flags: { resume?: string; agent?: string } & Parameters<typeof withSession>[0], shellCommands: string[]): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY);
  const out = process.stdout;
  const info = interactive ? out : process.stderr;
  // Tab completes slash commands, devx's own and the custom ones of this session.
  let slashNames: string[] = [];
  const completer = (line: string): [string[], string] =>
    line.startsWith('/') && !/\s/.test(line) ? [slashNames.filter((n) => n.startsWith(line)), line] : [[], line];
  // A lone Esc (closing the background view) is known 100 ms after it arrives rather than Node's 500: an
  // escape sequence (an arrow key) comes in one read from a terminal.
  const rl = readline.createInterface({ input: process.stdin, output: out, terminal: interactive, prompt: 'devx> ', completer, escapeCodeTimeout: 100 });
  const input = createReplInput(rl, { interactive, out, env: process.env });
  const { nextLine } = input;
  let answering = false;
  const color = useColor(out, process.env);

  const askApproval = async (req: ApprovalRequest): Promise<PersonAnswer> => {
    // What will happen (a diff of the repository's text, the directory a command runs in), then why the policy
    // asks; the text's controls are shown before devx colours the diff.
    const shown = req.preview ? escapeControls(req.preview) : '';
    const preview = shown ? `${(color ? colorDiff(shown) : shown).replace(/^/gm, '  ')}\n` : '';
    out.write(
      `\n? devx wants to ${makeVisible(req.summary)}\n${preview}  (asks because ${escapeControls(req.decision.reason)})\n  Allow? [y]es / [n]o / [a]lways this session: `,
    );
    answering = true;
    const got = await input.nextAnswer().finally(() => (answering = false));
    if (got === null) {
      // Ctrl-C (or the end of input) at a confirmation: no, and the turn stops.
      out.write('no (the turn is cancelled)\n');
      return 'no';
    }
    const answer = got.trim().toLowerCase();
    if (answer === 'a' || answer === 'always') return 'always';
    return answer === 'y' || answer === 'yes' ? 'yes' : 'no';
  };

  try {
    return await withSession(flags, { info, prompt: interactive ? askApproval : undefined, stream: interactive, lazyTools: true }, async (started) => {
      const { run } = started;
      info.write(
        escapeControls(
          `devx ${packageVersion()} · ${run.agent.root} · ${run.agent.settings.provider} · model ${run.agent.settings.model}${run.persona ? ` · persona ${run.persona.name}` : ''}${run.history.length ? ` · ${run.history.length} messages of history (/clear to start over)` : ''}\n`,
        ),
      );
      // The last session, its todos and HANDOFF.md's next items: a repository's or a model's text.
      if (started.orientation) info.write(`${escapeControls(started.orientation)}\n`);
      if (flags.resume) info.write(`${escapeControls(applyResume(started, flags.resume) ?? 'no earlier session to resume')}\n`);
      if (flags.agent) out.write(`${escapeControls(switchAgent(started, flags.agent))}\n`);
      if (interactive) info.write('Type a task, or /help.\n');

      const listSlashNames = () =>
        (slashNames = [
          ...builtinSlashNames().map((n) => `/${n}`),
          ...[...run.agent.commands.commands.values()].flatMap((c) => [`/${c.name}`, `/${c.scope}:${c.name}`]),
        ].sort());
      listSlashNames();
      // MCP servers start while the person types: their prompts join the completions when ready, and a
      // server that did not start is said once, before the first turn (a turn waits for them anyway).
      const toolsReady = run.ready().then((warnings) => (listSlashNames(), warnings));
      let warned = false;
      const sayToolWarnings = async () => {
        const warnings = await toolsReady;
        if (warned) return;
        warned = true;
        for (const w of warnings) info.write(`devx: warning: ${escapeControls(w)}\n`);
      };
      const render = createRenderer({ out, answerOut: out, foldOutput: true });
      run.subscribe(render.onEvent);
      input.onCtrlO(() => render.toggleWatch());
      const showMode = cycleModesOnShiftTab({ input, run, out, rl, interactive, busy: () => running !== null });
      const planIo = (turn: AbortController): PlanIo => ({
        out,
        ask: async (q) => {
          out.write(q);
          answering = true;
          return (interactive ? input.nextAnswer() : nextLine()).finally(() => (answering = false));
        },
        turn: async (message) => {
          running = turn.signal.aborted ? new AbortController() : turn;
          return run.prompt(message, { signal: running.signal }).finally(() => (running = null));
        },
        modeChanged: showMode,
      });
      let running: AbortController | null = null;
      // Waiting at the prompt for a message (nothing else draws then), and whether the background view is open.
      let atPrompt = false;
      let viewOpen = false;
      const bg = run.agent.background;
      const viewBackground = async () => {
        viewOpen = true;
        try {
          await openBackgroundView(bg, { input: process.stdin, out });
        } finally {
          viewOpen = false;
        }
      };
      // The prompt counts the background commands that run; one that ends by itself is said where the person looks.
      run.subscribe((e) => {
        if (e.type !== 'background') return;
        showMode();
        if (e.phase !== 'exit' || e.by || !interactive) return;
        const line = `◦ ${backgroundEnded(e)}\n`;
        if (atPrompt && !viewOpen) {
          out.write(`\r\x1b[K${escapeControls(line)}`);
          rl.prompt(true);
        } else if (running && !answering && !viewOpen) render.note(line);
      });
      // Ctrl-T at the prompt opens the view, keeping what was typed; during a turn it lists them above the spinner.
      input.onCtrlT(() => {
        if (viewOpen || answering) return;
        if (!atPrompt) {
          if (running) render.note(renderBackgroundList(bg.list()));
          return;
        }
        void (async () => {
          out.write('\n');
          if (bg.list().length) await viewBackground();
          else out.write('No background commands in this session.\n');
          if (atPrompt) rl.prompt(true);
        })();
      });
      let armedExit = false;
      let lastFailed = false;
      let leaving = false;
      const onInterrupt = () => {
        if (answering) input.cancelAnswer();
        // A second Ctrl-C while a cancelled turn is still stopping: exit now, whatever is pending.
        if (running?.signal.aborted) {
          const due = handoffFor(started, { interactive: true }) !== 'none';
          void exitAtOnce(started, info, due ? 'HANDOFF.md was not written (the previous one is kept)' : 'no handoff was due');
          return;
        }
        if (running) {
          running.abort();
          return;
        }
        if (armedExit) {
          leaving = true;
          rl.close();
          return;
        }
        armedExit = true;
        out.write('\n(press Ctrl-C again to exit, or type /exit)\n');
        if (interactive) rl.prompt();
      };
      rl.on('SIGINT', onInterrupt);
      process.on('SIGINT', onInterrupt);
      const slashContext: SlashContext = {
        started,
        // What slash commands print quotes the conversation, agents, MCP servers, todos and undo records.
        out: textOnly(out),
        shellCommands,
        pick: interactive ? (items: PickItem[]) => pickAgent(items, { input: process.stdin, out, env: process.env }) : undefined,
        viewBackground: interactive ? viewBackground : undefined,
        // The create and init wizards ask through this input (a second reader of stdin would fight it).
        ask: interactive ? (q: string) => (out.write(q), (answering = true), input.nextAnswer().finally(() => (answering = false))) : undefined,
        edit: (initial) => input.edit(initial),
        cancellable: (work) => {
          running = new AbortController();
          return work(running.signal).finally(() => (running = null));
        },
      };
      try {
        for (;;) {
          if (interactive) rl.prompt();
          atPrompt = true;
          const message = await input.nextMessage().finally(() => (atPrompt = false));
          if (message === null) {
            // Ctrl-D (or Ctrl-C twice) leaves the cursor after "devx> ": what follows, and the shell's prompt, start on a line of their own.
            if (interactive) out.write('\n');
            break;
          }
          armedExit = false;
          let text = message.trim();
          if (!text) continue;
          let slash = findSlash(text);
          if (slash?.command.names[0] === 'edit') {
            const r = await slash.command.run!(slashContext, slash.args, text);
            if (typeof r === 'string') continue;
            text = r.message;
            // What came from the editor is handled as typed (a command in it too, but not /edit again).
            slash = findSlash(text);
            if (slash?.command.names[0] === 'edit') slash = null;
          }
          if (slash) {
            const done = await slash.command.run!(slashContext, slash.args, text);
            showMode();
            if (done === 'exit') break;
            if (typeof done === 'string') continue;
            // A command that hands on a message (/plan <task>): it is handled as if typed.
            text = done.message;
          }
          if (text.startsWith('/') && !text.includes('\n')) {
            // A custom command (.gemini/commands, .claude/commands, .devx/commands) is a turn of its own.
            await sayToolWarnings();
            const r = await keepPromptOnDiskError(out, () => slashContext.cancellable((signal) => run.promptCommand(text, { signal })));
            if (r === null) lastFailed = true;
            else if (r) lastFailed = r.status === 'error';
            else out.write(`unknown command ${escapeControls(text.split(/\s+/)[0])}; /help lists them\n`);
            continue;
          }
          // A script piped in may be anyone's file: its lines are echoed as text.
          if (!interactive) out.write(`devx> ${escapeControls(text)}\n`);
          // A Ctrl-C from the first moment cancels the turn, while MCP servers or gemini still start too.
          const turn = (running = new AbortController());
          await Promise.race([sayToolWarnings(), whenAborted(turn.signal)]);
          running = null; // a Ctrl-C at maybeDelegate's question is the question's
          if (!turn.signal.aborted) await maybeDelegate(text, started, slashContext.out, interactive ? nextLine : null);
          running = turn;
          const r = await keepPromptOnDiskError(out, () =>
            run.mode === 'plan' ? planTask(started, text, planIo(turn)) : run.prompt(text, { signal: turn.signal }),
          );
          lastFailed = r === null || r.status === 'error';
          running = null;
        }
      } finally {
        process.off('SIGINT', onInterrupt);
        rl.off('SIGINT', onInterrupt);
        input.onCtrlO(null);
        input.onShiftTab(null);
        input.onCtrlT(null);
        render.stop();
      }
      return await finishSession(started, { info, rl, failed: lastFailed, leaving });
    });
  } finally {
    input.close();
    rl.close();
  }
}

/** A background command that ended by itself, in a line: `bg1 exited (exit 3) after 2s: npm run build`. */
function backgroundEnded(e: BackgroundEvent): string {
  const how = e.exitCode !== null && e.exitCode !== undefined ? `exit ${e.exitCode}` : (e.signal ?? 'no exit code');
  const cmd = e.cmd.split('\n')[0];
  return `${e.id} exited (${how}) after ${shortDuration(e.durationMs ?? 0)}: ${cmd.length > 80 ? `${cmd.slice(0, 79)}…` : cmd}`;
}
