// What the loop does with a model's text, in the headless run `devx run` makes, in-process with a scripted model
// in place of gemini: a reply cut off in the middle of a write, a call written in bold after a sentence, a turn
// that never stops calling tools. Real files in a temp project, the real tools and policy; the run's events go
// through the renderer `devx run` writes its stderr with. Exit codes are the binary's (test/e2e/failures.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/runtime/runHeadless.js';
import { PassThrough } from 'node:stream';
import { createRenderer } from '../../src/cli/renderEvents.js';
import { ScriptedBackend, type ScriptedReply } from '../../src/providers/scripted.js';
import type { AgentEvent } from '../../src/core/loop.js';
import type { ApprovalMode } from '../../src/policy/types.js';
import { inProcessEnv, makeHome, makeProject } from '../helpers/env.js';

/** One headless run of `replies` in `project`, with every event it emitted. */
async function run(project: string, replies: ScriptedReply[], opts: { approval?: ApprovalMode; maxToolRounds?: number } = {}) {
  const model = new ScriptedBackend(replies);
  const events: AgentEvent[] = [];
  const out = new PassThrough();
  let shown = '';
  out.on('data', (d) => (shown += d));
  const renderer = createRenderer({ out: out as never, answerOut: new PassThrough() as never, env: { NO_COLOR: '1' } });
  const r = await runHeadless({
    prompt: 'go',
    cwd: project,
    env: inProcessEnv(makeHome()),
    backend: model,
    approval: opts.approval,
    overrides: opts.maxToolRounds ? { maxToolRounds: opts.maxToolRounds } : undefined,
    onEvent: (e) => (events.push(e), renderer.onEvent(e)),
  });
  renderer.stop();
  return { r, model, events, shown: () => shown };
}

describe('the loop through a headless run', () => {
  it('a reply cut off mid-write never writes truncated content; the calls before it run, and the model is told', async () => {
    const project = makeProject({});
    const { r, model, shown } = await run(
      project,
      [
        'TOOL_CALL: list_directory | path=.\nTOOL_CALL: write_file | path=out.py | content=```python\ndef f():\n    return 1\n\ndef g(',
        'The write was cut off; I will stop here.',
      ],
      { approval: 'yolo' },
    );
    expect(r.status).toBe('answered');
    expect(r.answer).toBe('The write was cut off; I will stop here.');
    expect(fs.existsSync(path.join(project, 'out.py'))).toBe(false);
    expect(model.requests[1].prompt).toContain('TOOL_RESULT: list_directory | status=ok');
    expect(model.requests[1].prompt).toMatch(/TOOL_RESULT: write_file \| status=error[^\n]*\n`+\nunterminated/);
    expect(shown()).toMatch(/unterminated/);
  });

  it('a call in bold after a sentence is not run; the model is told how to write it and the turn goes on', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    const { r, model, events, shown } = await run(project, [
      'Sure, reading it now: **TOOL_CALL: read_file | path=a.txt**',
      'TOOL_CALL: read_file | path=a.txt',
      'It says alpha.',
    ]);
    expect(r.answer).toBe('It says alpha.');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1].prompt).toMatch(/Write it as:\nTOOL_CALL: read_file \| path=a\.txt/);
    expect(model.requests[2].prompt).toMatch(/TOOL_RESULT: read_file \| status=ok[\s\S]*alpha/);
    const issues = events.flatMap((e) => (e.type === 'parse_issues' ? e.errors.map((x) => `${x.line}: ${x.message}`) : []));
    expect(issues).toEqual([expect.stringMatching(/^1: this line mentions a tool call but is not one, so nothing was run/)]);
    expect(shown()).toMatch(/! line 1: this line mentions a tool call but is not one, so nothing was run/);
  });

  it('a turn that never stops calling tools is stopped after the configured number of rounds', async () => {
    const { r, model } = await run(makeProject({}), Array(10).fill('TOOL_CALL: list_directory | path=.'), { maxToolRounds: 2 });
    expect(r.status).toBe('max_rounds');
    expect(r.error?.message).toMatch(/Stopped after 2 tool rounds/);
    expect(model.requests).toHaveLength(2);
  });
});
