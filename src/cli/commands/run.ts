// `devx run "<prompt>"`: one task, headless, then exit with a status code.
import { AGENT_FLAGS, EXIT, UsageError, withSession, type AgentFlagValues } from '../shared.js';
import type { Started } from '../../runtime/startSession.js';
import { PersonaError } from '../../runtime/agentRun.js';
import { defineCommand, flagTable } from '../command.js';
import { createRenderer } from '../renderEvents.js';
import { createStreamJson } from '../streamJson.js';
import { applyResume, endSession, handoffFor } from '../../runtime/startSession.js';
import type { AgentEvent } from '../../core/loop.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

/** `--agent <name>`: the run works as that agent; a name devx does not know stops it (exit 2), naming the ones it has. */
function usePersonaOrFail(s: Started, name: string): void {
  try {
    s.run.usePersona(name);
  } catch (err) {
    if (err instanceof PersonaError) throw new UsageError(err.message);
    throw err;
  }
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
      --resume <id>  continue an earlier session (default: the one that crashed, else the last)
      --handoff      write HANDOFF.md at the end (one-shot runs write none unless asked)
      --agent <name>  run as this agent (its prompt, tools and model)
`),
  },
  async run({ values, positionals }) {
    const flags = values as AgentFlagValues & { json?: boolean; resume?: string; handoff?: boolean; 'output-format'?: string; agent?: string };
    const format = flags['output-format'] ?? (flags.json ? 'json' : 'text');
    if (!['text', 'json', 'stream-json'].includes(format)) throw new UsageError(`--output-format takes text, json or stream-json; got "${format}"`);
    if (positionals.length === 0) throw new UsageError('devx run needs a prompt: devx run "fix the failing test"');
    const prompt = positionals.join(' ');
    return withSession(flags, { info: process.stderr, stream: format === 'stream-json' }, async (started) => {
      const { run } = started;
      if (started.orientation) process.stderr.write(`${escapeControls(started.orientation)}\n`);
      if (flags.resume) process.stderr.write(`${escapeControls(applyResume(started, flags.resume) ?? 'devx: no earlier session to resume')}\n`);
      if (flags.agent) usePersonaOrFail(started, flags.agent);
      const events: AgentEvent[] = [];
      const render = createRenderer({ out: process.stderr, answerOut: format === 'text' ? process.stdout : null });
      const stream = format === 'stream-json' ? createStreamJson((l) => process.stdout.write(l)) : null;
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
        const usage = events.flatMap((e) => (e.type === 'model_response' && e.usage ? [e.usage] : []));
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
          usage: { input: usage.reduce((n, u) => n + (u.input ?? 0), 0), output: usage.reduce((n, u) => n + (u.output ?? 0), 0) },
        };
        process.stdout.write(`${printableJson(transcript, 2)}\n`);
      }
      const draft = handoffFor(started, { asked: flags.handoff, cancelled: result.status === 'cancelled', failed: result.status !== 'answered' });
      const note = await endSession(started, { draft });
      if (note) process.stderr.write(`devx: ${escapeControls(note)}\n`);
      if (result.status === 'answered') return EXIT.ok;
      if (result.status === 'cancelled') return EXIT.cancelled;
      if (result.error?.kind === 'binary_missing') return EXIT.missingBinary;
      return EXIT.failed;
    });
  },
});
