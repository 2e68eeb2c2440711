// Session lifecycle end to end with the real gemini binary: crash and resume, two processes in one
// project, handoffs when the model fails, and the GEMINI_TURN round trip with Claude Code. The session that is
// killed or held runs as a process; the runs whose subject is devx's own start or end (resuming a crashed session,
// a second one refused, what a session's end writes: HANDOFF.md, the audit, MEMORY.md, the checkpoint) run the
// command in this process with a scripted model (runCliHere); `devx sessions` reads their state as a process.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';
import type { ScriptedReply } from '../../src/providers/scripted.js';
import { BackendError } from '../../src/providers/types.js';
import { killUnder, killWatchdogOf, processesUnder, startDevx as startBg, until } from '../helpers/processes.js';

const startDevx = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => startBg(args, cwd, env, children);
/** `devx run …` in this process, the model replying `replies` in turn. */
const runHere = (project: string, args: string[], replies: ScriptedReply[], env: Record<string, string> = {}) =>
  runScripted(args, { cwd: project, home, replies, env });

let fake: FakeGeminiApi;
let home: string;
const children: ChildProcess[] = [];

useFakeApi((f, h) => {
  fake = f;
  home = h;
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  // A failed assertion must not leave a model CLI behind either.
  killUnder(path.join(home, '.devx'));
});

describe('crash recovery', () => {
  it('a session killed with kill -9 mid-turn is detected, its orphans reaped, and resumed from its checkpoint', async () => {
    const project = makeProject({ 'src/a.ts': 'export const a = 1;\n' });
    // One gemini process per call: it outlives a killed devx (a warm one ends when its stdin closes;
    // test/e2e/warm.test.ts covers that), so this proves the reaping.
    const env = fakeEnv(fake, home, { DEVX_PROVIDER_MODE: 'spawn' });
    fake.push(
      { text: 'TOOL_CALL: todo | objective=Rename a to alpha | items=```\n- [x] Find the uses of a\n- [ ] Rename the export\n- [ ] Update the callers\n```' },
      { hang: true },
    );
    const first = startDevx(['run', '--yes', 'rename a to alpha everywhere'], project, env);
    await until(() => fake.modelCalls.length >= 2);
    await until(() => processesUnder(path.join(home, '.devx')).length > 0);
    // Its watchdog first (otherwise it stops the orphans at once): what is left is for the next start to reap.
    killWatchdogOf(first.child.pid!);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.on('close', r));
    const orphans = processesUnder(path.join(home, '.devx'));
    expect(orphans.length).toBeGreaterThan(0); // gemini outlived devx: kill -9 runs no cleanup
    const lock = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'session.lock'), 'utf8'));
    expect(lock.pid).toBe(first.child.pid);

    // The next start is devx's own code: here, with a scripted model.
    const resumed = await runHere(
      project,
      ['run', '--resume', 'continue where you stopped'],
      [
        (req) => {
          expect(req.prompt).toContain('rename a to alpha everywhere');
          expect(req.prompt).toMatch(/Resumed session \S+, which ended abruptly while working on: "rename a to alpha everywhere"/);
          expect(req.prompt).toContain('- [ ] Rename the export');
          expect(req.prompt).toContain('- [x] Find the uses of a');
          return 'Picking up: the export still needs renaming.';
        },
      ],
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/The last session \(\S+\) ended abruptly while working on "rename a to alpha everywhere"/);
    expect(resumed.stderr).toMatch(/Open todos \(Rename a to alpha\):\n\s+- \[ \] Rename the export/);
    expect(resumed.stdout).toContain('Picking up');
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    expect(fs.existsSync(path.join(project, '.devx', 'session.lock'))).toBe(false);

    const list = await runDevx(['sessions', '--json'], { cwd: project, env });
    const sessions = JSON.parse(list.stdout);
    expect(sessions.map((s: { status: string }) => s.status)).toEqual(['crashed', 'ended']);
    expect(sessions[1].checkpoint.todos).toHaveLength(3);
    expect(sessions[1].resumedFrom).toBe(sessions[0].id);
    // The history file survived the kill intact.
    expect(() => JSON.parse(fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8'))).not.toThrow();
  }, 90_000);

  it('kill -9 while a model CLI that already answered is still exiting: the next start reaps it', async () => {
    // A stand-in claude that prints a successful result, then (while the marker file exists) stays
    // alive as a CLI stuck in its own shutdown would. devx has the answer and waits for it to exit.
    const dir = tempDir('devx-standin-');
    const marker = path.join(dir, 'hang');
    const bin = path.join(dir, 'claude');
    const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'pong', usage: { input_tokens: 3, output_tokens: 1 } });
    fs.writeFileSync(
      bin,
      `#!${process.execPath}\nprocess.stdin.resume();\nprocess.stdin.on('end', () => process.stdout.write(${JSON.stringify(result)} + '\\n', () => { if (require('fs').existsSync(${JSON.stringify(marker)})) setTimeout(() => {}, 60000); }));\n`,
      { mode: 0o755 },
    );
    fs.writeFileSync(marker, '');
    const project = makeProject({});
    const env = fakeEnv(fake, home, { DEVX_CLAUDE_BIN: bin, ANTHROPIC_API_KEY: 'sk-ant-test' });
    const first = startDevx(['run', '--provider', 'claude', 'ping'], project, env);
    // Printed, then the session record is closed (as ended) before devx waits for the CLI: wait for the record.
    const recordEnded = () => {
      const dir = path.join(project, '.devx', 'sessions');
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
      return files.some((f) => {
        try {
          return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).status === 'ended';
        } catch {
          return false;
        }
      });
    };
    await until(() => first.output().includes('pong') && recordEnded());
    const lingering = processesUnder(path.join(home, '.devx'));
    expect(lingering.length).toBe(1);
    // devx answered and is waiting for the CLI: its lock still names the CLI's group.
    const lock = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'session.lock'), 'utf8'));
    expect(lock.pid).toBe(first.child.pid);
    expect(lock.children).toHaveLength(1);
    killWatchdogOf(first.child.pid!);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.on('close', r));
    expect(processesUnder(path.join(home, '.devx'))).toEqual(lingering); // kill -9 runs no cleanup

    fs.rmSync(marker);
    const second = await runDevx(['run', '--provider', 'claude', 'ping again'], { cwd: project, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('pong');
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    // The first session had ended (its answer was saved); only its CLI was left, so it is not called crashed.
    const sessions = JSON.parse((await runDevx(['sessions', '--json'], { cwd: project, env })).stdout);
    expect(sessions.map((s: { status: string }) => s.status)).toEqual(['ended', 'ended']);
  }, 60_000);

  it('a second devx in the same project is told a session is live and changes nothing', async () => {
    const project = makeProject({});
    const env = fakeEnv(fake, home);
    fake.push({ hang: true });
    const first = startDevx(['run', 'long task'], project, env);
    await until(() => fake.modelCalls.length >= 1);
    const historyBefore = fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8');
    const second = await runHere(project, ['run', 'another task'], []);
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(new RegExp(`another devx session \\(pid ${first.child.pid}`));
    expect(fs.readFileSync(path.join(project, '.devx', 'history.json'), 'utf8')).toBe(historyBefore);
    expect(fake.modelCalls).toHaveLength(1);
    // SIGTERM ends the first one cleanly: the lock is released and its record is ended.
    first.child.kill('SIGTERM');
    const code = await new Promise((r) => first.child.on('close', r));
    expect(code).toBe(130);
    expect(fs.existsSync(path.join(project, '.devx', 'session.lock'))).toBe(false);
    const list = JSON.parse((await runDevx(['sessions', '--json'], { cwd: project, env })).stdout);
    expect(list.map((s: { status: string }) => s.status)).toEqual(['ended']);
  }, 60_000);
});

describe('handoffs', () => {
  it('a one-shot run makes one model call and writes no HANDOFF.md unless asked; the audit names the session', async () => {
    const project = makeProject({});
    fs.writeFileSync(path.join(project, 'a.txt'), 'hello\n');
    const r = await runHere(project, ['run', 'what does a.txt say'], ['TOOL_CALL: read_file | path=a.txt', 'It says hello.', 'A handoff.'], {
      DEVX_HANDOFF: 'model',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.model.requests).toHaveLength(2);
    expect(fs.existsSync(path.join(project, 'HANDOFF.md'))).toBe(false);
    expect(r.stderr).not.toMatch(/HANDOFF/);
    // The audit log records the session id `devx sessions` shows.
    const sessions = JSON.parse((await runDevx(['sessions', '--json'], { cwd: project, env: fakeEnv(fake, home) })).stdout) as { id: string }[];
    const audit = fs
      .readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect([...new Set(audit.map((a) => a.session))]).toEqual([sessions[0].id]);
    expect(audit.map((a) => a.event)).toEqual(['model_call', 'tool_call', 'model_call']);
  });

  it('the model drafts HANDOFF.md at the end of a run', async () => {
    const project = makeProject({});
    const r = await runHere(
      project,
      ['run', '--handoff', 'look at the project'],
      [
        'Done: I looked at it.',
        '## Summary\nLooked at the project.\n\n## Done\n- Read the tree\n\n## Next\n- Write tests\n\n## Blockers\n- None.\n\n## Open questions\n- Which framework?',
      ],
      { DEVX_HANDOFF: 'model' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.model.requests[1].prompt).toContain('The session is ending. Write the handoff');
    expect(r.model.requests[1].prompt).toContain('last request: look at the project');
    const h = fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8');
    expect(h.split('\n')[0]).toBe('CLAUDE_TURN: READY');
    expect(h).toMatch(/## Summary\nLooked at the project\./);
    expect(h).toMatch(/## Next\n- Write tests/);
    expect(h).toMatch(/## Artifacts\n- session record: \.devx\/sessions\//);
  });

  it('a handoff is still written from the session record when the model call fails', async () => {
    const project = makeProject({});
    const refused = new BackendError('bad_request', 'the API refused the request (HTTP 400)');
    const r = await runHere(
      project,
      ['run', '--yes', '--handoff', 'write some notes'],
      ['TOOL_CALL: write_file | path=notes.md | content=hello', 'Wrote notes.md.', refused],
      { DEVX_HANDOFF: 'model' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/HANDOFF.md written from the session record \(the model could not draft it: .*HTTP 400/);
    const h = fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8');
    expect(h.split('\n')[0]).toBe('CLAUDE_TURN: READY');
    expect(h).toContain('Last request: "write some notes"');
    expect(h).toContain('- file: notes.md');
  });

  it('round trip: devx waits for GEMINI_TURN, works on the handoff, and hands back to Claude', async () => {
    const project = makeProject({
      'HANDOFF.md': 'CLAUDE_TURN: READY\n\n# Handoff\n\n## Summary\nClaude is reviewing.\n',
    });
    const env = fakeEnv(fake, home, { DEVX_HANDOFF: 'model' });
    fake.push(
      (req) => {
        expect(req.promptText).toContain('It is your turn (GEMINI_TURN) in HANDOFF.md');
        expect(req.promptText).toContain('- Research how sessions expire');
        return { text: 'TOOL_CALL: store_qdrant | type=research | tags=auth | content=Sessions expire after 30 minutes.' };
      },
      { text: 'Researched: sessions expire after 30 minutes; stored in the knowledge store.' },
      {
        text: '## Summary\nResearched session expiry.\n\n## Done\n- Stored the finding\n\n## Next\n- Claude decides the timeout\n\n## Blockers\n- None.\n\n## Open questions\n- None.',
      },
    );
    const waiter = startDevx(['handoff', '--wait', '--timeout', '60', '--interval', '200'], project, env);
    // devx reads the file before it says it waits: a write after the line is a hand-back (on a loaded machine a
    // fixed pause could end before devx had read it, and the write looked shipped).
    await until(() => waiter.output().includes('waiting for GEMINI_TURN'));
    expect(fake.modelCalls).toHaveLength(0); // still waiting: it is Claude's turn
    // Claude Code's side only edits HANDOFF.md.
    fs.writeFileSync(
      path.join(project, 'HANDOFF.md'),
      'GEMINI_TURN: READY\n\n# Handoff\n\n## Summary\nPlease research.\n\n## Next\n- Research how sessions expire\n',
    );
    const code = await new Promise((r) => waiter.child.on('close', r));
    expect(code, waiter.output()).toBe(0);
    const h = fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8');
    expect(h.split('\n')[0]).toBe('CLAUDE_TURN: READY');
    expect(h).toContain('Researched session expiry.');
    expect(h).toMatch(/- knowledge: k_[0-9a-f]+ \(agent: gemini\)/);
    // Claude's side can query what devx stored.
    const q = await runDevx(['memory', 'search', 'session expiry', '--agent', 'gemini', '--json'], { cwd: project, env });
    expect(JSON.parse(q.stdout)[0]).toMatchObject({
      content: 'Sessions expire after 30 minutes.',
      metadata: { agent: 'gemini', type: 'research', tags: ['auth'] },
    });
  }, 90_000);

  it('devx handoff --to claude writes the handoff and stops', async () => {
    const project = makeProject({});
    const env = fakeEnv(fake, home);
    await runHere(project, ['run', 'first task'], ['An answer.']);
    fake.push({ text: '## Summary\nHanding over.\n\n## Next\n- Review' });
    const r = await runDevx(['handoff', '--to', 'claude'], { cwd: project, env: { ...env, DEVX_HANDOFF: 'model' } });
    expect(r.code, r.stderr).toBe(0);
    const h = fs.readFileSync(path.join(project, 'HANDOFF.md'), 'utf8');
    expect(h.split('\n')[0]).toBe('CLAUDE_TURN: READY');
    expect(h).toContain('Handing over.');
  });
});

describe('memory and todos in a session', () => {
  it('remember appends a dated, deduplicated line to MEMORY.md; todo keeps the checkpoint', async () => {
    const project = makeProject({ 'MEMORY.md': '# Memory\n\n- 2026-01-01: The build uses pnpm\n' });
    const r = await runHere(
      project,
      ['run', 'note things'],
      [
        'TOOL_CALL: remember | fact=The build uses   PNPM.\nTOOL_CALL: remember | fact=Integration tests need Postgres on 5433\nTOOL_CALL: todo | objective=Set up CI | items=```\n- [ ] Add the workflow\n```',
        'Noted.',
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    const mem = fs.readFileSync(path.join(project, 'MEMORY.md'), 'utf8');
    expect(mem.match(/pnpm/gi)).toHaveLength(1);
    expect(mem).toMatch(/^- \d{4}-\d{2}-\d{2}: Integration tests need Postgres on 5433$/m);
    const sessions = JSON.parse((await runDevx(['sessions', '--json'], { cwd: project, env: fakeEnv(fake, home) })).stdout);
    expect(sessions[0].checkpoint).toMatchObject({ objective: 'Set up CI', todos: [{ text: 'Add the workflow', done: false }] });
  });
});
