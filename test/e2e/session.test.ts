// End to end: the built devx drives the real `gemini` binary against the scripted fake API. The cases about what a
// headless run refuses and what it carries into the next one run devx's command in this process with a scripted
// model (runCliHere).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGeminiApi, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';

let fake: FakeGeminiApi;
let home: string;

useFakeApi((f, h) => {
  fake = f;
  home = h;
});

function workspaceOf(req: RecordedRequest): string {
  const m = /Workspace Directories:\*\*\s*\n\s*-\s*(\S+)/.exec(req.promptText);
  if (!m) throw new Error(`no workspace in request: ${req.promptText.slice(0, 500)}`);
  return m[1];
}

describe('devx run against the real gemini binary', () => {
  it('reads, edits, runs a command and answers in a multi-turn session', async () => {
    const project = makeProject({ 'src/main.ts': 'export function main() {\n  consle.log("hello");\n}\n' });
    fake.push(
      { text: 'Let me look at the file first.\nTOOL_CALL: read_file | path=src/main.ts' },
      (req) => {
        expect(req.promptText).toContain('TOOL_RESULT: read_file | status=ok');
        expect(req.promptText).toContain('consle.log("hello");');
        return { text: 'TOOL_CALL: edit_file | path=src/main.ts | old_text=```\n  consle.log("hello");\n``` | new_text=```\n  console.log("hello");\n```' };
      },
      (req) => {
        expect(req.promptText).toContain('TOOL_RESULT: edit_file | status=ok');
        return { text: 'TOOL_CALL: run_command | cmd=git diff --stat' };
      },
      (req) => {
        expect(req.promptText).toMatch(/TOOL_RESULT: run_command \| status=ok \| cmd=git diff --stat \| exit_code=0/);
        expect(req.promptText).toContain('1 file changed');
        return { text: 'I fixed the typo: `consle` is now `console` in src/main.ts.' };
      },
    );
    const r = await runDevx(['run', '--yes', '--json', 'read src/main.ts and fix the typo in it'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(project, 'src/main.ts'), 'utf8')).toBe('export function main() {\n  console.log("hello");\n}\n');

    const transcript = JSON.parse(r.stdout);
    expect(transcript.status).toBe('answered');
    expect(transcript.answer).toContain('I fixed the typo');
    expect(transcript.toolCalls.map((c: any) => [c.tool, c.status])).toEqual([
      ['read_file', 'ok'],
      ['edit_file', 'ok'],
      ['run_command', 'ok'],
    ]);
    expect(transcript.rounds).toBe(4);
    expect(transcript.usage.input).toBeGreaterThan(0);

    const calls = fake.modelCalls;
    expect(calls).toHaveLength(4);
    for (const c of calls) {
      expect(c.systemText).toContain('You are devx');
      expect(c.systemText).toContain('TOOL_CALL: edit_file');
      expect(c.functionDeclarations).toBe(0);
      expect(c.apiKey).toBe('test-key');
      // gemini ran in devx's scratch directory, not in the project.
      const ws = workspaceOf(c);
      expect(ws.startsWith(project)).toBe(false);
      expect(ws.startsWith(path.join(home, '.devx', 'run'))).toBe(true);
    }
    expect(fs.existsSync(path.join(project, '.gemini'))).toBe(false);

    // The conversation was persisted for the next session.
    const history = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8'));
    expect(history.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    // devx's per-process scratch directory is removed on exit (what stays is the launch plan for the next run's head start).
    expect(fs.readdirSync(path.join(home, '.devx', 'run'))).toEqual(['launch-plans']);
  });

  it('refuses commands in a headless run without --yes, and says how to allow them', async () => {
    const project = makeProject({ 'a.txt': 'x\n' });
    const r = await runScripted(['run', 'make a file'], {
      cwd: project,
      home,
      replies: [
        'TOOL_CALL: run_command | cmd=touch created-by-model',
        (req) => {
          expect(req.prompt).toMatch(/TOOL_RESULT: run_command \| status=error/);
          expect(req.prompt).toContain('--yes');
          return 'I could not run the command.';
        },
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(project, 'created-by-model'))).toBe(false);
    expect(r.stdout).toContain('I could not run the command.');
  });

  it('carries the conversation into the next session with --continue and sends MEMORY.md and HANDOFF.md', async () => {
    const project = makeProject({ 'MEMORY.md': '# Memory\n- the build uses pnpm\n', 'HANDOFF.md': 'GEMINI_TURN: READY\nNext: add tests\n' });
    const env = fakeEnv(fake, home);
    // A HANDOFF.md without devx's line is read only once the user says it is theirs.
    expect((await runDevx(['handoff', '--adopt'], { cwd: project, env })).code).toBe(0);
    const first = await runScripted(['run', 'Remember: the secret word is kumquat.'], { cwd: project, home, replies: ['The secret word is kumquat.'] });
    expect(first.code, first.stderr).toBe(0);
    const sent = `${first.model.requests[0].systemPrompt}\n${first.model.requests[0].prompt}`;
    expect(sent).toContain('the build uses pnpm');
    expect(sent).toContain('Next: add tests');
    const second = await runScripted(['run', '--continue', 'What was the secret word?'], {
      cwd: project,
      home,
      replies: [
        (req) => {
          expect(req.prompt).toContain('What was the secret word?');
          expect(req.prompt).toContain('The secret word is kumquat.');
          return 'It was kumquat.';
        },
      ],
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('It was kumquat.');
  });

  it('runs piped stdin as a REPL script with slash commands', async () => {
    const project = makeProject({});
    fake.push({ text: 'Hello! How can I help?' });
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input: '/tools\nhi there\n/history\n/exit\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('read_file | path | [offset] | [limit]');
    expect(r.stdout).toContain('Hello! How can I help?');
    expect(r.stdout).toMatch(/user\s+hi there/);
    expect(fake.modelCalls).toHaveLength(1);
  });
});

describe('REPL slash commands for sessions and agents', () => {
  it('/agent list, /agent use, /todos, /agent:start and /agent:status work from a piped REPL', async () => {
    const project = makeProject({
      '.devx/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews code changes for bugs\ntools: [read_file, todo]\n---\nReview.',
    });
    fake.push(
      (req) => {
        expect(req.systemText).toContain('# Your role: the reviewer agent');
        return { text: 'TOOL_CALL: todo | objective=Review | items=```\n- [ ] read the diff\n```' };
      },
      { text: 'Reviewed.' },
    );
    const input = [
      '/agent list',
      '/agent use reviewer',
      'please review the change',
      '/todos',
      '/agent:start reviewer "check the tests"',
      '/agent:status',
      '/exit',
      '',
    ].join('\n');
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/reviewer\s+project devx\s+Reviews code changes for bugs/);
    expect(r.stdout).toContain('Now working as reviewer (tools: read_file, todo).');
    expect(r.stdout).toContain('Reviewed.');
    expect(r.stdout).toContain('objective: Review\n- [ ] read the diff');
    expect(r.stdout).toMatch(/Task task_\w+ created for agent 'reviewer' and is now pending\./);
    expect(r.stdout).toMatch(/\| task_\w+ \| reviewer \| pending \| .* \| check the tests \|/);
  });

  it('suggests a fitting agent for a free-form request', async () => {
    const project = makeProject({
      '.devx/agents/docs-writer.md': '---\nname: docs-writer\ndescription: Writes and updates documentation and READMEs\n---\nWrite docs.',
    });
    fake.push({ text: 'ok' });
    const r = await runDevx([], { cwd: project, env: fakeEnv(fake, home), input: 'update the README documentation\n/exit\n' });
    expect(r.stdout).toContain('(tip: the docs-writer agent fits this; /agent use docs-writer)');
  });
});

describe('interrupts', () => {
  it('Ctrl-C cancels the running turn and kills gemini; the REPL goes on; two at the prompt exit', async () => {
    const { spawn } = await import('node:child_process');
    const { processesUnder, until } = await import('../helpers/processes.js');
    const { DEVX_BIN } = await import('../helpers/env.js');
    const project = makeProject({});
    fake.push({ hang: true }, { text: 'second answer' });
    const child = spawn(process.execPath, [DEVX_BIN], { cwd: project, env: fakeEnv(fake, home), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.write('first question\n');
    await until(() => fake.modelCalls.length === 1 && processesUnder(path.join(home, '.devx')).length > 0);
    child.kill('SIGINT');
    await until(() => out.includes('turn cancelled'));
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 5000);
    child.stdin.write('second question\n');
    await until(() => out.includes('second answer'));
    child.kill('SIGINT');
    await until(() => out.includes('press Ctrl-C again to exit'));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(0);
    const history = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8'));
    expect(history.messages.map((m: any) => m.content)).toEqual(['first question', 'The user cancelled this turn.', 'second question', 'second answer']);
  }, 60_000);
});
