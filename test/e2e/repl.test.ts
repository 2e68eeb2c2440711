// The REPL in a real terminal: pastes, continued lines, the editor, confirmations that show what
// will happen. Real gemini against the fake API.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi, gate } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { DEVX_BIN, fakeEnv, makeHome, makeProject, tempDir } from '../helpers/env.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
let home: string;
const sessions: PtySession[] = [];
useFakeApi((f) => (fake = f));
beforeEach(() => {
  home = makeHome();
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

function repl(project: string, extra: Record<string, string> = {}, color = false): PtySession {
  const env = fakeEnv(fake, home, extra);
  if (color) delete env.NO_COLOR;
  const s = startInPty([], project, env);
  sessions.push(s);
  return s;
}

/** A file whose diff is longer than a confirmation shows. */
const BIG = Array.from({ length: 600 }, (_, i) => `line ${i + 1}\n`).join('');

describe('the REPL in a terminal', () => {
  it('a multi-line paste is one message and one model call', async () => {
    const project = makeProject({});
    fake.push({ text: 'Got all three lines.' });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.paste('first line of the task\nsecond line\nthird line');
    s.type('\r');
    await s.waitFor(/Got all three lines\./);
    expect(fake.modelCalls).toHaveLength(1);
    expect(fake.modelCalls[0].promptText).toMatch(/first line of the task\nsecond line\nthird line/);
    s.type('/exit\r');
  });

  it('a line ending in a backslash continues the message', async () => {
    const project = makeProject({});
    fake.push({ text: 'One message.' });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('look at this \\\r');
    await s.waitFor(/\.\.\. /);
    s.type('and this too\r');
    await s.waitFor(/One message\./);
    expect(fake.modelCalls).toHaveLength(1);
    expect(fake.modelCalls[0].promptText).toMatch(/look at this \nand this too/);
  });

  it('/edit sends what was written in $EDITOR', async () => {
    const project = makeProject({});
    const editor = path.join(tempDir(), 'fake-editor.sh');
    fs.writeFileSync(editor, '#!/bin/sh\nprintf "written in the editor\\nsecond line\\n" > "$1"\n', { mode: 0o755 });
    fake.push({ text: 'Read your note.' });
    const s = repl(project, { EDITOR: editor });
    await s.waitFor(/Type a task/);
    s.type('/edit\r');
    await s.waitFor(/Read your note\./);
    expect(fake.modelCalls[0].promptText).toMatch(/written in the editor\nsecond line/);
  });

  it('type-ahead never answers a confirmation: a stray y typed while the model works stays a queued message', async () => {
    const project = makeProject({ 'src/keep.txt': 'keep\n' });
    // The call comes once the REPL has taken in the y typed ahead.
    const typedAhead = gate();
    fake.push(
      { text: 'TOOL_CALL: run_command | cmd=rm -rf src', after: typedAhead.opened },
      (req) => {
        expect(req.promptText).toMatch(/the user declined this run_command call/);
        return { text: 'Not removed.' };
      },
      (req) => {
        // The queued message is sent after the turn, as a message of its own.
        expect(req.promptText).toMatch(/## User\s+y\s/);
        return { text: 'You said y.' };
      },
    );
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('clean up\r');
    await until(() => fake.modelCalls.length === 1); // the model is working
    s.type('y\r'); // meant for later, typed ahead
    await s.waitFor(/^y$/m); // its echo: the REPL has read it
    typedAhead.open();
    await s.waitFor(/Allow\? \[y\]es/);
    await s.waitFor(/queued for after this turn: "y"/);
    expect(fs.existsSync(path.join(project, 'src', 'keep.txt'))).toBe(true);
    s.type('n\r'); // the fresh answer
    await s.waitFor(/Not removed\./);
    await s.waitFor(/You said y\./);
    expect(fs.existsSync(path.join(project, 'src', 'keep.txt'))).toBe(true);
  });

  it('Ctrl-C at a confirmation is no and stops the turn; a later y approves nothing', async () => {
    const project = makeProject({ 'src/keep.txt': 'keep\n' });
    fake.push({ text: 'TOOL_CALL: run_command | cmd=rm -rf src' });
    fake.fallback = { text: 'should not be asked' };
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('clean up\r');
    await s.waitFor(/Allow\? \[y\]es/);
    s.type('\x03'); // Ctrl-C
    await s.waitFor(/no \(the turn is cancelled\)/);
    // The y is a new prompt, not a late answer to the question: the model is asked about it.
    s.type('y\r');
    await s.waitFor(/should not be asked/);
    expect(fs.existsSync(path.join(project, 'src', 'keep.txt'))).toBe(true);
    expect(fake.modelCalls.length).toBeLessThanOrEqual(2);
  });

  it('confirmations show a diff for an overwrite, "create" for a new file, the directory of a command, and a cut diff whole on v', async () => {
    const project = makeProject({ 'notes.txt': 'old line\nkept line\n' });
    fake.push(
      { text: 'TOOL_CALL: write_file | path=notes.txt | content=```\nnew line\nkept line\n```' },
      { text: 'TOOL_CALL: write_file | path=fresh.txt | content=```\nhello\n```' },
      { text: 'TOOL_CALL: run_command | cmd=touch made-by-command' },
      { text: `TOOL_CALL: write_file | path=big.txt | content=\`\`\`\n${BIG}\`\`\`` },
      { text: 'All done.' },
    );
    const s = repl(project, {}, true);
    await s.waitFor(/Type a task/);
    s.type('update the notes\r');
    await s.waitFor(/Allow\? \[y\]es/);
    const first = s.screen();
    expect(first).toMatch(/overwrite notes\.txt: replaces 19 bytes \(2 lines\) with 19 bytes \(2 lines\)/);
    expect(first).toMatch(/-old line\n\s*\+new line/);
    expect(first).toMatch(/wants to write notes\.txt \(2 lines\)/);
    expect(s.raw()).toMatch(/\x1b\[31m-old line/); // red in a terminal
    // An answer edited before Enter is shown as it will be taken: "no", two Backspaces, "y" reads "y", not "noy".
    s.type('no\x7f\x7fy\r');
    await s.waitFor(/create fresh\.txt \(1 lines, 6 bytes\)/);
    expect(s.screen()).toMatch(/this session: y *\n/);
    expect(s.screen()).not.toMatch(/session: noy/);
    s.type('n\r');
    await s.waitFor(/in \/.*\n.*asks because/);
    expect(s.screen()).toContain(`in ${fs.realpathSync(project)}`);
    s.type('n\r');
    // A diff too long to show whole is cut, and v shows all of it before the same question.
    await s.waitFor(/diff cut at 400 lines; \d+ more\)[\s\S]*\[v\]iew the whole diff: $/);
    expect(s.screen()).not.toContain('+line 550');
    s.type('v\r');
    await s.waitFor(/\+line 550[\s\S]*\[v\]iew the whole diff: $/);
    s.type('y\r');
    await s.waitFor(/All done\./);
    expect(fs.readFileSync(path.join(project, 'big.txt'), 'utf8')).toBe(BIG);
    expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('new line\nkept line\n');
    expect(fs.existsSync(path.join(project, 'fresh.txt'))).toBe(false);
    expect(fs.existsSync(path.join(project, 'made-by-command'))).toBe(false);
  });
});

describe('input history', () => {
  it("the Up key reaches the last session's messages, not the answers given to its questions", async () => {
    const project = makeProject({});
    fake.push({ text: 'TOOL_CALL: write_file | path=a.txt | content=one' }, { text: 'First done.' }, { text: 'Second done.' });
    const first = repl(project);
    await first.waitFor(/Type a task/);
    first.type('remember the pineapple\r');
    await first.waitFor(/Allow\? \[y\]es/);
    first.type('y\r');
    await first.waitFor(/First done\./);
    first.type('/exit\r');
    await until(() => first.child.exitCode !== null, 30_000);
    const second = repl(project);
    await second.waitFor(/Type a task/);
    // Up twice (past /exit), then Enter: the message recalled is sent as it was (the "y" answer is not in the history).
    second.type('\x1b[A');
    await second.waitFor(/devx> \/exit$/);
    second.type('\x1b[A');
    await second.waitFor(/devx> remember the pineapple$/);
    second.type('\r');
    await second.waitFor(/Second done\./);
    expect(fake.modelCalls.at(-1)!.promptText).toMatch(/remember the pineapple[\s\S]*remember the pineapple/);
  });
});

describe('pipes', () => {
  it('output into a closed pipe ends quietly (devx audit tail | head -1)', () => {
    const project = makeProject({});
    fs.mkdirSync(path.join(project, '.devx'), { recursive: true });
    const line = JSON.stringify({ time: 't', tool: 'read_file', args: { path: 'x'.repeat(150) }, status: 'ok' });
    fs.writeFileSync(path.join(project, '.devx', 'audit.jsonl'), `${line}\n`.repeat(30_000));
    const out = execFileSync(
      'bash',
      ['-c', `node ${DEVX_BIN} audit tail -n 30000 --json 2>"$0.err" | head -1; echo "status=\${PIPESTATUS[0]}"`, path.join(tempDir(), 'x')],
      { cwd: project, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8' },
    );
    expect(out).toMatch(/^\{"time"/);
    expect(out).toMatch(/status=0\n$/);
  });
});

describe('streaming in the REPL', () => {
  it('prose shows as it arrives; a TOOL_CALL line is never shown raw and runs only once the reply is complete', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    const text = `Looking at it now.\n${'More words that take a while to arrive. '.repeat(3)}\nTOOL_CALL: read_file | path=a.txt`;
    // The rest of the reply is held back until the test has looked at the screen.
    const looked = gate();
    fake.push({ text, nextChunk: () => looked.opened }, { text: 'It says alpha.\nThat is the whole file, one line long.\nNothing else.' });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('read a.txt\r');
    await s.waitFor(/Looking at it now\./);
    // What arrived is on screen (within a line too) while the rest of the reply is still on its way.
    await s.waitFor(/More words that take a/);
    expect(s.screen()).not.toMatch(/→ read_file/);
    expect(s.screen().match(/More words that take a while/g)?.length ?? 0).toBeLessThan(3);
    looked.open();
    await s.waitFor(/Nothing else\./);
    expect(s.screen()).toMatch(/→ read_file path=a\.txt/);
    // A streamed final answer shows each of its lines once.
    for (const line of ['It says alpha.', 'That is the whole file, one line long.', 'Nothing else.']) expect(s.screen().split(line)).toHaveLength(2);
    expect(s.screen()).not.toMatch(/TOOL_CALL/);
    expect(s.screen().match(/Looking at it now\./g)).toHaveLength(1);
  });

  it('resizing the terminal while a reply streams redraws nothing: no prompt inside the reply, every line once', async () => {
    const project = makeProject({});
    const looked = gate();
    const text = 'First part of the answer, streamed. \nSecond line arrives after the resize. \nThird and last line. ';
    fake.push({ text, nextChunk: () => looked.opened });
    const s = repl(project);
    await s.waitFor(/Type a task/);
    s.type('explain\r');
    await s.waitFor(/First part of the answer/);
    const mark = s.raw().length;
    // The terminal changes size (as a window drag does): the kernel sends SIGWINCH to devx.
    execFileSync('stty', ['-F', ttyOf(s), 'cols', '120', 'rows', '40']);
    await until(() => resized(s));
    looked.open();
    await s.waitFor(/Third and last line\./);
    await s.waitFor(/devx> $/);
    const after = s.raw().slice(mark);
    const reply = after.slice(0, after.indexOf('Third and last line.'));
    // Nothing redrawn over the reply: no cleared screen, no prompt in the middle of it.
    expect(reply).not.toMatch(/\x1b\[0?J/);
    expect(reply).not.toContain('devx> ');
    for (const line of ['First part of the answer, streamed.', 'Second line arrives after the resize.', 'Third and last line.'])
      expect(s.screen().split(line)).toHaveLength(2);
  });
});

describe('a command in the REPL', () => {
  it('shows its output under its line, the first lines only; Ctrl-O shows the rest', async () => {
    const project = makeProject({});
    fake.push({ text: 'TOOL_CALL: run_command | cmd=seq -f "row %g" 12' }, { text: 'Twelve rows.' });
    const s = repl(project, { DEVX_SANDBOX: 'off' });
    await s.waitFor(/Type a task/);
    s.type('count\r');
    // seq asks without a sandbox: answer yes.
    await s.waitFor(/Allow\?/);
    s.type('y\r');
    await s.waitFor(/Twelve rows\./);
    await s.waitFor(/devx> $/);
    const screen = s.screen();
    expect(screen).toMatch(/│ row 1\n/);
    expect(screen).toMatch(/│ row 5\n/);
    expect(screen).not.toMatch(/│ row 6\n/);
    expect(screen).toMatch(/… \+7 lines \(Ctrl-O shows them\)/);
    s.type('\x0f');
    await s.waitFor(/│ row 12\n/);
  });
});

/** The terminal devx runs in (its stdin), found as the child of the `script` process the session started. */
function ttyOf(s: PtySession): string {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === s.child.pid) return fs.readlinkSync(`/proc/${pid}/fd/0`);
    } catch {
      /* gone */
    }
  }
  throw new Error('no process under the pty session');
}

/** devx saw the size change: its stdin's terminal reports 120 columns. */
function resized(s: PtySession): boolean {
  return execFileSync('stty', ['-F', ttyOf(s), 'size'], { encoding: 'utf8' }).trim() === '40 120';
}
