// In a real terminal, with the real gemini against the fake API: Ctrl-C during the exit-time
// handoff skips the model's draft (and a second one exits at once, leaving no lock and no process), and a
// running command shows its elapsed time and last line of output, or all of it after Ctrl-O.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gate, type FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeHome, makeProject } from '../helpers/env.js';
import { exitOf, usePtySessions, type PtySession } from '../helpers/pty.js';
import { processesUnder, until } from '../helpers/processes.js';
import { SECOND_PASS } from '../helpers/scope.js';

let fake: FakeGeminiApi;
useFakeApi((f) => (fake = f));
const inPty = usePtySessions();

function repl(project: string, home: string, extra: Record<string, string> = {}): PtySession {
  const env = fakeEnv(fake, home, extra);
  delete env.NO_COLOR; // the spinner is drawn only where colour is allowed
  return inPty([], project, env);
}

const exited = (s: PtySession, ms = 10_000) => exitOf(s, ms);

/** Two answered turns, so the session has earned a handoff; then /exit while the draft hangs. */
async function toTheDraft(project: string, home: string): Promise<PtySession> {
  fake.push({ text: 'First answer.' }, { text: 'Second answer.' }, { hang: true });
  const s = repl(project, home, { DEVX_HANDOFF: 'model' });
  await s.waitFor(/Type a task/);
  s.type('one\r');
  await s.waitFor(/First answer\./);
  s.type('two\r');
  await s.waitFor(/Second answer\./);
  s.type('/exit\r');
  await s.waitFor(/Writing HANDOFF\.md/);
  // The draft request reached the API (and hangs there).
  const until = Date.now() + 10_000;
  while (fake.modelCalls.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return s;
}

// In CI's second pass only the case that runs a command runs: a sandbox cannot change the others.
describe.skipIf(SECOND_PASS)('Ctrl-C at the exit-time handoff', () => {
  it('skips the model draft and writes the plain summary; the lock and the model process are gone', async () => {
    const home = makeHome();
    const project = makeProject({ 'README.md': 'hi\n' });
    const s = await toTheDraft(project, home);
    expect(fake.modelCalls.length).toBe(3);
    s.type('\x03');
    expect(await exited(s)).toBe(0);
    expect(s.screen()).toMatch(/skipping the model's draft/);
    expect(s.screen()).toMatch(/HANDOFF\.md written from the session record \(the draft was skipped\)/);
    const handoff = fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8');
    expect(handoff).toMatch(/## Summary/);
    expect(fs.existsSync(path.join(project, '.devx', 'session.lock'))).toBe(false);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  }, 90_000);

  it('a second Ctrl-C exits at once and says what it left; no lock, no process', async () => {
    const home = makeHome();
    const project = makeProject({ 'README.md': 'hi\n' });
    const s = await toTheDraft(project, home);
    s.type('\x03\x03');
    const code = await exited(s);
    // Whichever came first (the plain summary, or the exit at once), it says so in one line.
    expect(s.screen()).toMatch(
      /HANDOFF\.md written from the session record|exited at once: HANDOFF\.md was not written \(the previous one is kept\); the session lock is released and no model process is left/,
    );
    expect([0, 130]).toContain(code);
    expect(fs.existsSync(path.join(project, '.devx', 'session.lock'))).toBe(false);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    // Never a half-written handoff.
    if (fs.existsSync(path.join(project, 'HANDOFF.md'))) expect(fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8')).toMatch(/## Summary[\s\S]*## Next/);
  }, 90_000);
});

describe('a running command', () => {
  it('shows a spinner with its elapsed time and its last line of output; Ctrl-O shows all of it as it arrives', async () => {
    const home = makeHome();
    // npm test runs unasked in the sandbox where there is one, and asks where there is none.
    const slow = "let i = 0; const t = setInterval(() => { console.log('step-' + ++i); if (i === 6) clearInterval(t); }, 700);";
    const project = makeProject({ 'package.json': JSON.stringify({ name: 'x', scripts: { test: 'node slow.js' } }), 'slow.js': slow });
    fake.push({ text: 'TOOL_CALL: run_command | cmd=npm test' }, { text: 'Ran it.' });
    const s = repl(project, home);
    await s.waitFor(/Type a task/);
    s.type('count\r');
    await s.waitFor(/Allow\? \[y\]es|running run_command/);
    if (/Allow\? \[y\]es/.test(s.screen())) s.type('y\r');
    await s.waitFor(/running run_command \(Ctrl-O shows its output\) \ds/);
    await s.waitFor(/│ step-2/);
    s.type('\x0f'); // Ctrl-O
    await s.waitFor(/Ctrl-O: showing the output as it arrives/);
    await s.waitFor(/Ran it\./, 15_000);
    // Before Ctrl-O the last line showed under the spinner; after it, whole lines were printed as they came.
    expect(s.raw()).toMatch(/│ step-1\x1b\[22m/);
    expect(s.raw()).toContain('step-5\r\n');
    expect(s.raw()).not.toContain('│ step-5');
  }, 90_000);
});

describe.skipIf(SECOND_PASS)('what is typed while devx works', () => {
  it('is sent when the turn ends, saying so; /drop typed during a turn takes it back', async () => {
    const home = makeHome();
    const project = makeProject({ 'README.md': 'hi\n' });
    // Each held answer comes once the REPL has echoed what was typed while the model worked.
    const first = gate();
    const third = gate();
    fake.push({ text: 'First.', after: first.opened }, { text: 'Got the queued one.' }, { text: 'Third.', after: third.opened });
    fake.fallback = { text: 'should not be asked' };
    const s = repl(project, home);
    await s.waitFor(/Type a task/);
    s.type('one\r');
    await until(() => fake.modelCalls.length === 1);
    s.type('and also this\r'); // typed while the model works
    await s.waitFor(/and also this/);
    first.open();
    await s.waitFor(/First\./);
    await s.waitFor(/sending what you typed while devx worked: "and also this"/);
    await s.waitFor(/Got the queued one\./);
    expect(fake.modelCalls[1].promptText).toMatch(/## User\s+and also this\s/);
    s.type('three\r');
    await until(() => fake.modelCalls.length === 3);
    const drops = () => s.screen().split('/drop').length;
    const before = drops();
    s.type('never mind this\r');
    s.type('/drop\r');
    await until(() => drops() > before);
    third.open();
    await s.waitFor(/Third\./);
    await s.waitFor(/dropped the message typed while devx worked/);
    // The next message is the next call: a dropped one sent after all would come before it.
    fake.push({ text: 'Fourth.' });
    s.type('four\r');
    await s.waitFor(/Fourth\./);
    expect(fake.modelCalls).toHaveLength(4);
    expect(fake.modelCalls[3].promptText).toMatch(/## User\s+four\s/);
    expect(fake.modelCalls.some((c) => c.promptText.includes('never mind this'))).toBe(false);
  }, 90_000);
});
