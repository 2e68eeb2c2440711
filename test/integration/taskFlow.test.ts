// The clarification flow's list of project files, in a real git repository (git lists them); the rest of
// the flow's devx-side logic is in test/unit/taskFlow.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTask } from '../../src/clarify/taskFiles.js';
import { listProjectFiles } from '../../src/clarify/contextResearch.js';
import { makeProject } from '../helpers/env.js';

let root: string;

beforeEach(() => {
  root = makeProject({});
  createTask(root, 'tasks/login', 'Login fails after a password reset', root);
});

describe('task folder and status', () => {
  it('lists project files, capped, without .git', () => {
    for (let i = 0; i < 120; i++) fs.writeFileSync(path.join(root, `f${String(i).padStart(3, '0')}.txt`), '');
    const l = listProjectFiles(root, 100);
    expect(l.files).toHaveLength(100);
    expect(l.total).toBe(121);
    expect(l.files.some((f) => f.startsWith('.git/'))).toBe(false);
  });
});
