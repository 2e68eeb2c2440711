// git prints file contents from its objects, where the path check and the sandbox do not look: in a
// repository that tracks a file the policy denies, the commands that can print it ask, in every mode.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEVX_BIN, tempDir } from '../helpers/env.js';
import { detectBwrap } from '../../src/sandbox/bwrap.js';

let root: string;
let plain: string;
let home: string;

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'ignore' });

function repo(files: Record<string, string>): string {
  const dir = tempDir('devx-gitobj-');
  for (const [f, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), content);
  }
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  fs.appendFileSync(path.join(dir, 'src/main.ts'), 'y\n');
  return dir;
}

function decide(cwd: string, commands: string[], mode = 'default'): Record<string, string> {
  const input = commands.map((c) => JSON.stringify({ kind: 'command', input: c })).join('\n') + '\n';
  const out = execFileSync(process.execPath, [DEVX_BIN, 'policy', 'check', '--json', '--batch', '--approval-mode', mode], {
    cwd,
    env: { PATH: process.env.PATH, HOME: home },
    input,
    encoding: 'utf8',
  });
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { decision: string });
  return Object.fromEntries(commands.map((c, i) => [c, lines[i].decision]));
}

/** Unasked: inside the sandbox any git read the model allows; without it only the small list runs unasked, the rest asks. */
const SANDBOXED = detectBwrap({ PATH: process.env.PATH }) !== null;
const unasked = (cmd: string) => (SANDBOXED || /^git (status|diff|log|show|ls-files|branch|rev-parse)\b/.test(cmd) ? 'allow' : 'ask');
const OUTSIDE_SMALL_MODEL = /\s(-c|--cc|--binary|--check|-m|-W|--diff-merges=\S+|--patch-with-stat)(\s|$)/;
const allUnasked = (d: Record<string, string>) => Object.entries(d).filter(([c, v]) => v !== unasked(c));

const PRINTS = [
  'git diff',
  'git diff HEAD',
  'git diff -- .',
  "git diff -- '*.production'",
  'git log -p',
  'git log --all -p',
  'git show HEAD',
  'git show 3f2a1b9',
  'git cat-file -p 3f2a1b9',
  'git cat-file --batch-all-objects --batch',
  'git stash show -p',
  // Output formats beyond -p that print contents: only a names-only allowlist keeps them out.
  'git log -c -1',
  'git log --cc -1',
  'git log --remerge-diff -1',
  'git log --binary -1',
  'git log -s --binary -1',
  'git log -m -1',
  'git log --diff-merges=on -1',
  'git log --diff-merges=first-parent -1',
  'git log --patch-with-stat -1',
  'git log -W -1',
  'git log --word-diff -1',
  'git log --stat --check -1',
  'git diff --check HEAD~1',
  'git diff --stat --binary',
  'git show --binary --stat',
  'git show --stat --word-diff',
  'git show -c',
  'git show --oneline HEAD',
  'git show --diff-merges=off HEAD',
  'git whatchanged -p -1',
  // show prints a blob whatever the options.
  'git show -s 3f2a1b9',
  'git show --stat HEAD^{}',
];
const NARROW = [
  'git diff -- src',
  'git diff HEAD -- src/main.ts',
  'git log -p -- src',
  'git show HEAD -- src',
  'git diff --stat',
  'git log --oneline',
  'git show --stat HEAD',
  'git show -s --format=%H HEAD',
  'git show --name-only HEAD',
  'git log --stat -1 --format=%s',
  'git log --oneline --graph --all',
  'git diff --numstat HEAD~1',
  'git diff --name-status --cached',
  'git stash list',
  'git status',
  'git cat-file -t HEAD',
  'git ls-files',
];

describe('git objects in a repository that tracks denied files', () => {
  beforeAll(() => {
    home = tempDir('devx-gitobj-home-');
    root = repo({ 'src/main.ts': 'x\n', '.env.production': 'TOKEN=1\n', 'config/credentials.json': '{}' });
    plain = repo({ 'src/main.ts': 'x\n', 'README.md': 'r\n' });
  });

  it('asks before git prints contents that could include them, and the ask holds in yolo', () => {
    const d = decide(root, PRINTS);
    expect(Object.entries(d).filter(([, v]) => v !== 'ask')).toEqual([]);
    const yolo = decide(root, PRINTS, 'yolo');
    expect(Object.entries(yolo).filter(([, v]) => v !== 'deny')).toEqual([]);
  });

  it('without the sandbox, the ask says git would print a file the policy denies', () => {
    const out = execFileSync(process.execPath, [DEVX_BIN, 'policy', 'check', '--json', '--batch'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: home, DEVX_SANDBOX: 'off' },
      input: JSON.stringify({ kind: 'command', input: 'git log --binary -1' }) + '\n',
      encoding: 'utf8',
    });
    const d = JSON.parse(out.trim()) as { decision: string; reason: string };
    expect(d.decision).toBe('ask');
    expect(d.reason).toMatch(/contents of .*policy denies/);
  });

  it('paths after -- are read like any path, and narrowing to other paths runs unasked', () => {
    expect(decide(root, ['git diff -- .env.production', 'git log -p -- config/credentials.json'])).toEqual({
      'git diff -- .env.production': 'deny',
      'git log -p -- config/credentials.json': 'deny',
    });
    expect(allUnasked(decide(root, NARROW))).toEqual([]);
  });

  it('a secret committed once and removed since is still in the objects: git log -p asks, narrowed paths do not', () => {
    const dir = repo({ 'src/main.ts': 'x\n', '.env': 'TOKEN=1\n' });
    git(dir, 'rm', '-q', '--cached', '.env');
    fs.rmSync(path.join(dir, '.env'));
    git(dir, 'commit', '-qm', 'remove the secret');
    // Nothing tracks it now, so without history the policy would see a clean repository.
    expect(execFileSync('git', ['ls-files'], { cwd: dir, encoding: 'utf8' })).not.toContain('.env');
    const d = decide(dir, ['git log -p', 'git log --all -p', 'git show HEAD~1', 'git log -p -- src', 'git log --stat']);
    expect(d).toEqual({ 'git log -p': 'ask', 'git log --all -p': 'ask', 'git show HEAD~1': 'ask', 'git log -p -- src': 'allow', 'git log --stat': 'allow' });
    expect(decide(dir, ['git log -p'], 'yolo')).toEqual({ 'git log -p': 'deny' });
  });

  it('a secret stashed with -u is in the stash commit: showing the stash asks, whichever part is shown', () => {
    const dir = repo({ 'src/main.ts': 'x\n' });
    fs.writeFileSync(path.join(dir, '.env'), 'TOKEN=1\n');
    git(dir, 'stash', 'push', '-u', '-q');
    expect(fs.existsSync(path.join(dir, '.env'))).toBe(false);
    const shows = [
      'git stash show -p',
      'git stash show -p -u',
      'git stash show --include-untracked -p',
      'git stash show --only-untracked -p',
      'git stash list -p',
    ];
    expect(decide(dir, shows)).toEqual(Object.fromEntries(shows.map((c) => [c, 'ask'])));
    expect(decide(dir, ['git stash show --only-untracked -p'], 'yolo')).toEqual({ 'git stash show --only-untracked -p': 'deny' });
    expect(allUnasked(decide(dir, ['git stash show --stat', 'git stash list']))).toEqual([]);
  });

  it('a repository without such files keeps git diff, log -p and show unasked', () => {
    expect(
      allUnasked(
        decide(
          plain,
          // --remerge-diff is outside devx's model of git and whatchanged is modelled as a change: they ask anywhere.
          // Without the sandbox, output formats outside the small model (-c, -m, -W, --binary, --check, …) ask anywhere.
          PRINTS.filter((c) => !c.includes('stash') && !/remerge|whatchanged/.test(c) && (SANDBOXED || !OUTSIDE_SMALL_MODEL.test(c))),
        ),
      ),
    ).toEqual([]);
  });
});
