// The tools where a process starts (test/unit/tools.test.ts has the rest): run_command for real, ripgrep
// when this machine has it, git repositories made with git, named pipes made with mkfifo.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { runToolCall, type ToolCallDeps, type PersonAnswer } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { tempDir } from '../helpers/env.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { findExecutable } from '../../src/util/findExecutable.js';

// ripgrep when this machine has it; otherwise search_code's JS fallback, which must print the same.
const RG = findExecutable('rg', process.env);
const EXPECTED = JSON.parse(fs.readFileSync(new URL('../fixtures/search-expected.json', import.meta.url), 'utf8')) as {
  args: Record<string, string>;
  content: string;
}[];

let root: string;
let approvals: PersonAnswer;
let asked: string[];
let policy: PolicyEngine;

const deps = (ctx: Partial<ToolCallDeps['ctx']> = {}): ToolCallDeps =>
  toolDeps(root, policy, {
    rgPath: RG,
    ctx,
    approve: (req) => {
      asked.push(String(req.args.cmd ?? req.tool));
      return approvals;
    },
  });

const call = (tool: string, args: Record<string, string>, d = deps()) => runToolCall({ tool, args }, d);

beforeEach(async () => {
  root = tempDir('devx-tools-');
  policy = await makePolicy(root);
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'const a = 1;\nconst b = 2;\nfunction greet(name) {\n  return "Helo " + name;\n}\n');
  approvals = 'yes';
  asked = [];
});

describe('a named pipe (FIFO) in the project', () => {
  // Opening a FIFO blocks until a writer comes: before, read_file, edit_file, search_code and the
  // write previews hung the turn (and a libuv thread) for good. Each call must now settle with an error.
  it('is refused by every tool that reads or appends, without blocking', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const settle = <T>(p: Promise<T>) => Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 3000))]);
    const calls: [string, Record<string, string>][] = [
      ['read_file', { path: 'pipe' }],
      ['edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' }],
      ['append_file', { path: 'pipe', content: 'x' }],
      ['search_code', { pattern: 'x', path: 'pipe' }],
      ['analyze_image', { path: 'pipe' }],
    ];
    for (const [tool, args] of calls) {
      const r = await settle(call(tool, args));
      expect(r, tool).not.toBe('hung');
      if (r === 'hung') continue;
      expect(r.status, tool).toBe('error');
      expect(r.content, tool).toMatch(/named pipe|not a regular file/);
    }
    // A search of the folder holding it skips it, with ripgrep and with the JS fallback alike.
    for (const rgPath of [RG, null]) {
      const r = await settle(call('search_code', { pattern: 'greet' }, deps({ rgPath })));
      expect(r).not.toBe('hung');
      if (r !== 'hung') expect(r.content).toContain('src/main.ts:3:');
    }
    // write_file replaces the pipe with a regular file (an atomic rename), as it would any file.
    const w = await settle(call('write_file', { path: 'pipe', content: 'now a file\n' }));
    expect(w).not.toBe('hung');
    expect(fs.readFileSync(path.join(root, 'pipe'), 'utf8')).toBe('now a file\n');
  });
});

describe('search_code', () => {
  beforeEach(() => {
    fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
    fs.mkdirSync(path.join(root, 'dist'));
    fs.writeFileSync(path.join(root, 'dist/out.js'), 'const TODO = 1;\n');
    fs.writeFileSync(path.join(root, 'debug.log'), 'TODO in a log\n');
    fs.writeFileSync(path.join(root, '.hidden'), 'TODO hidden\n');
    fs.writeFileSync(path.join(root, 'src/b.ts'), '// TODO: first\nx\n// TODO second\n');
    fs.writeFileSync(path.join(root, 'src/bin.dat'), Buffer.from('TODO\u0000binary'));
    fs.mkdirSync(path.join(root, '.git'));
  });

  it(`finds matches as path:line: text (${RG ? 'ripgrep' : 'no ripgrep here: the JS fallback'})`, async () => {
    const r = await call('search_code', { pattern: 'TODO' });
    expect(r.status).toBe('ok');
    expect(r.content).toBe('src/b.ts:1: // TODO: first\nsrc/b.ts:3: // TODO second');
  });

  it('the JS fallback gives the output ripgrep gives (recorded in test/fixtures/search-expected.json)', async () => {
    expect(EXPECTED.length).toBeGreaterThanOrEqual(4);
    for (const { args, content } of EXPECTED) {
      const js = await call('search_code', args, deps({ rgPath: null }));
      expect(js.content, JSON.stringify(args)).toBe(content);
      // With ripgrep installed, the recording is checked against ripgrep itself.
      if (RG) expect((await call('search_code', args, deps({ rgPath: RG }))).content, JSON.stringify(args)).toBe(content);
    }
  });

  it('reports invalid regular expressions and confines the path', async () => {
    expect((await call('search_code', { pattern: '(' })).status).toBe('error');
    expect((await call('search_code', { pattern: '(' }, deps({ rgPath: null }))).content).toMatch(/invalid regular expression/);
    expect((await call('search_code', { pattern: 'x', path: '..' })).decision?.decision).toBe('deny');
  });
});

describe('run_command', () => {
  it('masks credentials written into URLs before the model sees them (git remote -v)', async () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['remote', 'add', 'origin', `https://x-access-token:${token}@github.com/acme/app.git`], { cwd: root });
    execFileSync('git', ['remote', 'add', 'mirror', `https://${token}@github.com/acme/app.git`], { cwd: root });
    execFileSync('git', ['remote', 'add', 'ssh', 'git@github.com:acme/app.git'], { cwd: root });
    const r = await call('run_command', { cmd: 'git remote -v' });
    expect(asked).toEqual(['git remote -v']); // without a sandbox only the small list runs unasked; the person's yes runs it
    expect(r.content).not.toContain(token);
    expect(r.content).toContain('origin\thttps://x-access-token:***@github.com/acme/app.git (fetch)');
    expect(r.content).toContain('mirror\thttps://***@github.com/acme/app.git (fetch)');
    expect(r.content).toContain('ssh\tgit@github.com:acme/app.git (fetch)');
    expect(r.content).toContain('[devx masked 4 credential(s) written into URLs');
    // A file read is shown as it is: an edit must be able to match its text.
    fs.writeFileSync(path.join(root, 'docs.md'), 'clone https://user:example@host/repo\n');
    expect((await call('read_file', { path: 'docs.md' })).content).toContain('https://user:example@host/repo');
  });

  it('asks first, then runs in the project root with exit code and output', async () => {
    const r = await call('run_command', { cmd: 'pwd && echo err >&2 && exit 3' });
    expect(asked).toEqual(['pwd && echo err >&2 && exit 3']);
    expect(r.status).toBe('error');
    expect(r.content).toContain('exit_code=3');
    expect(r.content).toContain(`stdout:\n${root}\n`);
    expect(r.content).toContain('stderr:\nerr');
  });

  it('kills the whole process tree on timeout', async () => {
    const marker = `3${String(Date.now()).slice(-5)}.5`;
    const r = await call('run_command', { cmd: `(sleep ${marker}; echo late) & sleep ${marker}`, timeout: '1' });
    expect(r.content).toMatch(/killed after 1s timeout/);
    const alive = () =>
      fs
        .readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`sleep\u0000${marker}`);
          } catch {
            return false;
          }
        });
    // SIGKILL lands asynchronously: allow a loaded machine a bounded moment (the sleeps would last 30 s).
    for (let i = 0; i < 50 && alive().length; i++) await new Promise((res) => setTimeout(res, 100));
    expect(alive()).toEqual([]);
  });

  it('a command whose daemon left its group (setsid) and holds the output ends when the command does, with its output', async () => {
    fs.writeFileSync(path.join(root, 'serve.sh'), "#!/bin/sh\n(setsid sh -c 'sleep 31' &)\necho served\n", { mode: 0o755 });
    const started = Date.now();
    const r = await call('run_command', { cmd: './serve.sh', timeout: '20' });
    expect(r.status, r.content).toBe('ok');
    expect(r.content).toContain('stdout:\nserved\n');
    // Not its 20 s timeout: the held pipe is let go a moment after the command exits.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('hides credentials from the command environment', async () => {
    process.env.DEVX_TEST_API_KEY = 'sekrit';
    try {
      const d = deps();
      d.decide = () => ({ decision: 'allow', reason: 'test', rule: 'test' });
      const r = await runToolCall({ tool: 'run_command', args: { cmd: 'env' } }, d);
      expect(r.content).not.toContain('sekrit');
      expect(r.content).toContain('DEVX=1');
    } finally {
      delete process.env.DEVX_TEST_API_KEY;
    }
  });
});

describe('run_command runs the line it judged', () => {
  it('an inherited CDPATH, GLOBIGNORE or exported function does not change where cd goes, what a glob matches or what a name runs', async () => {
    const outside = tempDir('devx-cdpath-');
    fs.mkdirSync(path.join(outside, 'lib'));
    fs.writeFileSync(path.join(outside, 'lib', 'secret.txt'), 'OUTSIDE');
    fs.writeFileSync(path.join(root, '.hidden'), 'HIDDEN');
    const saved = { ...process.env };
    Object.assign(process.env, { CDPATH: outside, GLOBIGNORE: 'x', 'BASH_FUNC_cat%%': '() { echo HIJACKED; }' });
    try {
      // Judged from the project: lib is not a folder here, so cd fails and cat sees the project's files.
      const r = await call('run_command', { cmd: 'cd lib; cat secret.txt; echo *; cat src/main.ts | head -1' });
      expect(r.content).not.toContain('OUTSIDE');
      expect(r.content).not.toContain('.hidden');
      expect(r.content).not.toContain('HIJACKED');
      expect(r.content).toContain('const a = 1;');
    } finally {
      for (const k of ['CDPATH', 'GLOBIGNORE', 'BASH_FUNC_cat%%']) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('bash reads no ~/.bashrc, as it would for a devx started without SHLVL (an editor, a service): its stdin is a socket', async () => {
    const home = tempDir('devx-rc-home-');
    const marker = path.join(home, 'rc-ran');
    fs.writeFileSync(path.join(home, '.bashrc'), `echo rc >> '${marker}'; shopt -s expand_aliases; alias cat='echo ALIASED'\n`);
    const saved = { ...process.env };
    delete process.env.SHLVL;
    process.env.HOME = home;
    try {
      const r = await call('run_command', { cmd: 'cat src/main.ts | head -1' });
      expect(r.content).toContain('const a = 1;');
      expect(r.content).not.toContain('ALIASED');
      expect(fs.existsSync(marker)).toBe(false);
      // bash itself does read it in that position: what the case stands for is real on this machine.
      execFileSync(process.execPath, [
        '-e',
        `require('child_process').spawnSync('bash', ['-c', 'true'], { env: { PATH: process.env.PATH, HOME: '${home}' } })`,
      ]);
      expect(fs.existsSync(marker)).toBe(true);
    } finally {
      Object.assign(process.env, saved);
    }
  });
});

describe('run_command and git repositories the model can write', () => {
  it('git does not adopt a bare repository found by walking into it, whose config could name programs', async () => {
    // A folder with HEAD, objects and refs is a bare repository; its config here names an external diff program.
    const work = tempDir('devx-bare-src-');
    const git = (args: string[], cwd: string) => execFileSync('git', ['-c', 'user.email=a@b', '-c', 'user.name=n', ...args], { cwd, stdio: 'pipe' });
    git(['init', '-q'], work);
    for (const n of ['1', '2']) {
      fs.writeFileSync(path.join(work, 'f.txt'), n);
      git(['add', 'f.txt'], work);
      git(['commit', '-qm', n], work);
    }
    git(['clone', '-q', '--bare', work, path.join(root, 'evil')], root);
    fs.writeFileSync(path.join(root, 'evil', 'ext.sh'), '#!/bin/sh\necho PWNED\n', { mode: 0o755 });
    fs.appendFileSync(path.join(root, 'evil', 'config'), `[diff]\n\texternal = ${path.join(root, 'evil', 'ext.sh')}\n`);
    // The same line in a plain shell runs the program: the test would pass vacuously without that.
    expect(execFileSync('bash', ['-c', 'cd evil && git diff HEAD~1 HEAD'], { cwd: root, encoding: 'utf8' })).toContain('PWNED');
    const r = await call('run_command', { cmd: 'cd evil && git diff HEAD~1 HEAD' });
    expect(r.content).not.toContain('PWNED');
    // git no longer sees a repository there (safe.bareRepository=explicit), so it fails instead of running ext.sh.
    expect(r.content).toMatch(/exit_code=[1-9]/);
  });
});

describe('run_command and git, with nobody at a terminal', () => {
  it('a commit without -m neither opens the editor nor waits on it: git runs with GIT_EDITOR=true', async () => {
    const saved = process.env.GIT_EDITOR;
    // The user's editor, which here never returns: git would wait on it until the command's timeout.
    process.env.GIT_EDITOR = 'sleep 60';
    try {
      const repo = path.join(root, 'repo');
      fs.mkdirSync(repo);
      execFileSync('git', ['init', '-q'], { cwd: repo });
      fs.writeFileSync(path.join(repo, 'a.txt'), 'a');
      execFileSync('git', ['add', 'a.txt'], { cwd: repo });
      for (const [k, v] of [
        ['user.email', 'a@b'],
        ['user.name', 'n'],
      ])
        execFileSync('git', ['config', k, v], { cwd: repo });
      const started = Date.now();
      const r = await call('run_command', { cmd: 'cd repo && git commit', timeout: '30' });
      // GIT_EDITOR=true leaves the template, which holds only comments: git aborts on the empty message.
      expect(r.content).toContain('Aborting commit due to empty commit message');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      if (saved === undefined) delete process.env.GIT_EDITOR;
      else process.env.GIT_EDITOR = saved;
    }
  }, 40_000);
});

describe('run_command leaves nothing running', () => {
  const alive = (tag: string) => {
    try {
      return execFileSync('pgrep', ['-f', tag], { encoding: 'utf8' }).trim() !== '';
    } catch {
      return false;
    }
  };
  it('stops what a command started in the background, and a background job holding the output does not keep the call open', async () => {
    const tag = `sleep ${7000 + Math.floor(Math.random() * 999)}`;
    const r = await call('run_command', { cmd: `nohup ${tag} > /dev/null 2>&1 & echo started` });
    expect(r.content).toContain('started');
    expect(r.content).toContain('stopped what the command left running in the background');
    await new Promise((res) => setTimeout(res, 200));
    expect(alive(tag)).toBe(false);
    const tag2 = `sleep ${8000 + Math.floor(Math.random() * 999)}`;
    const t = Date.now();
    const r2 = await call('run_command', { cmd: `${tag2} & echo second`, timeout: '30' });
    expect(r2.content).toContain('second');
    expect(Date.now() - t).toBeLessThan(10_000);
    await new Promise((res) => setTimeout(res, 200));
    expect(alive(tag2)).toBe(false);
    // A command that leaves nothing behind says nothing about it.
    expect((await call('run_command', { cmd: 'echo plain' })).content).not.toContain('background');
  }, 40_000);
});
