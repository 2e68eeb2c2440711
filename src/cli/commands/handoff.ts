// `devx handoff --to claude`: write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop.
// `devx handoff --wait`: wait for GEMINI_TURN: READY, run a session seeded with the handoff, hand back.
import { findProjectRoot } from '../../config/paths.js';
import path from 'node:path';
import { adoptHandoff, handoffPath, isOwnHandoff, listHandoffs, parseHandoff, bullets } from '../../session/handoff.js';
import { readProjectNote } from '../../session/projectFiles.js';
import { AGENT_FLAGS, UsageError, EXIT, withSession } from '../shared.js';
import { endSession } from '../../runtime/startSession.js';
import { createRenderer } from '../renderEvents.js';
import { defineCommand, flagTable, pickFlags } from '../command.js';
import { escapeControls } from '../../util/terminalText.js';
import { READ_LIMITS, readTextOrNull } from '../../util/readRegularFileSync.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const NOT_YOURS =
  'HANDOFF.md says GEMINI_TURN, but devx did not write it for you nor see it written while it waited (it may have come with the project), so devx does not work on it. If you or your Claude Code wrote it: devx handoff --adopt; if not, remove it: devx sessions --remove-set-aside';

/** `devx handoff --adopt`: the user says HANDOFF.md is theirs. */
function adopt(root: string): number {
  if (readProjectNote(root, 'HANDOFF.md') === undefined) {
    process.stderr.write(`devx: there is no HANDOFF.md in ${root} to adopt\n`);
    return EXIT.usage;
  }
  if (!adoptHandoff(root, new Date())) {
    process.stderr.write('devx: HANDOFF.md cannot be marked as yours: ~/.devx holds no owner id (is it writable?)\n');
    return EXIT.failed;
  }
  process.stderr.write('devx: HANDOFF.md is yours now: devx reads it at start and works on it when it says GEMINI_TURN.\n');
  return EXIT.ok;
}

export const handoffCommand = defineCommand({
  name: 'handoff',
  summary: 'hand the work to Claude Code through HANDOFF.md, or wait for it to hand back',
  usage: ['handoff --to claude', 'handoff --wait [--timeout SECONDS] [--interval MS]', 'handoff --list', 'handoff --adopt'],
  flags: {
    ...flagTable(`
      --to <claude>        write HANDOFF.md (CLAUDE_TURN: READY) from the conversation and stop
      --wait               wait for GEMINI_TURN: READY in HANDOFF.md, work on it, then hand back
      --timeout <SECONDS>  with --wait: give up after this long
      --interval <MS>      with --wait: how often to look (default 1000)
      --list               the handoffs devx replaced, kept in .devx/handoffs/ (newest last)
      --adopt              take HANDOFF.md as yours (you or your Claude Code wrote it without devx's line)
`),
    ...pickFlags(AGENT_FLAGS, 'yes', 'approval-mode', 'model'),
  },
  async run({ values: raw }) {
    const values = raw as {
      to?: string;
      wait?: boolean;
      list?: boolean;
      adopt?: boolean;
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
        process.stdout.write(
          `${escapeControls(path.relative(root, f))}  ${escapeControls(h.turn ?? '(no turn marker)')}  ${escapeControls(summary.slice(0, 100))}\n`,
        );
      }
      return EXIT.ok;
    }
    if (values.adopt) return adopt(findProjectRoot(process.cwd()));
    if (Boolean(values.to) === Boolean(values.wait))
      throw new UsageError('usage: devx handoff --to claude | devx handoff --wait [--timeout SECONDS] | devx handoff --list');
    if (values.to && values.to !== 'claude') throw new UsageError('devx handoff --to takes "claude"');
    const root = findProjectRoot(process.cwd());

    if (values.wait) {
      const limitMs = values.timeout ? Number(values.timeout) * 1000 : Infinity;
      const every = values.interval ? Number(values.interval) : 1000;
      const started = Date.now();
      // What is there before the waiting line is said: a file written after it is the user's hand-back.
      const first = readTextOrNull(handoffPath(root), READ_LIMITS.note) ?? '';
      process.stderr.write(`devx: waiting for GEMINI_TURN: READY in ${handoffPath(root)}…\n`);
      for (;;) {
        const text = readTextOrNull(handoffPath(root), READ_LIMITS.note) ?? '';
        if (parseHandoff(text).turn === 'GEMINI_TURN') {
          if (isOwnHandoff(root, text)) break;
          // Written while devx waited: the user's Claude Code (or the user) handed back; it is theirs from now on.
          if (text !== first) {
            adoptHandoff(root, new Date());
            break;
          }
          process.stderr.write(`devx: ${NOT_YOURS}\n`);
          return EXIT.usage;
        }
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
