// Issue #28, point 3: the handoff shared with Claude Code is never lost.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/session/session.js';
import { listHandoffs, parseHandoff, bullets, writeHandoff } from '../../src/session/handoff.js';
import { makeProject } from '../helpers/env.js';

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
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF });
    writeHandoff(root, {
      turn: 'CLAUDE_TURN',
      session: 'abcdef123456',
      now: new Date('2026-11-25T10:00:00Z'),
      sections: { Summary: 'devx added tokenizer tests.', Done: '- Add tests for the tokenizer', Next: '- Run the benchmarks' },
    });
    const kept = listHandoffs(root);
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(kept[0], 'utf8')).toBe(CLAUDE_HANDOFF);
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

  it("a session that changed nothing and answered nothing leaves Claude's GEMINI_TURN handoff as it was", async () => {
    const root = makeProject({ 'HANDOFF.md': CLAUDE_HANDOFF });
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
});
