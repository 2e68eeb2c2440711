// `devx run "<prompt>"`: one task, headless, then exit with a status code.
import { AGENT_FLAGS, EXIT, UsageError, withSession, type AgentFlagValues } from '../shared.js';
import type { Started } from '../../runtime/startSession.js';
import { PersonaError } from '../../runtime/agentRun.js';
import { defineCommand, flagTable, ioOf, type CliIo } from '../command.js';
import { createRenderer } from '../renderEvents.js';
import { createStreamJson } from '../streamJson.js';
import { applyResume, endSession, handoffFor } from '../../runtime/startSession.js';
import type { AgentEvent } from '../../core/loop.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';
import { findHeadlessSlash, runHeadlessSlash, type HeadlessSlashResult } from '../headlessSlash.js';

/** `--agent <name>`: the run works as that agent; a name devx does not know stops it (exit 2), naming the ones it has. */
function usePersonaOrFail(s: Started, name: string): void {
  try {
    s.run.usePersona(name);
  } catch (err) {
    if (err instanceof PersonaError) throw new UsageError(err.message);
    throw err;
  }
}

/** Runs devx's own slash command, then ends the session; its exit code (2 for one that needs the REPL). */
async function runOwnCommand(
  started: Started,
  own: NonNullable<ReturnType<typeof findHeadlessSlash>>,
  handoff: boolean | undefined,
  io: CliIo,
): Promise<number> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let r: HeadlessSlashResult;
  try {
    r = await runHeadlessSlash(own, started, { out: io.stdout, signal: controller.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if ('refused' in r) io.stderr.write(`devx: ${escapeControls(r.refused)}\n`);
  const code = 'refused' in r ? EXIT.usage : controller.signal.aborted ? EXIT.cancelled : r.code;
  const note = await endSession(started, { draft: handoffFor(started, { asked: handoff, cancelled: code === EXIT.cancelled, failed: code !== EXIT.ok }) });
  if (note) io.stderr.write(`devx: ${escapeControls(note)}\n`);
  return code;
}

/** What `--continue` carries on, said before the turn. */
function continueLine(messages: number): string {
  return messages
    ? `devx: continuing the project's conversation (${messages} message${messages === 1 ? '' : 's'} in .devx/history.json)`
    : 'devx: no earlier conversation in .devx/history.json; starting a new one';
}

export const runCommand = defineCommand({
  name: 'run',
  summary: 'run one task headless, then exit (0 answered, 1 failed, 130 cancelled)',
  usage: ['run "<prompt>" [options]'],
  flags: {
    ...AGENT_FLAGS,
    ...flagTable(`
      --json                  print a machine-readable transcript on stdout (= --output-format json)
      --output-format <fmt>   text (the answer), json (one transcript at the end) or stream-json (devx's events as JSON lines)
  -c, --continue              carry on the project's conversation (one-shot runs otherwise start empty, as gemini -p and claude -p do)
      --resume <id>           continue an earlier session (default: where work last stopped)
      --handoff               write HANDOFF.md at the end (one-shot runs write none unless asked)
      --agent <name>          run as this agent (its prompt, tools and model)
`),
  },
  async run({ values, positionals }, cli) {
    const io = ioOf(cli);
    const flags = values as AgentFlagValues & {
      json?: boolean;
      resume?: string;
      handoff?: boolean;
      'output-format'?: string;
      agent?: string;
      continue?: boolean;
    };
    const format = flags['output-format'] ?? (flags.json ? 'json' : 'text');
    if (!['text', 'json', 'stream-json'].includes(format)) throw new UsageError(`--output-format takes text, json or stream-json; got "${format}"`);
    if (positionals.length === 0) throw new UsageError('devx run needs a prompt: devx run "fix the failing test"');
    const prompt = positionals.join(' ');
    const carryOn = Boolean(flags.continue || flags.resume);
    // `devx run "/agent:status"`: devx's own command runs as in the REPL (no model turn).
    const own = findHeadlessSlash(prompt);
    const session = {
      info: io.stderr,
      stream: format === 'stream-json',
      history: carryOn ? ('project' as const) : ('fresh' as const),
      modelOptional: own !== null,
      where: io,
    };
    return withSession(flags, session, async (started) => {
      const { run } = started;
      if (flags.continue && !flags.resume) io.stderr.write(`${continueLine(run.history.length)}\n`);
      if (started.orientation) io.stderr.write(`${escapeControls(started.orientation)}\n`);
      if (flags.resume) io.stderr.write(`${escapeControls(applyResume(started, flags.resume) ?? 'devx: no earlier session to resume')}\n`);
      if (flags.agent) usePersonaOrFail(started, flags.agent);
      if (own) return runOwnCommand(started, own, flags.handoff, io);
      const events: AgentEvent[] = [];
      const render = createRenderer({ out: io.stderr, answerOut: format === 'text' ? io.stdout : null, env: io.env });
      const stream = format === 'stream-json' ? createStreamJson((l) => io.stdout.write(l)) : null;
      run.subscribe((e) => {
        events.push(e);
        render.onEvent(e);
        stream?.(e);
      });
      // Ctrl-C or SIGTERM before the turn ends still ends the session cleanly (lock, record).
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      let result;
      try {
        // `devx run "/name args"` runs a custom command (its text, injections fetched through the policy).
        result =
          (prompt.startsWith('/') ? await run.promptCommand(prompt, { signal: controller.signal }) : null) ??
          (await run.prompt(prompt, { signal: controller.signal }));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (format === 'json') {
        const transcript = {
          status: result.status,
          answer: result.answer ?? null,
          error: result.error ?? null,
          rounds: result.rounds,
          root: run.agent.root,
          messages: result.added,
          toolCalls: events.flatMap((e) =>
            e.type === 'tool_end'
              ? [
                  {
                    tool: e.outcome.tool,
                    args: e.outcome.args,
                    status: e.outcome.status,
                    decision: e.outcome.decision?.decision,
                    durationMs: e.outcome.durationMs,
                  },
                ]
              : [],
          ),
          // Tokens as the model CLI reported them (input, cached, output), requests and time, sub-agents' included.
          usage: { ...run.usage.session },
        };
        io.stdout.write(`${printableJson(transcript, 2)}\n`);
      }
      const draft = handoffFor(started, { asked: flags.handoff, cancelled: result.status === 'cancelled', failed: result.status !== 'answered' });
      const note = await endSession(started, { draft });
      if (note) io.stderr.write(`devx: ${escapeControls(note)}\n`);
      if (result.status === 'answered') return EXIT.ok;
      if (result.status === 'cancelled') return EXIT.cancelled;
      if (result.error?.kind === 'binary_missing') return EXIT.missingBinary;
      return EXIT.failed;
    });
  },
});
