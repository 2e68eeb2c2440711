// Undo end to end: the REPL in a real terminal with real gemini against the fake API. The model edits a
// file and creates one, /undo puts both back; after the REPL exits, `devx undo --list` and `devx undo`
// work from the command line (refusing a file changed since, unless --force), `devx undo` from a second
// terminal while a session runs refuses, and a devx killed with -9 mid-turn still has its turn undone.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeProject, runDevx } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { isAlive } from '../../src/session/sessionLock.js';

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

function repl(project: string): PtySession {
  const s = startInPty(['--yes'], project, fakeEnv(fake, home));
  sessions.push(s);
  return s;
}

const exited = (s: PtySession) => new Promise<void>((resolve) => (s.child.exitCode !== null ? resolve() : s.child.once('exit', () => resolve())));

describe('undo', () => {
  it('/undo in the REPL puts back an edited file and removes a created one; devx undo works after the REPL exits', async () => {
    const project = makeProject({ 'notes.txt': 'old line\nkept line\n' });
    const file = (rel: string) => path.join(project, rel);
    fake.push(
      {
        text: 'TOOL_CALL: edit_file | path=notes.txt | old_text=old line | new_text=new line\nTOOL_CALL: write_file | path=src/hello.txt | content=```\nhello\n```',
      },
      { text: 'Edited and created.' },
      (req) => {
        // The model is told its edits were undone.
        expect(req.promptText).toMatch(/The user undid the file changes of the turn "update the notes"[^\n]*notes\.txt restored, src\/ removed/);
        return { text: 'TOOL_CALL: write_file | path=notes.txt | content=```\nsecond version\n```' };
      },
      { text: 'Rewrote the notes.' },
    );
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('update the notes\r');
    await s.waitFor(/Edited and created\./);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('new line\nkept line\n');
    expect(fs.readFileSync(file('src/hello.txt'), 'utf8')).toBe('hello\n');

    s.type('/undo --list\r');
    await s.waitFor(/1 +\d{4}-\d\d-\d\d [\d:]+ +"update the notes"\n +notes\.txt changed · src\/ created/);
    s.type('/undo\r');
    await s.waitFor(/Undid "update the notes"[^\n]*:\n +notes\.txt: restored\n +src\/: removed/);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('old line\nkept line\n');
    expect(fs.existsSync(file('src'))).toBe(false);
    s.type('/undo\r');
    await s.waitFor(/nothing to undo/);

    s.type('rewrite the notes\r');
    await s.waitFor(/Rewrote the notes\./);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('second version\n');

    // A second terminal while the session runs: refused, pointing at /undo.
    const env = fakeEnv(fake, home);
    const busy = await runDevx(['undo'], { cwd: project, env });
    expect(busy.code).toBe(4);
    expect(busy.stderr).toMatch(/a devx session \(pid \d+\) is active in this project; type \/undo there/);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('second version\n');

    s.type('/exit\r');
    await exited(s);

    const list = await runDevx(['undo', '--list'], { cwd: project, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/ 1 +[\d-]+ [\d:]+ +"rewrite the notes"\n +notes\.txt changed\n/);
    expect(list.stdout).toMatch(/1 older undo kept/);
    expect(list.stdout).not.toMatch(/update the notes/);

    // Changed since by someone else: refused, naming it, and nothing is written.
    fs.writeFileSync(file('notes.txt'), 'my own edit\n');
    const refused = await runDevx(['undo'], { cwd: project, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /nothing was undone: these files are not as devx left them:\n +notes\.txt: changed since devx changed it \(turn "rewrite the notes"\)/,
    );
    expect(refused.stderr).toMatch(/devx undo --force/);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('my own edit\n');

    const forced = await runDevx(['undo', '--force'], { cwd: project, env });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/Undid "rewrite the notes"[^\n]*:\n +notes\.txt: restored \(overwrote later changes: --force\)/);
    expect(fs.readFileSync(file('notes.txt'), 'utf8')).toBe('old line\nkept line\n');
    // The conversation learns of it for the next session.
    const history = JSON.parse(fs.readFileSync(file('.devx/history.json'), 'utf8')) as { messages: { role: string; content: string }[] };
    expect(history.messages.at(-1)).toMatchObject({ role: 'devx', content: expect.stringMatching(/undid .*"rewrite the notes": notes\.txt restored/) });
  });

  it('a devx killed with -9 mid-turn: the files it changed are put back by devx undo; commands it could not know are named', async () => {
    const project = makeProject({ 'a.txt': 'before\n', 'package.json': '{"name":"p","version":"1.0.0"}\n' });
    fake.push(
      { text: 'TOOL_CALL: write_file | path=a.txt | content=```\nafter\n```\nTOOL_CALL: run_command | cmd=npm install --offline --no-audit --no-fund' },
      { text: 'never seen', delayMs: 60_000 },
    );
    // A person answers yes (with --yes, a machine without bubblewrap would refuse npm install, and it would not be named).
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('change a\r');
    // The turn is waiting on the model: a.txt is written, npm has run (or is running).
    const deadline = Date.now() + 60_000;
    let answered = 0;
    while (fake.modelCalls.length < 2 && Date.now() < deadline) {
      const asked = s.screen().split('Allow? [y]es').length - 1;
      if (asked > answered) {
        answered = asked;
        s.type('y\r');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('after\n');
    const pid = (JSON.parse(fs.readFileSync(path.join(project, '.devx', 'session.lock'), 'utf8')) as { pid: number }).pid;
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));

    const env = fakeEnv(fake, home);
    const list = await runDevx(['undo', '--list'], { cwd: project, env });
    expect(list.stdout).toMatch(
      /"change a" \(devx stopped during this turn\)\n +a\.txt changed\n +not undoable: `npm install --offline --no-audit --no-fund` \(it runs the project's own code/,
    );
    const r = await runDevx(['undo'], { cwd: project, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/a\.txt: restored\n +that turn also ran `npm install --offline --no-audit --no-fund`, which undo cannot reverse/);
    expect(fs.readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('before\n');
  });
});
