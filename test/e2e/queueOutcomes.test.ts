// What a queued task reports is what happened: a refused or failed write makes it `incomplete`
// (exit 1, the calls listed); a queued agent writes only in the queue's workspace, its plan file and
// the paths the task names, without approval; a write elsewhere is refused by the policy, for file
// tools and for a command's write claim alike. `devx agent` runs in this process with a scripted model
// (runCliHere): the queue's and the policy's code from the command line down; the real gemini drives the queue in
// agents.test.ts and queueIsolation.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeHome, makeProject } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';
import type { ScriptedReply } from '../../src/providers/scripted.js';

let home: string;
beforeEach(() => {
  home = makeHome();
});
/** `devx agent …` here, the model replying `replies` in turn. */
const agent = (project: string, args: string[], replies: ScriptedReply[] = []) => runScripted(['agent', ...args], { cwd: project, home, replies });

const WRITER =
  '---\nname: writer\ndescription: writes files for queued jobs\ntools: [read_file, write_file, edit_file, run_command]\n---\nYou write what you are asked to.\n';
/** The tool results so far (the prompt holds the whole run). */
const resultOf = (req: { prompt: string }) => req.prompt.slice(req.prompt.indexOf('TOOL_RESULT:'));

async function queueOne(project: string, ...extra: string[]) {
  const r = await agent(project, ['start', 'writer', 'write the notes', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return /Task (task_\w+)/.exec(r.stdout)![1];
}

describe('queued tasks: status from what happened, writes only where the task may', () => {
  it('no flags: the workspace and plan file need no approval; a write elsewhere is refused and the task ends incomplete, exit 1', async () => {
    const project = makeProject({ '.devx/agents/writer.md': WRITER, 'src/keep.ts': 'export {}\n' }, { git: true });
    const id = await queueOne(project);
    const plan = `.devx/agents/plans/${id}_plan.md`;
    const run = await agent(
      project,
      ['run'],
      [
        `TOOL_CALL: write_file | path=.devx/agents/workspace/notes.md | content=the notes\nTOOL_CALL: write_file | path=${plan} | content=# Plan\n1. notes`,
        (req) => {
          expect(resultOf(req)).toMatch(/TOOL_RESULT: write_file \| status=ok[\s\S]*TOOL_RESULT: write_file \| status=ok/);
          return 'TOOL_CALL: write_file | path=src/new.ts | content=export const x = 1;\n';
        },
        (req) => {
          expect(resultOf(req)).toContain(`outside what task ${id} may write`);
          return 'TOOL_CALL: run_command | cmd=echo hi > .devx/agents/workspace/hi.txt\nTOOL_CALL: run_command | cmd=echo hi > src/keep.ts';
        },
        (req) => {
          expect(resultOf(req)).toMatch(/TOOL_RESULT: run_command \| status=ok[^\n]*\n[\s\S]*this command writes src\/keep\.ts, outside what/);
          return 'Wrote the notes.';
        },
      ],
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(`Orchestrator finished task ${id}: incomplete (2 writes did not happen`);
    expect(fs.readFileSync(path.join(project, '.devx/agents/workspace/notes.md'), 'utf8')).toBe('the notes');
    // The plan file existed (devx made it, ending in a newline): a rewrite keeps its final newline.
    expect(fs.readFileSync(path.join(project, plan), 'utf8')).toBe('# Plan\n');
    expect(fs.existsSync(path.join(project, 'src/new.ts'))).toBe(false);
    expect(fs.readFileSync(path.join(project, 'src/keep.ts'), 'utf8')).toBe('export {}\n');
    expect(fs.readFileSync(path.join(project, '.devx/agents/workspace/hi.txt'), 'utf8')).toBe('hi\n');

    const [t] = JSON.parse((await agent(project, ['status', '--json'])).stdout);
    expect(t).toMatchObject({ status: 'incomplete', attempts: 1, runnerDeaths: 0, summary: 'Wrote the notes.' });
    expect(t.failedCalls).toHaveLength(2);
    expect(t.failedCalls[0]).toMatch(
      /^write src\/new\.ts .*\(denied: write_file writes src\/new\.ts, outside what task \w+ may write \(\.devx\/agents\/workspace, .*_plan\.md\).*\[scope:outside-write\]\)$/,
    );
    expect(t.failedCalls[1]).toMatch(/^run: echo hi > src\/keep\.ts.*\(denied: this command writes src\/keep\.ts/);
    const table = (await agent(project, ['status'])).stdout;
    expect(table).toMatch(new RegExp(`\\| ${id} \\| writer\\s+\\| incomplete \\|.*\\| 1\\s+\\| 0\\s+\\| 2 writes did not happen`));
    expect(table).toContain(`Calls that did not happen:\n${id} (incomplete):\n  - write src/new.ts`);
    // An incomplete task can be queued again.
    expect((await agent(project, ['retry', id])).stdout).toBe(`Task ${id} is now pending.\n`);
  }, 90_000);

  it('--write names more paths: that write is allowed (under --yes too), others still refused; a failed write that was retried and stood does not count', async () => {
    const project = makeProject({ '.devx/agents/writer.md': WRITER, 'src/keep.ts': 'export {}\n' }, { git: true });
    const id = await queueOne(project, '--write', 'src/x.ts,docs/');
    const run = await agent(
      project,
      ['run', '--yes'],
      [
        'TOOL_CALL: write_file | path=src/x.ts | content=export const x = 1;\nTOOL_CALL: write_file | path=docs/a/b.md | content=b',
        (req) => {
          expect(resultOf(req)).not.toContain('status=error');
          return 'TOOL_CALL: write_file | path=src/keep.ts | content=overwritten';
        },
        'Done.',
      ],
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /incomplete \(1 write did not happen \(the task may write \.devx\/agents\/workspace, \.devx\/agents\/plans\/task_\w+_plan\.md, src\/x\.ts, docs\): write src\/keep\.ts \(1 lines\) \(denied: write_file writes src\/keep\.ts, outside what task/,
    );
    expect(fs.readFileSync(path.join(project, 'src/x.ts'), 'utf8')).toBe('export const x = 1;');
    expect(fs.readFileSync(path.join(project, 'docs/a/b.md'), 'utf8')).toBe('b');
    expect(fs.readFileSync(path.join(project, 'src/keep.ts'), 'utf8')).toBe('export {}\n');

    // A write that failed and was then done: the task is complete.
    await agent(project, ['retry', id]);
    const again = await agent(
      project,
      ['run'],
      [
        'TOOL_CALL: edit_file | path=.devx/agents/workspace/out.md | old_text=a | new_text=b',
        (req) => {
          expect(resultOf(req)).toContain('status=error');
          return 'TOOL_CALL: write_file | path=.devx/agents/workspace/out.md | content=b';
        },
        'Done.',
      ],
    );
    expect(again.stdout).toBe(`Orchestrator finished task ${id}: complete.\n`);
    expect(again.code).toBe(0);
    expect(JSON.parse((await agent(project, ['status', '--json'])).stdout)[0]).toMatchObject({
      status: 'complete',
      attempts: 0,
      runs: 2,
    });
  }, 90_000);
});
