// Plan mode through the real gemini, from a piped REPL: the model explores with reading tools only (a
// write it tries is refused and nothing changes), answers with a plan that devx saves under .devx/plans/
// and shows; the person asks for a change, then approves it in yolo mode: the session leaves plan mode,
// the plan's steps become the todo list, and only then is the file written.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { startInPty } from '../helpers/pty.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => ((fake = f), (home = h)));

const PLAN = '# Plan: greet\n\nsrc/app.ts has no greeting.\n\n1. Add `greet()` to src/greet.ts\n2. Run the tests';
const PLAN2 = `${PLAN}\n3. Mention it in the README`;

describe('plan mode', () => {
  it('explores read-only, saves the plan, revises it on request, and works it only once approved', async () => {
    const project = makeProject({ 'src/app.ts': 'export const app = 1;\n' });
    fake.push(
      (req) => {
        expect(req.promptText).toContain('You are in plan mode');
        expect(req.promptText).toContain('add a greeting');
        return { text: 'TOOL_CALL: read_file | path=src/app.ts\nTOOL_CALL: write_file | path=src/greet.ts | content=too early' };
      },
      (req) => {
        expect(req.promptText).toMatch(/TOOL_RESULT: read_file \| status=ok/);
        expect(req.promptText).toMatch(/TOOL_RESULT: write_file \| status=\w+[\s\S]*plan mode is read-only/);
        return { text: PLAN };
      },
      (req) => {
        expect(req.promptText).toContain('asks for changes before approving it:\nalso the README');
        return { text: PLAN2 };
      },
      (req) => {
        expect(req.promptText).toContain('The person approved your plan');
        expect(req.promptText).toContain('3. Mention it in the README');
        return { text: 'TOOL_CALL: write_file | path=src/greet.ts | content=export const greet = () => "hi";' };
      },
      { text: 'Done: greet() is in src/greet.ts.' },
    );
    const input = ['/plan add a greeting', 'c', 'also the README', 'yolo', '/todos', '/exit', ''].join('\n');
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input });
    expect(r.code, r.stderr).toBe(0);
    const plans = fs.readdirSync(path.join(project, '.devx', 'plans')).sort((a, b) => a.length - b.length);
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatch(/^\d{4}-\d{2}-\d{2}-add-a-greeting\.md$/);
    expect(fs.readFileSync(path.join(project, '.devx', 'plans', plans[0]), 'utf8')).toBe(`${PLAN}\n`);
    expect(fs.readFileSync(path.join(project, '.devx', 'plans', plans[1]), 'utf8')).toBe(`${PLAN2}\n`);
    expect(r.stdout).toMatch(/plan saved as \.devx\/plans\/\S+-add-a-greeting-2\.md/);
    expect(r.stdout).toContain("mode: yolo; the plan's 3 steps are the todo list");
    // The todo list is the plan's steps; the file exists only after the approval.
    expect(r.stdout).toMatch(/- \[ \] Add `greet\(\)` to src\/greet\.ts\n- \[ \] Run the tests\n- \[ \] Mention it in the README/);
    expect(fs.readFileSync(path.join(project, 'src', 'greet.ts'), 'utf8')).toBe('export const greet = () => "hi";');
    expect(fake.modelCalls).toHaveLength(5);
  });

  it('a rejected plan changes nothing and the session stays in plan mode', async () => {
    const project = makeProject({});
    fake.push({ text: PLAN }, (req) => {
      expect(req.promptText).toContain('You are in plan mode');
      return { text: PLAN };
    });
    const input = ['/plan add a greeting', 'r', 'and another', 'r', '/plan off', '/exit', ''].join('\n');
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/plan rejected \(kept as \.devx\/plans\/\S+\.md\); still in plan mode/);
    expect(r.stdout).toContain('mode: default');
    expect(fs.existsSync(path.join(project, 'src'))).toBe(false);
  });

  it('Shift+Tab steps through default, auto-edit and plan in a terminal, and the prompt names the mode', async () => {
    const project = makeProject({});
    fake.push((req) => {
      expect(req.promptText).toContain('You are in plan mode');
      return { text: PLAN };
    });
    const s = startInPty([], project, fakeEnv(fake, home));
    try {
      await s.waitFor(/Type a task/);
      s.type('\x1b[Z');
      await s.waitFor(/devx \[auto-edit\]> /);
      s.type('\x1b[Z');
      await s.waitFor(/devx \[plan\]> /);
      s.type('add a greeting\r');
      await s.waitFor(/Carry it out\?/);
      s.type('r\r');
      await s.waitFor(/still in plan mode/);
      s.type('\x1b[Z');
      await s.waitFor(/\(mode: default\)/);
    } finally {
      s.kill();
    }
  });
});
