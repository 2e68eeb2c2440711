// A project that is a git worktree keeps its git data in the main repository, outside the project. One that git
// registered there (`git worktree add`: the main repository's worktrees/<name> names this project back) is the
// user's, and git works in it: outside the sandbox unasked, inside it with that git data read-only. A `.git` file
// naming a git folder that does not name the project back is what a repository pointing git at a dotfiles
// repository in the home looks like (test/e2e/ownHands.test.ts): git asks outside the sandbox and finds nothing
// inside it, until the user trusts the project (`devx trust`).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/runtime/runHeadless.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { setTrusted } from '../../src/config/trust.js';
import { detectBwrap } from '../../src/sandbox/bwrap.js';
import { inProcessEnv, makeHome, makeProject, tempDir } from '../helpers/env.js';

const BWRAP = detectBwrap(process.env) !== null;
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

/** A worktree of a fresh repository whose one commit is "first of main"; returns the worktree's folder. */
function worktree(): string {
  const main = makeProject({ 'a.txt': 'a\n' }, { git: false });
  git(main, 'init', '-q');
  git(main, 'add', '-A');
  git(main, 'commit', '-qm', 'first of main');
  const wt = path.join(fs.realpathSync(tempDir('devx-wt-')), 'wt');
  git(main, 'worktree', 'add', '-q', wt);
  return wt;
}

/** What the model is told after `git log --oneline` in `project`. */
async function gitLogResult(project: string, opts: { trusted: boolean; sandbox: boolean }): Promise<string> {
  const home = makeHome();
  const env = { ...inProcessEnv(home), ...(opts.sandbox ? {} : { DEVX_SANDBOX: 'off' }) };
  if (opts.trusted) setTrusted(path.join(home, '.devx'), project, true);
  const model = new ScriptedBackend(['TOOL_CALL: run_command | cmd=git log --oneline', 'Done.']);
  await runHeadless({ prompt: 'go', cwd: project, env, backend: model, approval: 'default' });
  return model.requests[1].prompt.slice(model.requests[1].prompt.lastIndexOf('TOOL_RESULT: run_command'));
}

describe('git in a project that is a worktree', () => {
  for (const sandbox of BWRAP ? [false, true] : [false]) {
    const where = sandbox ? 'in the sandbox' : 'without the sandbox';
    it(`${where}: a registered worktree shows the main repository's history; a copied .git file only once trusted`, async () => {
      const registered = await gitLogResult(worktree(), { trusted: false, sandbox });
      expect(registered).toMatch(/status=ok/);
      expect(registered).toContain('first of main');
      // The same .git file in another folder: the main repository's record names the worktree, not this folder.
      const copied = () => {
        const dir = makeProject({ 'b.txt': 'b\n' }, { git: false });
        fs.copyFileSync(path.join(worktree(), '.git'), path.join(dir, '.git'));
        return dir;
      };
      const untrusted = await gitLogResult(copied(), { trusted: false, sandbox });
      expect(untrusted).not.toContain('first of main');
      if (!sandbox) expect(untrusted).toMatch(/outside the project; if this is a worktree of yours, `devx trust` lets git use it/);
      const trusted = await gitLogResult(copied(), { trusted: true, sandbox });
      expect(trusted).toMatch(/status=ok/);
      expect(trusted).toContain('first of main');
    });
  }
});
