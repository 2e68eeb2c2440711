// Slash commands mean the same everywhere: the seed's one-shot forms through `devx run` (/agent:start,
// /agent:status, /agent:run, and /memory) run devx's own commands as the REPL does, not as prompts, even
// in a project that has the seed's Gemini CLI commands of those names; their effect shows in the queue.
// A command that needs the REPL says so (exit 2). A task that changed nothing ends `complete, no changes`
// with the model's claim shown as its claim, and --require-changes makes that exit 1. The real gemini
// binary against the scripted fake API.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi, RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});

const HELPER = '---\nname: helper\ndescription: helps with small jobs\ntools: [read_file, write_file]\n---\nYou help.\n';
const SEED = path.join(__dirname, '..', 'fixtures', 'seed000');
const seedCommands = Object.fromEntries(
  ['start', 'run', 'status'].map((n) => [`.gemini/commands/agent/${n}.toml`, fs.readFileSync(path.join(SEED, `${n}.toml`), 'utf8')]),
);

/** The model of the queued task: writes math.py into the workspace, then says so. */
function writeMath(req: RecordedRequest) {
  if (/TOOL_RESULT: write_file/.test(req.promptText)) return { text: 'I have created math.py.' };
  return { text: 'TOOL_CALL: write_file | path=.devx/agents/workspace/math.py | content=def add(a, b): return a + b' };
}

describe('devx run "/…": devx’s own slash commands, as in the REPL', () => {
  it('/agent:start queues (no model call), /agent:status shows it, /agent:run runs it; /memory adds and lists', async () => {
    const project = makeProject({ '.devx/agents/helper.md': HELPER, ...seedCommands });
    const env = fakeEnv(fake, home);
    const start = await runDevx(['run', '/agent:start helper "write math.py with an add function"'], { cwd: project, env });
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/^Task task_\w+ created for agent 'helper' and is now pending\.\n$/);
    const id = /Task (task_\w+)/.exec(start.stdout)![1];
    expect(fake.modelCalls).toHaveLength(0);
    const task = JSON.parse(fs.readFileSync(path.join(project, `.devx/agents/tasks/${id}.json`), 'utf8'));
    expect(task).toMatchObject({ status: 'pending', agent: 'helper', prompt: 'write math.py with an add function' });

    const status = await runDevx(['run', '/agent:status'], { cwd: project, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`\\| ${id} \\| helper \\| pending `));
    expect(fake.modelCalls).toHaveLength(0);

    fake.fallback = writeMath;
    const run = await runDevx(['run', '/agent:run'], { cwd: project, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`Orchestrator finished task ${id}: complete.\n`);
    expect(run.stderr).toContain(`${id} changed .devx/agents/workspace/math.py (branch devx/${id})`);
    expect(fs.readFileSync(path.join(project, '.devx/agents/workspace/math.py'), 'utf8')).toBe('def add(a, b): return a + b');
    const [done] = JSON.parse((await runDevx(['run', '/agent:status --json'], { cwd: project, env })).stdout);
    expect(done).toMatchObject({ taskId: id, status: 'complete', changed: ['.devx/agents/workspace/math.py'] });
    expect(done.noChanges).toBeUndefined();

    const added = await runDevx(['run', '/memory add "Sessions expire after 30 minutes" --type decision'], { cwd: project, env });
    expect(added.code, added.stderr).toBe(0);
    const listed = await runDevx(['run', '/memory list --json'], { cwd: project, env });
    expect(JSON.parse(listed.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ content: 'Sessions expire after 30 minutes', metadata: expect.objectContaining({ type: 'decision' }) }),
      ]),
    );
  }, 120_000);

  it('a task that made no change is `complete, no changes` with the model’s claim as its claim; --require-changes exits 1', async () => {
    const project = makeProject({ '.devx/agents/helper.md': HELPER });
    const env = fakeEnv(fake, home);
    const id = /Task (task_\w+)/.exec((await runDevx(['run', '/agent:start helper "create math.py"'], { cwd: project, env })).stdout)![1];
    fake.fallback = { text: 'I have created math.py with an add function.' };
    const run = await runDevx(['run', '/agent:run --require-changes'], { cwd: project, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe(`Orchestrator finished task ${id}: complete, no changes (the model said: "I have created math.py with an add function.").\n`);
    expect(run.stderr).toContain('1 task ended complete with no changes (--require-changes counts it as failed)');
    const table = (await runDevx(['agent', 'status'], { cwd: project, env })).stdout;
    expect(table).toMatch(new RegExp(`\\| ${id} \\| helper \\| complete, no changes \\|.*the model said: "I have created math\\.py`));
    const [t] = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout);
    expect(t).toMatchObject({ status: 'complete', noChanges: true, changed: [] });
    expect(fs.existsSync(path.join(project, '.devx/agents/workspace/math.py'))).toBe(false);
  }, 120_000);

  it('a command that needs the REPL says so and exits 2, sending nothing to the model', async () => {
    const project = makeProject({ '.devx/agents/helper.md': HELPER });
    const env = fakeEnv(fake, home);
    for (const [line, said] of [
      ['/edit', /\/edit opens your editor/],
      ['/agent use helper', /chooses the persona of an interactive session: run `devx run --agent <name>/],
      ['/exit', /leaves the REPL/],
    ] as const) {
      const r = await runDevx(['run', line], { cwd: project, env });
      expect(r.code, line).toBe(2);
      expect(r.stderr).toMatch(said);
    }
    const help = await runDevx(['run', '/help'], { cwd: project, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('/memory');
    expect(fake.modelCalls).toHaveLength(0);
  }, 60_000);
});
