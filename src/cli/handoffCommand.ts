// `devx handoff --to claude`: write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop.
// `devx handoff --wait`: wait for GEMINI_TURN: READY, run a session seeded with the handoff, hand back.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { findProjectRoot } from '../config/paths.js';
import { handoffPath, parseHandoff, bullets } from '../session/handoff.js';
import { UsageError, approvalModeFrom, checkBinaries, EXIT, overridesFrom } from './runCli.js';
import { endSession, EXIT_BUSY, SessionBusyError, sessionSink, startSession } from './startSession.js';
import { runTurn } from '../agent/loop.js';
import { createRenderer } from './renderEvents.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runHandoffCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      to: { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      interval: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      'approval-mode': { type: 'string' },
      model: { type: 'string', short: 'm' },
    },
    strict: true,
  });
  if (Boolean(values.to) === Boolean(values.wait)) throw new UsageError('usage: devx handoff --to claude | devx handoff --wait [--timeout SECONDS]');
  if (values.to && values.to !== 'claude') throw new UsageError('devx handoff --to takes "claude"');
  const root = findProjectRoot(process.cwd());

  if (values.wait) {
    const limitMs = values.timeout ? Number(values.timeout) * 1000 : Infinity;
    const every = values.interval ? Number(values.interval) : 1000;
    const started = Date.now();
    process.stderr.write(`devx: waiting for GEMINI_TURN: READY in ${handoffPath(root)}…\n`);
    for (;;) {
      const text = fs.existsSync(handoffPath(root)) ? fs.readFileSync(handoffPath(root), 'utf8') : '';
      if (parseHandoff(text).turn === 'GEMINI_TURN') break;
      if (Date.now() - started > limitMs) {
        process.stderr.write('devx: timed out waiting for GEMINI_TURN: READY\n');
        return EXIT.failed;
      }
      await sleep(every);
    }
  }

  let s;
  try {
    s = await startSession({ cwd: process.cwd(), env: process.env, overrides: overridesFrom({ model: values.model }), yes: values.yes, approvalMode: approvalModeFrom(values) });
  } catch (err) {
    if (!(err instanceof SessionBusyError)) throw err;
    process.stderr.write(`devx: ${err.message}\n`);
    return EXIT_BUSY;
  }
  try {
    const missing = checkBinaries(s.agent, process.env);
    if (missing) {
      process.stderr.write(`${missing}\n`);
      return EXIT.missingBinary;
    }
    let status: number = EXIT.ok;
    if (values.wait) {
      const h = parseHandoff(fs.readFileSync(handoffPath(root), 'utf8'));
      const next = bullets(h.sections.Next);
      const prompt = `It is your turn (GEMINI_TURN) in HANDOFF.md. Work on what it asks${next.length ? `:\n${next.map((n) => `- ${n}`).join('\n')}` : '.'}\nAnswer its open questions where you can. When you are done, reply with a short summary.`;
      const sink = sessionSink(s);
      const render = createRenderer({ out: process.stderr, answerOut: process.stdout });
      const result = await runTurn(s.agent.deps, [...s.agent.history], prompt, {
        signal: new AbortController().signal,
        emit: (e) => {
          sink(e);
          render.onEvent(e);
        },
      });
      if (result.status !== 'answered') status = EXIT.failed;
    }
    const note = await endSession(s, 'CLAUDE_TURN');
    process.stderr.write(`devx: ${note || 'HANDOFF.md written.'} It is Claude's turn (CLAUDE_TURN: READY).\n`);
    return status;
  } finally {
    s.session.abandon();
    s.agent.dispose();
  }
}
