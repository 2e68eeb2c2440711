// `devx handoff --to claude`: write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop.
// `devx handoff --wait`: wait for GEMINI_TURN: READY, run a session seeded with the handoff, hand back.
import { findProjectRoot } from '../../config/paths.js';
import path from 'node:path';
import { handoffPath, listHandoffs, parseHandoff, bullets } from '../../session/handoff.js';
import { AGENT_FLAGS, UsageError, EXIT, withSession } from '../shared.js';
import { endSession } from '../../runtime/startSession.js';
import { createRenderer } from '../renderEvents.js';
import { defineCommand, flagTable, pickFlags } from '../command.js';
import { escapeControls } from '../../util/terminalText.js';
import { READ_LIMITS, readTextOrNull } from '../../util/readRegularFileSync.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const handoffCommand = defineCommand({
  name: 'handoff',
  summary: 'hand the work to Claude Code through HANDOFF.md, or wait for it to hand back',
  usage: ['handoff --to claude', 'handoff --wait [--timeout SECONDS] [--interval MS]', 'handoff --list'],
  flags: {
    ...flagTable(`
      --to <claude>        write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop
      --wait               wait for GEMINI_TURN: READY in HANDOFF.md, work on it, then hand back
      --timeout <SECONDS>  with --wait: give up after this long
      --interval <MS>      with --wait: how often to look (default 1000)
      --list               the handoffs devx replaced, kept in .devx/handoffs/ (newest last)
`),
    ...pickFlags(AGENT_FLAGS, 'yes', 'approval-mode', 'model'),
  },
  async run({ values: raw }) {
    const values = raw as {
      to?: string;
      wait?: boolean;
      list?: boolean;
      timeout?: string;
      interval?: string;
      yes?: boolean;
      'approval-mode'?: string;
      model?: string;
    };
    if (values.list) {
      const root = findProjectRoot(process.cwd());
      const kept = listHandoffs(root);
      if (!kept.length) process.stdout.write('no replaced handoffs are kept yet (.devx/handoffs/ is empty)\n');
      for (const f of kept) {
        const h = parseHandoff(readTextOrNull(f, READ_LIMITS.note) ?? '');
        const summary =
          (h.sections.Summary ?? '')
            .split('\n')
            .find((l) => l.trim())
            ?.replace(/^[-*]\s*/, '') ?? '';
        process.stdout.write(`${path.relative(root, f)}  ${h.turn ?? '(no turn marker)'}  ${escapeControls(summary.slice(0, 100))}\n`);
      }
      return EXIT.ok;
    }
    if (Boolean(values.to) === Boolean(values.wait))
      throw new UsageError('usage: devx handoff --to claude | devx handoff --wait [--timeout SECONDS] | devx handoff --list');
    if (values.to && values.to !== 'claude') throw new UsageError('devx handoff --to takes "claude"');
    const root = findProjectRoot(process.cwd());

    if (values.wait) {
      const limitMs = values.timeout ? Number(values.timeout) * 1000 : Infinity;
      const every = values.interval ? Number(values.interval) : 1000;
      const started = Date.now();
      process.stderr.write(`devx: waiting for GEMINI_TURN: READY in ${handoffPath(root)}…\n`);
      for (;;) {
        const text = readTextOrNull(handoffPath(root), READ_LIMITS.note) ?? '';
        if (parseHandoff(text).turn === 'GEMINI_TURN') break;
        if (Date.now() - started > limitMs) {
          process.stderr.write('devx: timed out waiting for GEMINI_TURN: READY\n');
          return EXIT.failed;
        }
        await sleep(every);
      }
    }

    return withSession(values, { info: process.stderr }, async (s) => {
      let status: number = EXIT.ok;
      let failed = false;
      if (values.wait) {
        const h = parseHandoff(readTextOrNull(handoffPath(root), READ_LIMITS.note) ?? '');
        const next = bullets(h.sections.Next);
        const prompt = `It is your turn (GEMINI_TURN) in HANDOFF.md. Work on what it asks${next.length ? `:\n${next.map((n) => `- ${n}`).join('\n')}` : '.'}\nAnswer its open questions where you can. When you are done, reply with a short summary.`;
        const render = createRenderer({ out: process.stderr, answerOut: process.stdout });
        s.run.subscribe(render.onEvent);
        const result = await s.run.prompt(prompt);
        if (result.status !== 'answered') {
          status = EXIT.failed;
          failed = true;
        }
      }
      const setting = s.run.agent.settings.handoff;
      const note = await endSession(s, { draft: setting === 'off' ? 'plain' : failed ? 'plain' : setting, turn: 'CLAUDE_TURN' });
      process.stderr.write(`devx: ${escapeControls(note) || 'HANDOFF.md written.'} It is Claude's turn (CLAUDE_TURN: READY).\n`);
      return status;
    });
  },
});
