// /compact in the REPL, in a real terminal, with the real gemini binary against the fake API: one
// summary call over the older turns, the next request carries the summary instead of them, and the
// user sees one line saying what was compacted and where the full transcript is.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeHome, makeProject } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';

let fake: FakeGeminiApi;
let home: string;
const sessions: PtySession[] = [];
useFakeApi((f) => (fake = f));
beforeEach(() => {
  home = makeHome();
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

describe('/compact in the REPL', () => {
  it('summarises the older turns with one model call; the next request carries the summary, not the old turns', async () => {
    const project = makeProject({});
    // Long enough that the summary is shorter than what it replaces; never repeating (gemini would call that a loop).
    const detail = (m: string) => ` ${m} ${Array.from({ length: 60 }, (_, i) => `step${i * 7 + m.length}`).join(' ')}.`;
    fake.push(
      { text: `Reply one: alpha is the parser module.${detail('alpha')}` },
      { text: `Reply two: beta is the printer module.${detail('beta')}` },
      { text: `Reply three: gamma is the CLI entry.${detail('gamma')}` },
      (req) => {
        // The summary call: the older turns, under devx's compaction prompt; the last turn is not in it.
        expect(req.promptText).toMatch(/# The conversation so far \(4 messages\)/);
        expect(req.promptText).toContain('ALPHA-REQUEST');
        expect(req.promptText).toContain('BETA-REQUEST');
        expect(req.promptText).not.toContain('GAMMA-REQUEST');
        return { text: '## Goal\nSUMMARY-MARKER: learn the modules.\n## Done so far\n- alpha: parser; beta: printer.' };
      },
      (req) => {
        expect(req.promptText).toContain('SUMMARY-MARKER: learn the modules.');
        expect(req.promptText).toMatch(/Summary of the 4 earlier messages of this conversation/);
        expect(req.promptText).not.toContain('ALPHA-REQUEST');
        expect(req.promptText).not.toContain('BETA-REQUEST');
        expect(req.promptText).toContain('GAMMA-REQUEST');
        expect(req.promptText).toContain('DELTA-REQUEST');
        return { text: 'Reply four: delta seen.' };
      },
    );
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('ALPHA-REQUEST: what is the alpha module of this project, in one line?\r');
    await s.waitFor(/Reply one: alpha/);
    s.type('BETA-REQUEST: and what is the beta module of this project, in one line?\r');
    await s.waitFor(/Reply two: beta/);
    s.type('GAMMA-REQUEST: and what is the gamma module of this project, in one line?\r');
    await s.waitFor(/Reply three: gamma/);
    s.type('/compact\r');
    await s.waitFor(
      /compacted 4 messages into a summary \([\d.]+ k? ?→ [\d.]+ k? ?characters\); the full transcript is in \.devx\/transcripts\/conversation\.jsonl/,
    );
    const [, before, after] = /into a summary \(([\d.]+) k → (\d+)/.exec(s.screen()) ?? [];
    expect(Number(before) * 1000).toBeGreaterThan(Number(after));
    expect(fake.modelCalls).toHaveLength(4);
    s.type('DELTA-REQUEST: anything else?\r');
    await s.waitFor(/Reply four: delta seen\./);
    expect(fake.modelCalls).toHaveLength(5);
    const lines = fs
      .readFileSync(path.join(project, '.devx', 'transcripts', 'conversation.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(lines[0].content).toMatch(/^ALPHA-REQUEST/);
    const saved = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8')).messages;
    expect(saved[0]).toMatchObject({ role: 'devx', summaryOf: 4 });
    s.type('/exit\r');
  });
});
