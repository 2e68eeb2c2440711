// `devx run "<prompt>"`: one task, headless, then exit with a status code.
import { createAgent } from './createAgent.js';
import { approvalModeFrom, checkBinaries, EXIT, overridesFrom, type CliFlags } from './runCli.js';
import { createAuditSubscriber } from '../audit/auditLog.js';
import { createRenderer } from './renderEvents.js';
import { runTurn, type AgentEvent } from '../agent/loop.js';
import { createHistoryWriter } from '../session/historyWriter.js';

export async function runHeadless(prompt: string, flags: CliFlags): Promise<number> {
  const agent = await createAgent({ cwd: process.cwd(), env: process.env, overrides: overridesFrom(flags), yes: flags.yes, approvalMode: approvalModeFrom(flags) });
  try {
    for (const w of agent.warnings) process.stderr.write(`devx: warning: ${w}\n`);
    const missing = checkBinaries(agent, process.env);
    if (missing) {
      process.stderr.write(`${missing}\n`);
      return EXIT.missingBinary;
    }
    const events: AgentEvent[] = [];
    const render = createRenderer({ out: process.stderr, answerOut: flags.json ? null : process.stdout });
    const persist = createHistoryWriter(agent.root, agent.historyPath, agent.history);
    const audit = createAuditSubscriber(agent.auditPath, agent.session);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
    const prior = [...agent.history];
    const result = await runTurn(agent.deps, prior, prompt, {
      signal: controller.signal,
      emit: (e) => {
        events.push(e);
        persist(e);
        audit(e);
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
    if (result.status === 'answered') return EXIT.ok;
    if (result.status === 'cancelled') return EXIT.cancelled;
    if (result.error?.kind === 'binary_missing') return EXIT.missingBinary;
    return EXIT.failed;
  } finally {
    agent.dispose();
  }
}
