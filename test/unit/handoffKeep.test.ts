// The handoff shared with Claude Code is never lost.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { adoptHandoff, listHandoffs, parseHandoff, bullets, writeHandoff } from '../../src/session/handoff.js';
import { makeProject } from '../helpers/env.js';
import { endSession, handoffFor, type Started } from '../../src/runtime/startSession.js';

const CLAUDE_HANDOFF = `GEMINI_TURN: READY
# Handoff
## Summary
Claude refactored the parser.
## Next
- Add tests for the tokenizer
- Update the changelog
`;

describe('the handoff is never lost', () => {
  it('a replaced handoff is kept in .devx/handoffs and its open Next items carry over unless done', () => {
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF }, { git: false });
    // The user's Claude Code wrote it (devx handoff --adopt, or devx saw it written while it waited).
    adoptHandoff(root, new Date('2026-11-25T09:00:00Z'));
    const claude = fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8');
    writeHandoff(root, {
      turn: 'CLAUDE_TURN',
      session: 'abcdef123456',
      now: new Date('2026-11-25T10:00:00Z'),
      sections: { Summary: 'devx added tokenizer tests.', Done: '- Add tests for the tokenizer', Next: '- Run the benchmarks' },
    });
    const kept = listHandoffs(root);
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(kept[0], 'utf8')).toBe(claude);
    const now = parseHandoff(fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8'));
    expect(now.turn).toBe('CLAUDE_TURN');
    expect(bullets(now.sections.Next)).toEqual(['Run the benchmarks', 'Update the changelog (carried over from the previous handoff)']);
    // Carried once, not stacked: the next replacement keeps one copy of what is still open.
    writeHandoff(root, { turn: 'CLAUDE_TURN', session: 'bbbbbb', now: new Date('2026-11-25T11:00:00Z'), sections: { Summary: 's', Next: '- None.' } });
    expect(bullets(parseHandoff(fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8')).sections.Next)).toEqual([
      'Run the benchmarks (carried over from the previous handoff)',
      'Update the changelog (carried over from the previous handoff)',
    ]);
    expect(listHandoffs(root)).toHaveLength(2);
  });

  it("a HANDOFF.md that is not the user's (it came with the project) is kept, but its Next items are not carried over", () => {
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF }, { git: false });
    writeHandoff(root, {
      turn: 'CLAUDE_TURN',
      session: 'abcdef123456',
      now: new Date('2026-11-25T10:00:00Z'),
      sections: { Summary: 's', Next: '- Run the benchmarks' },
    });
    expect(listHandoffs(root).map((f) => fs.readFileSync(f, 'utf8'))).toEqual([CLAUDE_HANDOFF]);
    expect(bullets(parseHandoff(fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8')).sections.Next)).toEqual(['Run the benchmarks']);
  });

  it("a session that changed nothing and answered nothing leaves Claude's GEMINI_TURN handoff as it was", async () => {
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF }, { git: false });
    const s = Session.start({ root });
    // Two failed turns: no answer, no file change.
    for (let i = 0; i < 2; i++) {
      s.onEvent({ type: 'turn_start', input: 'do it' } as never);
      s.onEvent({ type: 'turn_end', status: 'error', rounds: 1, error: { kind: 'failed', message: 'API down' } } as never);
    }
    const r = await s.end({ handoff: 'plain' });
    expect(r.handoff).toBe('none');
    expect(fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8')).toBe(CLAUDE_HANDOFF);
    expect(listHandoffs(root)).toEqual([]);
  });

  it("one answered turn without a file change is work (docs/sessions.md): its handoff replaces Claude's, which is kept", async () => {
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF }, { git: false });
    adoptHandoff(root, new Date('2026-11-25T09:00:00Z'));
    const claude = fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8');
    const session = Session.start({ root });
    session.onEvent({ type: 'turn_start', input: 'is the parser right?' } as never);
    session.onEvent({ type: 'turn_end', status: 'answered', rounds: 1, answer: 'Yes, it is.' } as never);
    const started = { session, run: { agent: { settings: { handoff: 'plain' }, deps: {} }, history: [] } } as unknown as Started;
    const draft = handoffFor(started, { interactive: true });
    expect(draft).toBe('plain');
    expect(await endSession(started, { draft })).toBe('HANDOFF.md written from the session record.');
    expect(parseHandoff(fs.readFileSync(path.join(root, 'HANDOFF.md'), 'utf8')).turn).toBe('CLAUDE_TURN');
    expect(listHandoffs(root).map((f) => fs.readFileSync(f, 'utf8'))).toEqual([claude]);
  });
});
