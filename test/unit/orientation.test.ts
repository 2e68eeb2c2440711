// The start line names where work last stopped: a session that ran no turn (started and left at once) is
// passed over, by the line and by `--resume` alike, so both name the same session.
import { describe, expect, it } from 'vitest';
import { Session, orientation, pickResume } from '../../src/session/session.js';
import { makeProject } from '../helpers/env.js';
import { loadRecord, saveRecord } from '../../src/session/sessionRecord.js';

/** A session started at `at` that ran `turns` turns, the last one asking `input`, and ended. */
async function pastSession(root: string, at: string, turns: number, input: string): Promise<string> {
  const s = Session.start({ root, now: () => new Date(at) });
  for (let i = 0; i < turns; i++) {
    s.onEvent({ type: 'message', message: { role: 'user', content: input, at } } as never);
    s.onEvent({ type: 'turn_end', status: 'answered', rounds: 1, answer: 'done' } as never);
  }
  await s.end({ handoff: 'off' });
  return s.record.id;
}

describe('the last session', () => {
  it('is the newest that ran a turn, for the start line and for --resume', async () => {
    const root = makeProject({}, { git: false });
    const worked = await pastSession(root, '2026-11-20T10:00:00Z', 3, 'rename the parser');
    await pastSession(root, '2026-11-21T10:00:00Z', 0, '');
    const now = Session.start({ root });
    expect(orientation(root, now)).toBe(`Last session ${worked}: 3 turn(s), last request "rename the parser".`);
    expect(pickResume(root, undefined, now.record.id)?.id).toBe(worked);
    now.abandon();
  });
});

describe('--resume without an id', () => {
  it('picks where work last stopped, not an older crashed session newer ones ended after', async () => {
    const root = makeProject({}, { git: false });
    const crashed = await pastSession(root, '2026-11-20T10:00:00Z', 2, 'the crashed one');
    saveRecord(root, { ...loadRecord(root, crashed)!, status: 'crashed' });
    await pastSession(root, '2026-11-21T10:00:00Z', 1, 'a later one');
    const newest = await pastSession(root, '2026-11-22T10:00:00Z', 3, 'the newest');
    const now = Session.start({ root });
    expect(pickResume(root, undefined, now.record.id)?.id).toBe(newest);
    // Named, the crashed one is still there to resume.
    expect(pickResume(root, crashed, now.record.id)?.id).toBe(crashed);
    now.abandon();
  });
});
