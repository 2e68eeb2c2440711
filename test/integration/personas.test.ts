// An agent run whose model's command runs (test/unit/personas.test.ts has the rest of agents at run time).
import { beforeEach, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { AgentRun } from '../../src/runtime/agentRun.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let home: string;
const env = () => ({ PATH: process.env.PATH, HOME: home });

beforeEach(() => {
  root = makeProject({});
  home = tempDir('devx-personas-home-');
});

describe('agents at run time', () => {
  it('the bash parser loads on the first command to judge, not at start', async () => {
    const backend = new ScriptedBackend(['TOOL_CALL: read_file | path=.gitignore', 'TOOL_CALL: run_command | cmd=ls', 'done']);
    const run = await AgentRun.create({ cwd: root, env: env(), backend, yes: true });
    expect(run.agent.policy.canJudgeCommands).toBe(false);
    const seen: boolean[] = [];
    run.subscribe((e) => e.type === 'tool_end' && seen.push(run.agent.policy.canJudgeCommands));
    await run.prompt('go');
    expect(seen).toEqual([false, true]);
    await run.dispose();
  });
});
