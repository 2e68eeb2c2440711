// What the model is told when a background command ends (the note's text, given once, before the next
// request: between tool rounds or with the user's next message), and what the person sees of them: the
// background view's lines (`/bg`, Ctrl-T), controls shown and never obeyed, and the prompt's count.
import { describe, expect, it } from 'vitest';
import { BackgroundCommands, endNotice, type BackgroundExit, type BackgroundView, type EndedCommand } from '../../src/tools/backgroundCommands.js';
import stringWidth from 'string-width';
import { outputLines, renderBackgroundView, type ViewRow } from '../../src/cli/backgroundView.js';
import { promptFor } from '../../src/cli/planFlow.js';
import { runTurn, type AgentEvent } from '../../src/core/loop.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { makeLoopDeps } from '../helpers/loopDeps.js';
import { makePolicy } from '../helpers/policy.js';
import { tempDir } from '../helpers/env.js';

function view(over: Partial<BackgroundView> = {}): BackgroundView {
  return {
    id: 'bg1',
    cmd: 'npm run build',
    sandbox: null,
    state: 'exited',
    exitCode: 3,
    signal: null,
    startedAt: 1_000,
    endedAt: 2_500,
    unread: 12,
    notes: [],
    ...over,
  };
}

const ended = (over: Partial<BackgroundView> = {}, more: Partial<EndedCommand> = {}): EndedCommand => ({
  view: view(over),
  unreadLines: 2,
  dropped: 0,
  ...more,
});

describe('the note the model gets when a background command ends', () => {
  it('says the exit code, how long it ran, the unread lines and the call that reads them', () => {
    expect(endNotice(ended())).toBe(
      'Background command bg1 (`npm run build`) exited with code 3 after 2s. It printed 2 lines you have not read; read them with: TOOL_CALL: command_output | id=bg1',
    );
    expect(endNotice(ended({}, { unreadLines: 1 }))).toContain('It printed 1 line you have not read;');
  });

  it('says a signal, a stop by the user, a stop it asked for, and nothing unread', () => {
    expect(endNotice(ended({ exitCode: null, signal: 'SIGKILL', endedAt: 61_000 }))).toMatch(
      /^Background command bg1 \(`npm run build`\) was ended by SIGKILL after 1m00s\./,
    );
    expect(endNotice(ended({ state: 'stopped', exitCode: null, signal: 'SIGTERM', by: 'person' }))).toMatch(/was stopped by the user after 2s \(SIGTERM\)\./);
    expect(endNotice(ended({ state: 'stopped', exitCode: null, signal: 'SIGKILL', by: 'model' }))).toMatch(
      /ended after 2s, stopped as you asked \(SIGKILL\)\./,
    );
    expect(endNotice(ended({ exitCode: null, notes: ['[it did not run: spawn bash ENOENT]'] }, { unreadLines: 0 }))).toBe(
      'Background command bg1 (`npm run build`) ended without an exit code after 2s. [it did not run: spawn bash ENOENT] It printed nothing you have not read.',
    );
  });

  it('quotes a long or multi-line command by its start, and says what devx dropped', () => {
    const text = endNotice(ended({ cmd: `node -e "${'x'.repeat(200)}"\necho two` }, { dropped: 5000 }));
    expect(text).toMatch(/^Background command bg1 \(`node -e "x{70}… …`\) exited/);
    expect(text).toContain('(and 5000 earlier characters devx dropped: it keeps the newest output)');
  });
});

/** A launch the test ends itself. */
function held() {
  let end!: (x: BackgroundExit) => void;
  let say!: (t: string) => void;
  const launch = (l: { signal: AbortSignal; onOutput(t: string): void; onGroup(p: number): void }) => {
    say = l.onOutput;
    l.signal.addEventListener('abort', () => end({ exitCode: null, signal: 'SIGTERM', notes: [] }));
    return new Promise<BackgroundExit>((r) => (end = r));
  };
  return { launch, say: (t: string) => say(t), end: (x: BackgroundExit) => end(x) };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('which ends are told, once', () => {
  it('an end is given once; one the model read with command_output or stopped itself is not; the session end is nobody’s', async () => {
    const bg = new BackgroundCommands();
    const [a, b, c, d] = [held(), held(), held(), held()];
    bg.start('make', null, a.launch);
    bg.start('server', null, b.launch);
    bg.start('watch', null, c.launch);
    bg.start('tail -f log', null, d.launch);
    expect(bg.takeEnded()).toEqual([]);
    a.say('compiling\nbuilt\n');
    a.end({ exitCode: 3, signal: null, notes: [] });
    await settle();
    const first = bg.takeEnded();
    expect(first.map((e) => [e.view.id, e.view.exitCode, e.unreadLines, e.dropped])).toEqual([['bg1', 3, 2, 0]]);
    expect(bg.takeEnded()).toEqual([]);
    // Read after its end (command_output): the model saw how it ended.
    b.end({ exitCode: 0, signal: null, notes: [] });
    await settle();
    bg.read('bg2');
    expect(bg.takeEnded()).toEqual([]);
    // Stopped by the model (stop_command's answer says how) or by the session: no note.
    await bg.stop('bg3', 'model');
    expect(bg.takeEnded()).toEqual([]);
    // Stopped by the person: the model is told.
    await bg.stop('bg4', 'person');
    expect(bg.takeEnded().map((e) => [e.view.id, e.view.by, e.view.state])).toEqual([['bg4', 'person', 'stopped']]);
    const e = held();
    bg.start('sleep 9', null, e.launch);
    await bg.stopAll('session');
    expect(bg.takeEnded()).toEqual([]);
  });

  it('an unread last line without its newline counts; what the model read does not', async () => {
    const bg = new BackgroundCommands();
    const a = held();
    bg.start('build', null, a.launch);
    a.say('one\ntwo\n');
    bg.read('bg1');
    a.say('three\nfour');
    a.end({ exitCode: 0, signal: null, notes: [] });
    await settle();
    expect(bg.takeEnded()[0].unreadLines).toBe(2);
    // What the person looks at is everything kept, and reading it marks nothing read.
    expect(bg.output('bg1')).toBe('one\ntwo\nthree\nfour');
    expect(bg.list()[0].unread).toBe('three\nfour'.length);
  });
});

describe('the loop adds the notes it is given before a request, once', () => {
  it('between tool rounds, and with the user message of the next turn', async () => {
    const root = tempDir('devx-notes-');
    const policy = await makePolicy(root);
    const queue: string[][] = [[], ['Background command bg1 ended (first).'], ['Background command bg2 ended (second).']];
    const backend = new ScriptedBackend(['TOOL_CALL: list_directory | path=.', 'Done.', 'Again.']);
    const deps = makeLoopDeps(root, backend, policy, { notes: () => queue.shift() ?? [] });
    const events: AgentEvent[] = [];
    const r1 = await runTurn(deps, [], 'look around', { signal: new AbortController().signal, emit: (e) => events.push(e) });
    // Round 1 had none; before round 2 the first was added, after the tool results.
    expect(r1.added.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'devx', 'assistant']);
    expect(r1.added[3].content).toBe('Background command bg1 ended (first).');
    expect(backend.requests[0].prompt).not.toContain('Background command');
    expect(backend.requests[1].prompt).toMatch(/## Tool results \(from devx\)[\s\S]*## Note from devx\nBackground command bg1 ended \(first\)\./);
    // The next turn: the second note comes with the user's message; the first is in the history, once.
    const r2 = await runTurn(deps, r1.added, 'and now?', { signal: new AbortController().signal, emit: () => undefined });
    expect(r2.added.map((m) => m.role)).toEqual(['user', 'devx', 'assistant']);
    const p = backend.requests[2].prompt;
    expect(p.match(/Background command bg1 ended/g)).toHaveLength(1);
    expect(p).toMatch(/## User\nand now\?\n\n## Note from devx\nBackground command bg2 ended \(second\)\./);
    expect(events.filter((e) => e.type === 'message' && e.message.role === 'devx')).toHaveLength(1);
  });
});

const NOW = 100_000;
const row = (v: Partial<BackgroundView>, output = ''): ViewRow => ({ view: view(v), output });

describe('the background view', () => {
  const rows = [
    row({ id: 'bg1', cmd: 'node server.js', state: 'running', exitCode: null, startedAt: NOW - 12_000, endedAt: undefined }, 'listening on 4000\nhit /ping\n'),
    row({ id: 'bg2', cmd: 'npm run build', startedAt: NOW - 5_000, endedAt: NOW - 4_000 }, 'built\n\n'),
  ];

  it('lists id, state, time, the command and its last line; the selected one is marked', () => {
    const lines = renderBackgroundView({ rows, selected: 1, showing: 'list', stopping: new Set(), status: '' }, { width: 120, height: 40, now: NOW });
    expect(lines).toEqual([
      'Background commands (1 running) · ↑/↓ select · k stop · Enter output · Esc close',
      '  bg1   running             12s  node server.js',
      '        │ hit /ping',
      '▸ bg2   exited (exit 3)      1s  npm run build',
      '        │ built',
    ]);
  });

  it('says a stop under way and what the last key did', () => {
    const lines = renderBackgroundView(
      { rows, selected: 0, showing: 'list', stopping: new Set(['bg1']), status: 'stopping bg1 (its whole process group)…' },
      { width: 120, height: 40, now: NOW },
    );
    expect(lines[1]).toBe('▸ bg1   stopping…           12s  node server.js');
    expect(lines.at(-1)).toBe('stopping bg1 (its whole process group)…');
  });

  it("draws a command's and its output's controls as text, and every line within the width", () => {
    const hostile = [
      row(
        { cmd: 'printf "\x1b]52;c;ZXZpbA==\x07"\tx', state: 'running', exitCode: null, startedAt: NOW, endedAt: undefined },
        `ok\n\x1b[31mred\x1b[0m \x1b]0;title\x07 ${'y'.repeat(300)}\n`,
      ),
    ];
    const lines = renderBackgroundView({ rows: hostile, selected: 0, showing: 'list', stopping: new Set(), status: '' }, { width: 80, height: 40, now: NOW });
    const all = lines.join('\n');
    // eslint-disable-next-line no-control-regex
    expect(all).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(lines[1]).toContain('printf "␛]52;c;ZXZpbA==␇" x');
    expect(lines[2]).toMatch(/│ red ␛\]0;title␇ y+…$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(79);
    const shown = renderBackgroundView({ rows: hostile, selected: 0, showing: 'output', stopping: new Set(), status: '' }, { width: 80, height: 40, now: NOW });
    // eslint-disable-next-line no-control-regex
    expect(shown.join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it('fits lines of wide characters by the columns the terminal gives them', () => {
    const wide = [row({ cmd: `echo ${'界'.repeat(60)}`, state: 'running', exitCode: null, startedAt: NOW, endedAt: undefined }, `${'🎉'.repeat(60)}\n`)];
    for (const showing of ['list', 'output'] as const) {
      const lines = renderBackgroundView({ rows: wide, selected: 0, showing, stopping: new Set(), status: '' }, { width: 80, height: 40, now: NOW });
      for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(79);
    }
  });

  it("shows the selected command's output so far, its newest lines when they do not fit", () => {
    const long = row(
      { id: 'bg1', cmd: 'npm test', state: 'running', exitCode: null, startedAt: NOW - 3_000, endedAt: undefined },
      Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'),
    );
    const lines = renderBackgroundView({ rows: [long], selected: 0, showing: 'output', stopping: new Set(), status: '' }, { width: 100, height: 12, now: NOW });
    expect(lines.slice(0, 2)).toEqual(['bg1 · running · 3s · npm test', 'k stop · Esc back · the newest 7 of 50 lines']);
    expect(lines.slice(2)).toEqual(['│ line 44', '│ line 45', '│ line 46', '│ line 47', '│ line 48', '│ line 49', '│ line 50']);
  });

  it('keeps the entries that fit around the selected one', () => {
    const many = Array.from({ length: 30 }, (_, i) => row({ id: `bg${i + 1}`, startedAt: NOW - 1000, endedAt: NOW }));
    const lines = renderBackgroundView({ rows: many, selected: 20, showing: 'list', stopping: new Set(), status: '' }, { width: 100, height: 14, now: NOW });
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.some((l) => l.startsWith('▸ bg21 '))).toBe(true);
    expect(lines[1]).toMatch(/^ {2}… \d+ more above$/);
    expect(lines.at(-1)).toMatch(/^ {2}… \d+ more below$/);
  });

  it("a program's output as a terminal would show it: colours gone, a CR-rewritten line as its last state", () => {
    expect(outputLines('\x1b[1mbold\x1b[0m\n10%\r50%\r100%\r\nend\n\n')).toEqual(['bold', '100%', 'end']);
  });
});

describe('the prompt', () => {
  it('counts the background commands that run, beside the mode', () => {
    expect(promptFor('default')).toBe('devx> ');
    expect(promptFor('default', 1)).toBe('devx [1 bg]> ');
    expect(promptFor('plan', 2)).toBe('devx [plan · 2 bg]> ');
    expect(promptFor('auto-edit', 0)).toBe('devx [auto-edit]> ');
  });
});
