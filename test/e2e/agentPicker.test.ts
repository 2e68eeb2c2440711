// The agent picker in a real terminal (a pty): `devx agent pick` and `/agent` in the REPL; and
// `defaultAgent` in settings choosing the persona a session starts with. Real gemini, fake API.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { runScripted } from '../helpers/runCliHere.js';

let fake: FakeGeminiApi;
let home: string;
const sessions: PtySession[] = [];
useFakeApi((f, h) => {
  fake = f;
  home = h;
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

const agent = (name: string, description: string, tools?: string) =>
  `---\nname: ${name}\ndescription: ${description}\n${tools ? `tools: [${tools}]\n` : ''}---\nYou are ${name}.\n`;

function setup(): string {
  fs.mkdirSync(path.join(home, '.devx', 'agents'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'agents', 'test-runner.md'), agent('test-runner', 'Runs the test suite and reports failures', 'Bash, Read'));
  return makeProject({
    '.devx/agents/code-reviewer.md': agent('code-reviewer', 'Reviews diffs for bugs', 'Read, Grep, Glob'),
    '.devx/agents/docs-writer.md': agent('docs-writer', 'Writes the documentation'),
  });
}

function pty(args: string[], project: string): PtySession {
  // devx's own picker even where fzf is installed.
  const s = startInPty(args, project, fakeEnv(fake, home, { DEVX_PICKER: 'builtin' }));
  sessions.push(s);
  return s;
}

/** The picker's last frame on the screen. */
const lastFrame = (s: PtySession) => s.screen().slice(s.screen().lastIndexOf('Pick an agent'));

const exited = (s: PtySession) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.on('exit', r)));

/** Waits until the picker's latest frame matches. */
async function waitFrame(s: PtySession, re: RegExp): Promise<void> {
  const end = Date.now() + 10_000;
  while (!re.test(lastFrame(s))) {
    if (Date.now() > end) throw new Error(`frame never matched ${re}:\n${lastFrame(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the agent picker', () => {
  it('devx agent pick: both scopes, fuzzy filter, arrow keys, the selected agent described; Enter prints its name', async () => {
    const project = setup();
    const s = pty(['agent', 'pick'], project);
    await s.waitFor(/Pick an agent[\s\S]*──/);
    const first = lastFrame(s);
    expect(first).toMatch(/▸ code-reviewer\s+project\s+Reviews diffs for bugs/);
    expect(first).toMatch(/ {2}docs-writer\s+project\s+Writes the documentation/);
    expect(first).toMatch(/ {2}test-runner\s+user\s+Runs the test suite/);
    expect(first).toContain('tools: read_file, search_code, glob');
    s.type('\x1b[B'); // down
    await waitFrame(s, /▸ docs-writer[\s\S]*──\ndocs-writer \(project, [\s\S]*tools: \(inherits every permitted tool\)/);
    s.type('trn'); // t…r…n: only test-runner has it in its name
    await waitFrame(s, /> trn\n▸ test-runner[\s\S]*──\ntest-runner \(user, [\s\S]*tools: run_command, read_file/);
    expect(lastFrame(s)).not.toContain('code-reviewer');
    s.type('\r');
    await s.waitFor(/start a session with it as the persona: devx --agent test-runner/);
    await exited(s);
    expect(s.child.exitCode).toBe(0);
    expect(s.screen()).toMatch(/\ntest-runner\n/);
  }, 30_000);

  it('uses fzf when it is on PATH: the agents go in, the chosen line comes out', async () => {
    const project = setup();
    // fzf is not installed here: a stand-in on PATH records what devx passes and picks the docs-writer line.
    const bin = tempDir('devx-fzf-');
    const log = path.join(bin, 'input.txt');
    fs.writeFileSync(path.join(bin, 'fzf'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${log}.args\ncat > ${log}\ngrep '^docs-writer' ${log}\n`, { mode: 0o755 });
    const env = fakeEnv(fake, home, { PATH: `${bin}:${process.env.PATH}` });
    const s = startInPty(['agent', 'pick'], project, env);
    sessions.push(s);
    await s.waitFor(/start a session with it as the persona: devx --agent docs-writer/);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split('\t').slice(0, 3))).toEqual([
      ['code-reviewer', 'project', 'Reviews diffs for bugs'],
      ['docs-writer', 'project', 'Writes the documentation'],
      ['test-runner', 'user', 'Runs the test suite and reports failures'],
      ['default', '-', 'plain devx, no persona'],
    ]);
    expect(lines[2].split('\t')[3]).toContain('tools: run_command, read_file');
    expect(fs.readFileSync(`${log}.args`, 'utf8')).toContain('--preview');
  }, 30_000);

  it('Esc cancels with exit 1; without a terminal it says to use agent list', async () => {
    const project = setup();
    const s = pty(['agent', 'pick'], project);
    await s.waitFor(/Pick an agent[\s\S]*──/);
    s.type('\x1b');
    await s.waitFor(/no agent chosen/);
    await exited(s);
    expect(s.child.exitCode).toBe(1);
    const piped = await runDevx(['agent', 'pick'], { cwd: project, env: fakeEnv(fake, home) });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('devx agent pick needs a terminal; devx agent list prints the agents');
  }, 30_000);

  it('/agent in the REPL opens the picker; the choice is the persona of the next turn', async () => {
    const project = setup();
    fake.push((req) => {
      expect(req.systemText).toContain('# Your role: the test-runner agent');
      return { text: 'Running tests as test-runner.' };
    });
    const s = pty([], project);
    await s.waitFor(/Type a task/);
    s.type('/agent\r');
    await s.waitFor(/Pick an agent[\s\S]*──/);
    s.type('\x1b[B\x1b[B'); // code-reviewer → docs-writer → test-runner
    await waitFrame(s, /▸ test-runner[\s\S]*──\ntest-runner \(user, .*\)\nRuns the test suite and reports failures\ntools: run_command, read_file/);
    s.type('\r');
    await s.waitFor(/Now working as test-runner \(tools: run_command, read_file\)/);
    s.type('run the tests\r');
    await s.waitFor(/Running tests as test-runner\./);
    s.type('/exit\r');
    await exited(s);
  }, 60_000);
});

describe('defaultAgent', () => {
  it('selects the persona a session starts with; the project setting beats the user one; an unknown name is a warning', async () => {
    const project = setup();
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ defaultAgent: 'test-runner' }));
    const env = fakeEnv(fake, home);
    // The session's start is devx's own: the runs are its command in this process with a scripted model.
    const run = async () => {
      const r = await runScripted(['run', 'hi'], { cwd: project, home, replies: ['Hi.'] });
      return { ...r, system: r.model.requests[0]?.systemPrompt ?? '' };
    };
    const user = await run();
    expect(user.code, user.stderr).toBe(0);
    expect(user.system).toContain('# Your role: the test-runner agent');

    fs.writeFileSync(path.join(project, '.devx', 'settings.json'), JSON.stringify({ defaultAgent: 'code-reviewer' }));
    // A project's defaultAgent applies only once the user trusts the project; until then start-up names it.
    const untrusted = await run();
    expect(untrusted.stderr).toMatch(/"defaultAgent": "code-reviewer" .* ignored until you trust the project/);
    expect(untrusted.system).toContain('# Your role: the test-runner agent');
    await runDevx(['trust'], { cwd: project, env });
    const trusted = await run();
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.system).toContain('# Your role: the code-reviewer agent');

    fs.writeFileSync(path.join(project, '.devx', 'settings.json'), JSON.stringify({ defaultAgent: 'nobody' }));
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('devx: warning: defaultAgent "nobody" in settings: no agent named "nobody". Known: ');
    expect(r.system).not.toContain('# Your role');
  }, 60_000);
});
