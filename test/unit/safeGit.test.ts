// One way to run git: every git devx starts gets an environment in which the repository's configuration
// names no program that runs (fsmonitor, hooks, filters, textconv, pager, ssh, credential helpers, gpg),
// judged by markers those programs would leave, while git still does its work.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { assessConfig, gitEnvFor, ownGitArgs, parseConfigList, repoConfigRiskSync, runGitSync, safeGitEnvSync } from '../../src/util/safeGit.js';
import { tempDir } from '../helpers/env.js';

const SRC = path.resolve(__dirname, '../../src');

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

  it("a repository's neutralised key takes the user's own value when the user's config sets it, and a list is reset first", () => {
    const entries = parseConfigList(
      [
        ['global', 'file:/home/u/.gitconfig', 'credential.helper\nstore'],
        ['global', 'file:/home/u/.gitconfig', 'core.sshcommand\nssh -i ~/.ssh/work'],
        ['local', 'file:.git/config', 'credential.helper\n!evil'],
        ['local', 'file:.git/config', 'core.sshcommand\nevil'],
        ['local', 'file:.git/config', 'filter.lfs.clean\nevil'],
        ['local', 'file:.git/config', 'diff.external\nevil'],
        ['local', 'file:.git/config', 'user.name\nSomeone'],
      ]
        .map((e) => e.join('\0'))
        .join('\0') + '\0',
    );
    const risk = assessConfig(entries);
    expect(risk.overrides).toEqual([
      ['credential.helper', ''],
      ['credential.helper', 'store'],
      ['core.sshcommand', 'ssh -i ~/.ssh/work'],
      ['filter.lfs.clean', ''],
    ]);
    expect(risk.unneutralized).toEqual([{ key: 'diff.external', origin: '.git/config' }]);
  });

  it('an inherited GIT_* variable never reaches git (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF); identity does', () => {
    const env = gitEnvFor(
      { PATH: '/bin', GIT_DIR: '/x', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.pager', GIT_CONFIG_VALUE_0: 'evil', GIT_AUTHOR_NAME: 'Me' },
      [],
    );
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_AUTHOR_NAME).toBe('Me');
    const keys = Object.keys(env)
      .filter((k) => k.startsWith('GIT_CONFIG_KEY_'))
      .map((k) => env[k]);
    expect(keys).toContain('core.fsmonitor');
    expect(Object.values(env)).not.toContain('evil');
  });

  it('a repository that names diff.external is reported, and devx’s own diffs pass --no-ext-diff', () => {
    const { repo } = hostileRepo();
    fs.appendFileSync(path.join(repo, '.git', 'config'), '[diff]\n\texternal = evil\n');
    expect(repoConfigRiskSync(repo).unneutralized.map((u) => u.key)).toEqual(['diff.external']);
    expect(ownGitArgs(['-c', 'x=y', 'diff', 'HEAD'])).toEqual(['-c', 'x=y', 'diff', '--no-ext-diff', '--no-textconv', 'HEAD']);
  });

  it('no git process in src/ is started but with the safe environment', () => {
    const offenders: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.ts') && !p.endsWith(path.join('util', 'safeGit.ts'))) {
          const text = fs.readFileSync(p, 'utf8');
          if (/\b(runProcess|runProcessSync|runner|spawn|spawnSync|execFile|execFileSync)\(\s*'git'\s*,/.test(text) && !/safeGitEnvSync|runGitSync/.test(text))
            offenders.push(path.relative(SRC, p));
        }
      }
    };
    walk(SRC);
    expect(offenders).toEqual([]);
  });
});
