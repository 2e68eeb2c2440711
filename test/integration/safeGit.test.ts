// git as devx runs it, against a hostile repository made with the real git: the repository's configuration
// names programs (fsmonitor, hooks, filters, textconv, pager, ssh, credential helpers, gpg), and none runs,
// judged by markers those programs would leave, while git still does its work. The pure parts of
// util/safeGit.ts are in test/unit/safeGit.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ownGitArgs, repoConfigRiskSync, runGitSync, safeGitEnvSync } from '../../src/util/safeGit.js';
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
});
