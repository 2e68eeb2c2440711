// A run limited to some paths (a queued task): the one policy decision allows file writes inside the
// scope without asking, denies them elsewhere, and holds a command's claim to the scope.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePolicy } from '../helpers/policy.js';
import { makeProject } from '../helpers/env.js';
import { builtinTools } from '../../src/tools/registry.js';
import { makeWriteScope } from '../../src/policy/writeScope.js';

const tool = (name: string) => builtinTools().find((t) => t.name === name)!;

async function scoped(mode: 'default' | 'yolo' = 'default', sandboxed = false) {
  const root = makeProject({ 'src/a.ts': 'export {}\n', '.devx/agents/workspace/.keep': '', '.devx/agents/plans/t1_plan.md': '# Plan\n' }, { git: true });
  const policy = await makePolicy(root, { headless: true, mode, sandboxed });
  policy.limitWrites(makeWriteScope(root, ['.devx/agents/workspace', '.devx/agents/plans/t1_plan.md', 'docs/'], 'task t1'));
  return { root, policy };
}

describe('write scope', () => {
  it('file tools: inside the scope allowed without asking, elsewhere denied naming the scope; reads are untouched', async () => {
    const { policy } = await scoped();
    expect(policy.decideToolCall(tool('write_file'), { path: '.devx/agents/workspace/n.md', content: 'x' })).toMatchObject({
      decision: 'allow',
      rule: 'scope:inside-write',
    });
    expect(policy.decideToolCall(tool('edit_file'), { path: '.devx/agents/plans/t1_plan.md', old_text: 'a', new_text: 'b' })).toMatchObject({
      decision: 'allow',
      rule: 'scope:inside-write',
    });
    expect(policy.decideToolCall(tool('append_file'), { path: 'docs/new/x.md', content: 'x' })).toMatchObject({
      decision: 'allow',
      rule: 'scope:inside-write',
    });
    const out = policy.decideToolCall(tool('write_file'), { path: 'src/a.ts', content: 'x' });
    expect(out).toMatchObject({ decision: 'deny', rule: 'scope:outside-write' });
    expect(out.reason).toBe(
      'write_file writes src/a.ts, outside what task t1 may write (.devx/agents/workspace, .devx/agents/plans/t1_plan.md, docs); name more paths when you queue the task (--write <path>)',
    );
    // Another plan file is outside too.
    expect(policy.decideToolCall(tool('write_file'), { path: '.devx/agents/plans/t2_plan.md', content: 'x' }).decision).toBe('deny');
    expect(policy.decideToolCall(tool('read_file'), { path: 'src/a.ts' }).decision).toBe('allow');
    // A protected path inside the project stays denied for its own reason.
    expect(policy.decideToolCall(tool('write_file'), { path: '.env', content: 'x' }).rule).toMatch(/^path:/);
  });

  it('a link inside the scope that leads out of it is judged where it lands', async () => {
    const { root, policy } = await scoped();
    fs.symlinkSync(path.join(root, 'src'), path.join(root, '.devx/agents/workspace/src-link'));
    expect(policy.decideToolCall(tool('write_file'), { path: '.devx/agents/workspace/src-link/a.ts', content: 'x' })).toMatchObject({
      decision: 'deny',
      rule: 'scope:outside-write',
    });
  });

  it('commands: a write claim must stay inside; a plain write in it needs no approval; git changes are refused; project code is held to the scope', async () => {
    const { root, policy } = await scoped('yolo', true);
    const run = (cmd: string) => policy.decideToolCall(tool('run_command'), { cmd });
    expect(run('echo hi > src/a.ts')).toMatchObject({ decision: 'deny', rule: 'scope:outside-write' });
    expect(run('cp src/a.ts .devx/agents/workspace/a.ts')).toMatchObject({
      decision: 'allow',
      rule: 'scope:inside-write',
      claim: { profile: 'write', scopeBinds: [path.join(root, '.devx/agents/workspace')] },
    });
    expect(run('echo hi > .devx/agents/workspace/x.txt').decision).toBe('allow');
    expect(run('rm src/a.ts')).toMatchObject({ decision: 'deny', rule: 'scope:outside-write' });
    expect(run('git commit -m x')).toMatchObject({ decision: 'deny', rule: 'scope:outside-write' });
    expect(run('git commit -m x').reason).toMatch(/^this command changes the git repository, outside what task t1 may write/);
    const test = run('npm test');
    expect(test.decision).not.toBe('deny');
    expect(test.claim).toMatchObject({ profile: 'write', writes: expect.arrayContaining([path.join(root, '.devx/agents/workspace')]) });
    expect(run('ls src').decision).toBe('allow');
  });
});
