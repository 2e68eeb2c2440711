// git as devx runs it, against a hostile repository made with the real git: the repository's configuration
// names programs (fsmonitor, hooks, filters, textconv, pager, ssh, credential helpers, gpg), and none runs,
// judged by markers those programs would leave, while git still does its work. The pure parts of
// util/safeGit.ts are in test/unit/safeGit.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ownGitArgs, repoConfigRiskSync, runGitSync, safeGitEnvSync } from '../../src/util/safeGit.js';
import { createGit, dirtyPaths } from '../../src/workflow/git.js';
import { git as runnerGit, pushBranch } from '../../src/queue/runnerGit.js';
import { tempDir } from '../helpers/env.js';

function hostileRepo(): { repo: string; out: string } {
  const base = tempDir('devx-safegit-');
  const repo = path.join(base, 'repo');
  const out = path.join(base, 'out');
  fs.mkdirSync(out);
  fs.mkdirSync(repo);
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], { cwd: repo, stdio: 'pipe' });
  git('init', '-q');
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git('add', '-A');
  git('commit', '-qm', 'one');
  fs.appendFileSync(
    path.join(repo, '.git', 'config'),
    [
      '[core]',
      `\tfsmonitor = touch ${out}/fsmonitor`,
      `\tpager = touch ${out}/pager`,
      `\tsshCommand = touch ${out}/ssh`,
      '[filter "evil"]',
      `\tclean = touch ${out}/clean; cat`,
      `\tsmudge = touch ${out}/smudge; cat`,
      '[diff "evil"]',
      `\ttextconv = touch ${out}/textconv; cat`,
      '[credential]',
      `\thelper = !touch ${out}/credential`,
      '[commit]',
      '\tgpgSign = true',
      '[gpg]',
      `\tprogram = touch ${out}/gpg`,
      '',
    ].join('\n'),
  );
  for (const h of ['pre-commit', 'post-commit', 'reference-transaction', 'post-checkout'])
    fs.writeFileSync(path.join(repo, '.git', 'hooks', h), `#!/bin/sh\ntouch ${out}/hook-${h}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  return { repo, out };
}

describe('git as devx runs it', () => {
  it('status, diff, add, commit and checkout do their work and run none of the programs the repository names', () => {
    const { repo, out } = hostileRepo();
    const env = { PATH: process.env.PATH, HOME: tempDir('devx-safegit-home-') };
    expect(runGitSync(repo, ['status', '--porcelain'], { env }).stdout).toBe(' M a.txt\n');
    const diff = runGitSync(repo, ['diff'], { env }).stdout;
    expect(diff).toContain('-one');
    expect(diff).toContain('+two');
    expect(runGitSync(repo, ['add', 'a.txt'], { env }).status).toBe(0);
    const commit = runGitSync(repo, ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'two'], { env });
    expect(commit.status, commit.stderr).toBe(0);
    expect(runGitSync(repo, ['checkout', '-q', '-b', 'side'], { env }).status).toBe(0);
    fs.rmSync(path.join(repo, 'a.txt'));
    expect(runGitSync(repo, ['checkout', '--', 'a.txt'], { env }).status).toBe(0);
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('two\n');
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it("the model's git gets the same environment: a git command line in a shell runs none of them either", () => {
    const { repo, out } = hostileRepo();
    const env = safeGitEnvSync(repo, {
      PATH: process.env.PATH,
      HOME: tempDir('devx-safegit-home-'),
      GIT_DIR: '/nonexistent',
      GIT_EXTERNAL_DIFF: `touch ${out}/envdiff`,
    });
    execFileSync(
      'bash',
      ['-c', 'git status >/dev/null; git diff >/dev/null; git log -p >/dev/null; git add -A; git -c user.email=t@t -c user.name=t commit -qm x'],
      {
        cwd: repo,
        env,
      },
    );
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('a repository that names diff.external is reported, and devx’s own diffs pass --no-ext-diff', () => {
    const { repo } = hostileRepo();
    fs.appendFileSync(path.join(repo, '.git', 'config'), '[diff]\n\texternal = evil\n');
    expect(repoConfigRiskSync(repo).unneutralized.map((u) => u.key)).toEqual(['diff.external']);
    expect(ownGitArgs(['-c', 'x=y', 'diff', 'HEAD'])).toEqual(['-c', 'x=y', 'diff', '--no-ext-diff', '--no-textconv', 'HEAD']);
  });

  it('a configuration too large to list is not obeyed: devx’s own git refuses with one line, the model’s unsandboxed git asks', async () => {
    const { repo, out } = hostileRepo();
    // More than the listing reads (32 MB), then a clean filter .gitattributes selects for the changed a.txt.
    fs.appendFileSync(
      path.join(repo, '.git', 'config'),
      `[big]\n\tpad = ${'x'.repeat(33 * 1024 * 1024)}\n[filter "evil"]\n\tclean = touch ${out}/big-clean; cat\n`,
    );
    const env = { PATH: process.env.PATH, HOME: tempDir('devx-safegit-home-') };
    const r = runGitSync(repo, ['status', '--porcelain'], { env });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/devx will not run git in .*: its git configuration lists more than 32 MB/);
    await expect(dirtyPaths(createGit(repo, env))).rejects.toThrow(/devx will not run git/);
    expect((await runnerGit(repo, ['status', '--porcelain'])).err).toMatch(/devx will not run git/);
    expect(repoConfigRiskSync(repo, env).unknown).toMatch(/more than 32 MB/);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('core.worktree pointing outside: devx’s own status and diff stay on the folder holding .git; the model’s git is told', () => {
    const { repo, out } = hostileRepo();
    const canary = `CANARY-${Date.now()}`;
    const elsewhere = path.join(path.dirname(repo), 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'a.txt'), `${canary}\n`);
    fs.writeFileSync(path.join(elsewhere, 'secret.txt'), `${canary}\n`);
    // Relative to the git directory: repo/.git/../../elsewhere.
    fs.appendFileSync(path.join(repo, '.git', 'config'), '[core]\n\tworktree = ../../elsewhere\n');
    const env = { PATH: process.env.PATH, HOME: tempDir('devx-safegit-home-') };
    expect(runGitSync(repo, ['status', '--porcelain'], { env }).stdout).toBe(' M a.txt\n');
    const diff = runGitSync(repo, ['diff'], { env }).stdout;
    expect(diff).toContain('+two');
    expect(diff).not.toContain(canary);
    expect(repoConfigRiskSync(repo, env).unneutralized.map((u) => u.key)).toContain('core.worktree');
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it("a submodule's own config naming a clean filter never runs in devx's own git status at the top", async () => {
    const base = tempDir('devx-safegit-');
    const [repo, out, src] = ['repo', 'out', 'src'].map((d) => path.join(base, d));
    for (const d of [repo, out, src]) fs.mkdirSync(d);
    const g = (cwd: string, ...a: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'protocol.file.allow=always', ...a], { cwd, stdio: 'pipe' });
    g(repo, 'init', '-q');
    g(repo, 'commit', '-qm', 'one', '--allow-empty');
    g(src, 'init', '-q');
    fs.writeFileSync(path.join(src, '.gitattributes'), '*.md filter=subevil\n');
    fs.writeFileSync(path.join(src, 'lib.md'), 'lib\n');
    g(src, 'add', '-A');
    g(src, 'commit', '-qm', 'lib');
    g(repo, 'submodule', 'add', '-q', src, 'sub');
    g(repo, 'commit', '-qm', 'sub');
    fs.appendFileSync(path.join(repo, '.git', 'modules', 'sub', 'config'), `[filter "subevil"]\n\tclean = touch ${out}/sub-clean; cat\n`);
    fs.writeFileSync(path.join(repo, 'sub', 'lib.md'), 'LIB\n');
    const env = { PATH: process.env.PATH, HOME: tempDir('devx-safegit-home-') };
    expect(runGitSync(repo, ['status', '--porcelain'], { env }).stdout).toContain(' M sub');
    expect(await dirtyPaths(createGit(repo, env))).toContain('sub');
    expect((await runnerGit(repo, ['status', '--porcelain'])).ok).toBe(true);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it("the queue runner's push to a remote on this machine runs none of that repository's hooks", async () => {
    const { repo, out } = hostileRepo();
    const bare = path.join(path.dirname(repo), 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    for (const h of ['pre-receive', 'update', 'post-receive', 'post-update', 'reference-transaction'])
      fs.writeFileSync(path.join(bare, 'hooks', h), `#!/bin/sh\ntouch ${out}/remote-${h}\n`, { mode: 0o755 });
    execFileSync('git', ['remote', 'add', 'origin', bare], { cwd: repo });
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    expect(await pushBranch(repo, 't1', head)).toEqual({ branch: 'devx/t1' });
    expect(execFileSync('git', ['rev-parse', 'refs/heads/devx/t1'], { cwd: bare, encoding: 'utf8' }).trim()).toBe(head);
    expect(fs.readdirSync(out)).toEqual([]);
  });
});
