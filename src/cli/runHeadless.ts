// `devx run "<prompt>"`: one task, headless, then exit with a status code.
import { applyResume, endSession, EXIT_BUSY, SessionBusyError, sessionSink, startSession, type Started } from './startSession.js';
import { approvalModeFrom, checkBinaries, EXIT, overridesFrom, type CliFlags } from './runCli.js';
import { createRenderer } from './renderEvents.js';
import { runTurn, type AgentEvent } from '../agent/loop.js';

export async function runHeadless(prompt: string, flags: CliFlags & { resume?: string }): Promise<number> {
  let started: Started;
  try {
    started = await startSession({ cwd: process.cwd(), env: process.env, overrides: overridesFrom(flags), yes: flags.yes, approvalMode: approvalModeFrom(flags) });
  } catch (err) {
    if (!(err instanceof SessionBusyError)) throw err;
    process.stderr.write(`devx: ${err.message}\n`);
    return EXIT_BUSY;
  }
  const { agent, session } = started;
  try {
    if (started.orientation) process.stderr.write(`${started.orientation}\n`);
    if (flags.resume) process.stderr.write(`${applyResume(started, flags.resume) ?? 'devx: no earlier session to resume'}\n`);
    for (const w of agent.warnings) process.stderr.write(`devx: warning: ${w}\n`);
    const missing = checkBinaries(agent, process.env);
    if (missing) {
      process.stderr.write(`${missing}\n`);
      return EXIT.missingBinary;
    }
    const events: AgentEvent[] = [];
    const render = createRenderer({ out: process.stderr, answerOut: flags.json ? null : process.stdout });
    const sink = sessionSink(started);
    // Ctrl-C or SIGTERM before the turn ends still ends the session cleanly (lock, record, handoff).
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
    const prior = [...agent.history];
    const result = await runTurn(agent.deps, prior, prompt, {
      signal: controller.signal,
      emit: (e) => {
        events.push(e);
        sink(e);
        render.onEvent(e);
      },
    });
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    if (flags.json) {
      const usage = events.flatMap((e) => (e.type === 'model_response' && e.usage ? [e.usage] : []));
      process.stdout.write(
        JSON.stringify(
          {
            status: result.status,
            answer: result.answer ?? null,
            error: result.error ?? null,
            rounds: result.rounds,
            root: agent.root,
            messages: result.added,
            toolCalls: events.flatMap((e) => (e.type === 'tool_end' ? [{ tool: e.outcome.tool, args: e.outcome.args, status: e.outcome.status, decision: e.outcome.decision?.decision, durationMs: e.outcome.durationMs }] : [])),
            usage: {
              input: usage.reduce((n, u) => n + (u.input ?? 0), 0),
              output: usage.reduce((n, u) => n + (u.output ?? 0), 0),
            },
          },
          null,
          2,
        ) + '\n',
      );
    }
    const note = await endSession(started);
    if (note) process.stderr.write(`devx: ${note}\n`);
    if (result.status === 'answered') return EXIT.ok;
    if (result.status === 'cancelled') return EXIT.cancelled;
    if (result.error?.kind === 'binary_missing') return EXIT.missingBinary;
    return EXIT.failed;
  } finally {
    session.abandon();
    agent.dispose();
  }
}
