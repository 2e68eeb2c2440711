// What a task's run returns from its folder: the changes inside its scope, never devx's own records of the run
// (the audit log, runs, undo) even when the scope is the whole project; what the scope names inside .devx (the
// task's workspace) goes in; and how they land in the checkout, whatever its diff settings. Real git in temp repositories.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { applyPatch, changedPaths, diffTrees, snapshotPaths } from '../../src/queue/runnerGit.js';
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

describe('a task’s changes back in the checkout', () => {
  /** A checkout whose git prints diffs without a/ b/ (diff.noprefix, a common personal setting), in colour. */
  const withOddDiffSettings = (root: string) => {
    for (const [k, v] of [
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['color.ui', 'always'],
    ])
      execFileSync('git', ['config', k, v], { cwd: root });
  };

  it('land under the scope whatever the diff settings: a file in docs/ never lands one folder up', async () => {
    const root = makeProject({ 'docs/a.md': 'a\n', 'README.md': 'r\n' });
    withOddDiffSettings(root);
    const before = (await snapshotPaths(root, ['docs/']))!;
    put(path.join(root, 'docs', '.husky', 'pre-commit'), '#!/bin/sh\ntouch /tmp/pwned\n');
    put(path.join(root, 'docs', 'lefthook.yml'), 'pre-commit: {}\n');
    const after = (await snapshotPaths(root, ['docs/']))!;
    const changed = await changedPaths(root, before, after);
    expect(changed.sort()).toEqual(['docs/.husky/pre-commit', 'docs/lefthook.yml']);
    const patch = await diffTrees(root, before, after);
    // The checkout the changes go to: the task's files not there yet.
    const checkout = makeProject({ 'docs/a.md': 'a\n', 'README.md': 'r\n' });
    withOddDiffSettings(checkout);
    expect(await applyPatch(checkout, patch, changed)).toEqual([]);
    expect(fs.readFileSync(path.join(checkout, 'docs', 'lefthook.yml'), 'utf8')).toBe('pre-commit: {}\n');
    expect(fs.existsSync(path.join(checkout, 'docs', '.husky', 'pre-commit'))).toBe(true);
    for (const top of ['lefthook.yml', '.husky']) expect(fs.existsSync(path.join(checkout, top)), top).toBe(false);
  });

  it('a patch naming a path that is not among the changes is not applied at all', async () => {
    const checkout = makeProject({ 'docs/a.md': 'a\n' });
    const patch = [
      'diff --git a/docs/b.md b/docs/b.md',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/docs/b.md',
      '@@ -0,0 +1 @@',
      '+b',
      'diff --git a/lefthook.yml b/lefthook.yml',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/lefthook.yml',
      '@@ -0,0 +1 @@',
      '+pre-commit: {}',
      '',
    ].join('\n');
    const failed = await applyPatch(checkout, patch, ['docs/b.md']);
    expect(failed).toEqual([{ path: 'docs/b.md', why: expect.stringContaining('"lefthook.yml", which is not among the task\'s changes') }]);
    for (const f of ['docs/b.md', 'lefthook.yml']) expect(fs.existsSync(path.join(checkout, f)), f).toBe(false);
  });
});

function put(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
