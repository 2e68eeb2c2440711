// `devx run --output-format stream-json|json`: devx's own events for scripts. The stream (its text deltas are the
// model CLI's) runs the binary through the real gemini; the transcript and one-shot history run devx's command in
// this process with a scripted model (runCliHere).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => ((fake = f), (home = h)));

describe('output formats', () => {
  it('stream-json writes one JSON event per line: turn, model calls, tools with decisions, the end with usage', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'Reading it.\nTOOL_CALL: read_file | path=a.txt' }, { text: 'It says alpha.' });
    const r = await runDevx(['run', '--output-format', 'stream-json', 'what is in a.txt'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    const all = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // The model's text streams in as text_delta events; the rest is one event per step.
    const deltas = all.filter((e) => e.type === 'text_delta').map((e) => e.text);
    expect(deltas.join('')).toBe('Reading it.\nTOOL_CALL: read_file | path=a.txtIt says alpha.');
    const events = all.filter((e) => e.type !== 'text_delta');
    expect(events.map((e) => e.type)).toEqual([
      'turn_start',
      'model_response',
      'assistant',
      'tool_start',
      'tool_end',
      'model_response',
      'assistant',
      'turn_end',
    ]);
    expect(events[0]).toEqual({ type: 'turn_start', input: 'what is in a.txt' });
    expect(events[2]).toEqual({ type: 'assistant', text: 'Reading it.', final: false });
    expect(events[4]).toMatchObject({ type: 'tool_end', tool: 'read_file', status: 'ok', decision: 'allow', summary: 'read a.txt' });
    expect(events[7]).toMatchObject({ type: 'turn_end', status: 'answered', answer: 'It says alpha.', rounds: 2 });
    expect(events[7].usage.input).toBeGreaterThan(0);
  });

  it('json (and --json) prints one transcript at the end; a bad format is a usage error', async () => {
    const project = makeProject({});
    for (const args of [['--output-format', 'json'], ['--json']]) {
      const r = await runScripted(['run', ...args, 'hello'], { cwd: project, home, replies: ['Hi.'] });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'answered', answer: 'Hi.', root: fs.realpathSync(project) });
    }
    const bad = await runScripted(['run', '--output-format', 'yaml', 'x'], { cwd: project, home });
    expect([bad.code, bad.stderr]).toEqual([2, 'devx: --output-format takes text, json or stream-json; got "yaml"\n']);
    expect(fs.existsSync(path.join(project, 'HANDOFF.md'))).toBe(false);
  });
});

// What the loop does with a near-miss is in test/integration/loopThroughRun.test.ts; the parser's own command here.
describe('devx protocol parse', () => {
  it('reports a near-miss as an error on its line, and no call', async () => {
    const parsed = await runDevx(['protocol', 'parse'], { cwd: makeProject({}), env: fakeEnv(fake, home), input: '- TOOL_CALL: read_file | path=a.txt\n' });
    expect(JSON.parse(parsed.stdout)).toMatchObject({ calls: [], errors: [{ line: 1 }] });
  });
});

describe('one-shot runs', () => {
  it('start empty, as gemini -p does; --continue carries the conversation on and says so', async () => {
    const project = makeProject({});
    const prompts: string[] = [];
    for (const word of ['FIRSTWORD', 'SECONDWORD', 'THIRDWORD']) {
      const r = await runScripted(['run', `remember ${word}`], { cwd: project, home, replies: [`noted ${word}`] });
      expect(r.code, r.stderr).toBe(0);
      prompts.push(r.model.requests[0].prompt);
    }
    expect(prompts[2]).toContain('THIRDWORD');
    expect(prompts[2]).not.toContain('SECONDWORD');
    expect(prompts[1]).not.toContain('FIRSTWORD');
    // Every run's messages are kept for a later --continue.
    const c = await runScripted(['run', '--continue', 'what did I ask?'], { cwd: project, home, replies: ['all three'] });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stderr).toMatch(/continuing the project's conversation \(\d+ messages in \.devx\/history\.json\)/);
    const last = c.model.requests[0].prompt;
    for (const w of ['FIRSTWORD', 'SECONDWORD', 'THIRDWORD', 'noted THIRDWORD']) expect(last).toContain(w);
  });
});
