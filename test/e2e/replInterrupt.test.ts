// Ctrl-C from the first second, in a real terminal with the real gemini against the fake API: it cancels the
// first turn while the warm gemini is still starting, and a turn whose API hangs, giving the prompt back
// at once; Ctrl-C twice after a session that did work exits at once, writing HANDOFF.md from the
// session record instead of waiting on the model; Ctrl-D leaves the shell's prompt on a line of its own.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeHome, makeProject } from '../helpers/env.js';
import { exitOf, usePtySessions, type PtySession } from '../helpers/pty.js';
import { processesUnder, until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
useFakeApi((f) => (fake = f));
const inPty = usePtySessions();

function repl(project: string, home: string, extra: Record<string, string> = {}): PtySession {
  return inPty([], project, fakeEnv(fake, home, extra));
}

// Each figure is printed; the bounds tell a working Ctrl-C from the broken ones (waiting for the whole reply,
// forever with a hung API, or for the handoff draft's own timeout) on a loaded machine too.
const PROMPT_BACK_MS = 5000;
const EXIT_MS = 10_000;
const exited = (s: PtySession, ms = 20_000) => exitOf(s, ms);

/** Ctrl-C, then how long (ms) until the turn is cancelled and the prompt is back. */
async function promptBackAfterCtrlC(s: PtySession): Promise<number> {
  const from = s.screen().length;
  const pressed = Date.now();
  s.type('\x03');
  await until(() => /■ turn cancelled\n[\s\S]*devx> $/.test(s.screen().slice(from)), 30_000);
  return Date.now() - pressed;
}

describe('Ctrl-C cancels a turn at once', () => {
  it('while the warm gemini is still starting: the prompt is back at once (the time is printed), and the next turn works', async () => {
    const home = makeHome();
    const project = makeProject({});
    // The first turn's call never reaches the API; were it sent after all, it would hang.
    fake.push({ text: 'Second answer.' });
    fake.fallback = { hang: true };
    const s = repl(project, home);
    await s.waitFor(/Type a task/);
    s.type('hello\r');
    // gemini has been spawned and has not yet asked the API anything: it is starting.
    await until(() => processesUnder(path.join(home, '.devx')).length > 0, 30_000);
    expect(fake.modelCalls).toHaveLength(0);
    const ms = await promptBackAfterCtrlC(s);
    console.log(`Ctrl-C to prompt during gemini's start: ${ms} ms`);
    expect(ms).toBeLessThan(PROMPT_BACK_MS);
    s.type('again\r');
    await s.waitFor(/Second answer\./);
    // The cancelled start never reached the API: the one request is the second turn's.
    expect(fake.modelCalls).toHaveLength(1);
    expect(fake.modelCalls[0].promptText).toMatch(/again/);
  }, 90_000);

  it('while the API hangs: the prompt is back at once (the time is printed)', async () => {
    const home = makeHome();
    const project = makeProject({});
    fake.push({ text: 'First answer.' }, { hang: true }, { text: 'Third answer.' });
    const s = repl(project, home);
    await s.waitFor(/Type a task/);
    s.type('one\r');
    await s.waitFor(/First answer\./);
    s.type('two\r');
    await until(() => fake.modelCalls.length === 2);
    const ms = await promptBackAfterCtrlC(s);
    console.log(`Ctrl-C to prompt with a hung API: ${ms} ms`);
    expect(ms).toBeLessThan(PROMPT_BACK_MS);
    s.type('three\r');
    await s.waitFor(/Third answer\./);
  }, 90_000);
});

describe('Ctrl-C on what is being written', () => {
  it('throws it away; a cancelled turn gives back what was typed during it, unsent; an unknown /command is named', async () => {
    const home = makeHome();
    const project = makeProject({});
    fake.push({ hang: true }, { text: 'Answer one.' }, { text: 'Answer two.' });
    const s = repl(project, home);
    await s.waitFor(/Type a task/);
    // A message half written (a continued line and the start of the next): Ctrl-C throws all of it away, exit not armed.
    s.type('rm -rf the build folder \\\r');
    await s.waitFor(/\.\.\. $/);
    s.type('and the tests');
    s.type('\x03');
    await s.waitFor(/\^C\n[\s\S]*devx> $/);
    expect(s.screen()).not.toMatch(/press Ctrl-C again/);
    s.type('/stat\r');
    await s.waitFor(/unknown command \/stat \(did you mean [^)]*\/stats/);
    // A turn that hangs, a message typed meanwhile, Ctrl-C: the turn stops and the message is back in the line.
    s.type('first\r');
    await until(() => fake.modelCalls.length === 1, 30_000);
    s.type('delete the old migrations\r');
    s.type('\x03');
    await s.waitFor(/back in the line[\s\S]*devx> delete the old migrations$/);
    expect(fake.modelCalls).toHaveLength(1);
    s.type(' now\r');
    await s.waitFor(/Answer one\./);
    expect(fake.modelCalls[1].promptText).toMatch(/delete the old migrations now/);
    expect(fake.modelCalls[1].promptText).not.toMatch(/rm -rf the build folder|and the tests/);
    // A first word that is a path makes a message, not a command.
    s.type('/tmp/app.log shows a crash\r');
    await s.waitFor(/Answer two\./);
    expect(fake.modelCalls[2].promptText).toMatch(/\/tmp\/app\.log shows a crash/);
  }, 90_000);
});

describe('leaving', () => {
  it('Ctrl-C twice after a session that did work exits at once, with HANDOFF.md written from the session record', async () => {
    const home = makeHome();
    const project = makeProject({});
    // A model draft of the handoff would hang: it must not be asked for.
    fake.push({ text: 'First answer.' }, { text: 'Second answer.' });
    fake.fallback = { hang: true };
    const s = repl(project, home, { DEVX_HANDOFF: 'model' });
    await s.waitFor(/Type a task/);
    s.type('one\r');
    await s.waitFor(/First answer\./);
    s.type('two\r');
    await s.waitFor(/Second answer\./);
    // At the prompt: a Ctrl-C while the turn is still ending (its record saved after the answer shows, slow
    // on a loaded machine) cancels that turn instead of asking for a second press.
    await s.waitFor(/devx> $/);
    s.type('\x03');
    await s.waitFor(/press Ctrl-C again to exit/);
    const pressed = Date.now();
    s.type('\x03');
    const code = await exited(s);
    const ms = Date.now() - pressed;
    console.log(`Ctrl-C twice to exit after a working session: ${ms} ms`);
    expect(ms).toBeLessThan(EXIT_MS);
    expect(code).toBe(0);
    expect(s.screen()).toMatch(/\(Ctrl-C twice: the model's draft of HANDOFF\.md is skipped\)\nHANDOFF\.md written from the session record\./);
    expect(fake.modelCalls).toHaveLength(2);
    expect(fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8')).toMatch(/## Summary[\s\S]*Last request: "two"/);
    expect(fs.existsSync(path.join(project, '.devx', 'session.lock'))).toBe(false);
  }, 90_000);

  it('one answered turn is work: Ctrl-D writes its handoff, and the shell prompt starts on a new line', async () => {
    const home = makeHome();
    const project = makeProject({});
    fake.push({ text: 'The answer.' });
    const s = repl(project, home, { DEVX_HANDOFF: 'plain' });
    await s.waitFor(/Type a task/);
    s.type('a question\r');
    await s.waitFor(/The answer\./);
    await s.waitFor(/devx> $/);
    s.type('\x04');
    expect(await exited(s)).toBe(0);
    expect(s.screen()).toMatch(/devx> \nHANDOFF\.md written from the session record\.\n$/);
    expect(fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8')).toMatch(/Last request: "a question"/);
  }, 90_000);

  it('Ctrl-D with nothing to hand over: the shell prompt starts on a new line', async () => {
    const home = makeHome();
    const project = makeProject({});
    const s = repl(project, home);
    await s.waitFor(/Type a task[\s\S]*devx> $/);
    s.type('\x04');
    expect(await exited(s)).toBe(0);
    expect(s.screen()).toMatch(/devx> \n$/);
  }, 60_000);
});
