// A project that is a git worktree keeps its git data in the main repository, outside the project. Untrusted,
// that is what a repository pointing git at a dotfiles repository in the home looks like (test/e2e/ownHands.test.ts):
// git asks outside the sandbox and finds nothing inside it. Once the user trusted the project (`devx trust`),
// git works there: outside the sandbox unasked, inside it with the main repository's git data read-only.
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
    it(`${where}: trusted, git log shows the main repository's history; untrusted, it does not`, async () => {
      const trusted = await gitLogResult(worktree(), { trusted: true, sandbox });
      expect(trusted).toMatch(/status=ok/);
      expect(trusted).toContain('first of main');
      const untrusted = await gitLogResult(worktree(), { trusted: false, sandbox });
      expect(untrusted).not.toContain('first of main');
      if (!sandbox) expect(untrusted).toMatch(/outside the project; if this is a worktree of yours, `devx trust` lets git use it/);
    });
  }
});
