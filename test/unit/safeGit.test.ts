// One way to run git: every git devx starts gets an environment in which the repository's configuration
// names no program that runs (fsmonitor, hooks, filters, textconv, pager, ssh, credential helpers, gpg).
// Here the parts that need no git; test/integration/safeGit.test.ts runs the real git on a hostile repository.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assessConfig, gitEnvFor, parseConfigList } from '../../src/util/safeGit.js';

const SRC = path.resolve(__dirname, '../../src');

describe('git as devx runs it', () => {
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
