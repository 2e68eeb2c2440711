// What a task's run returns from its folder: the changes inside its scope, never devx's own records of the run
// (the audit log, runs, undo) even when the scope is the whole project; what the scope names inside .devx (the
// task's workspace) goes in. Real git in a temp repository.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { snapshotPaths } from '../../src/queue/runnerGit.js';
import { makeProject } from '../helpers/env.js';

describe('a task’s snapshot with the whole project in scope', () => {
  it('holds the project’s files and the task’s workspace, not devx’s state', async () => {
    const root = makeProject({
      'src/x.ts': 'export const x = 1;\n',
      '.devx/audit.jsonl': '{"seq":1}\n',
      '.devx/runs/r1.json': '{}\n',
      '.devx/undo/turns/t1.json': '{}\n',
      '.devx/agents/workspace/notes.md': 'mine\n',
    });
    const tree = await snapshotPaths(root, ['.', '.devx/agents/workspace']);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', tree!], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    expect(files.sort()).toEqual(['.devx/agents/workspace/notes.md', 'src/x.ts']);
  });
});
