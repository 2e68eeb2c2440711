// A queued task runs in a git worktree of its own (queue/taskWorktree.ts), outside the checkout: it runs with the
// trust of the checkout it was made from, so a trusted project's settings apply to its tasks as to its other runs,
// and an untrusted one's do not. Real git worktrees in temp folders.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addWorktree, removeWorktree } from '../../src/queue/taskWorktree.js';
import { loadEffectiveSettings } from '../../src/config/effectiveSettings.js';
import { isTrusted, setTrusted } from '../../src/config/trust.js';
import { findProjectRoot } from '../../src/config/paths.js';
import { makeProject, tempDir } from '../helpers/env.js';

const made: [string, string][] = [];
afterEach(async () => {
  for (const [root, dir] of made.splice(0)) await removeWorktree(root, dir);
});

/** A checkout whose committed settings loosen approvals (what only trust lets apply), and a worktree of it. */
async function checkoutAndWorktree(): Promise<{ root: string; dir: string; devxHome: string; env: NodeJS.ProcessEnv }> {
  const root = findProjectRoot(makeProject({ '.devx/settings.json': JSON.stringify({ approvalMode: 'auto-edit' }) }));
  const w = await addWorktree(root, 'task_abc123', 'HEAD');
  if ('why' in w) throw new Error(w.why);
  made.push([root, w.dir]);
  const home = tempDir('devx-trust-home-');
  return { root, dir: w.dir, devxHome: path.join(home, '.devx'), env: { HOME: home, PATH: process.env.PATH } };
}

describe("a task's worktree runs with its checkout's trust", () => {
  it("a trusted checkout's task worktree is trusted, and the project's settings apply there", async () => {
    const { root, dir, devxHome, env } = await checkoutAndWorktree();
    setTrusted(devxHome, root, true);
    const wt = findProjectRoot(dir);
    expect(wt).not.toBe(root);
    expect(isTrusted(devxHome, wt)).toBe(true);
    expect(loadEffectiveSettings({ cwd: dir, env }).settings.approvalMode).toBe('auto-edit');
  });

  it("an untrusted checkout's worktree is not trusted; nor is a look-alike folder, or another checkout's worktree", async () => {
    const { root, dir, devxHome, env } = await checkoutAndWorktree();
    expect(isTrusted(devxHome, findProjectRoot(dir))).toBe(false);
    expect(loadEffectiveSettings({ cwd: dir, env }).settings.approvalMode).not.toBe('auto-edit');
    // Trusting another checkout does not trust this one's worktree.
    const other = findProjectRoot(makeProject({}));
    setTrusted(devxHome, other, true);
    expect(isTrusted(devxHome, findProjectRoot(dir))).toBe(false);
    // A folder named like a worktree, but not in the trusted checkout's private worktrees folder.
    const fake = path.join(tempDir('devx-lookalike-'), `${process.pid}-task_abc123`);
    fs.mkdirSync(fake);
    expect(isTrusted(devxHome, fake)).toBe(false);
    // Once the checkout is trusted, its worktree is.
    setTrusted(devxHome, root, true);
    expect(isTrusted(devxHome, findProjectRoot(dir))).toBe(true);
  });
});
