// Undo's store by its effects on real files in temp folders: what a turn changed is put back (content and
// mode, files it created removed, files it deleted recreated, whole folders), files changed since are named
// and left alone unless forced, turns go newest first, and a manifest left by a killed process still undoes.
// The last part runs real tool calls through runToolCall with the journal in their context; the call that
// runs commands is in test/integration/undoStore.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { UndoJournal, loadTurns, undoTurns, undoDir, prune, changeOf, type TurnManifest } from '../../src/session/undoStore.js';
import { runToolCall, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { tempDir } from '../helpers/env.js';
import { BlobStore, capture } from '../../src/session/undoState.js';
import { undoSlash } from '../../src/cli/commands/undo.js';
import type { Started } from '../../src/runtime/startSession.js';

const OWNER = 'a'.repeat(32);
let root: string;
const p = (rel: string) => path.join(root, rel);
const read = (rel: string) => fs.readFileSync(p(rel), 'utf8');
const mode = (rel: string) => fs.statSync(p(rel)).mode & 0o777;
const write = (rel: string, text: string, m?: number) => {
  fs.mkdirSync(path.dirname(p(rel)), { recursive: true });
  fs.writeFileSync(p(rel), text);
  if (m !== undefined) fs.chmodSync(p(rel), m);
};
const undo = (n = 1, force = false) => undoTurns(root, n, { force, owner: OWNER });
const journal = () => new UndoJournal(root, { owner: OWNER });

/** One turn: each step keeps its paths, changes them, and records what it left. */
function turn(j: UndoJournal, input: string, steps: [string[], () => void][]): void {
  j.beginTurn(input);
  for (const [rels, change] of steps) {
    const abs = rels.map(p);
    j.before(abs, `step on ${rels.join(' ')}`);
    change();
    j.after(abs);
  }
  j.endTurn();
}

beforeEach(() => {
  root = tempDir('devx-undo-');
});

describe('undo store', () => {
  it('puts back content and mode, removes what the turn created (with its new folders), recreates what it deleted', () => {
    write('a.txt', 'alpha\n', 0o640);
    write('b.txt', 'bravo\n', 0o600);
    const j = journal();
    turn(j, 'change things', [
      [['a.txt'], () => (write('a.txt', 'ALPHA\n'), fs.chmodSync(p('a.txt'), 0o755))],
      [['new/deep/c.txt'], () => write('new/deep/c.txt', 'charlie\n')],
      [['b.txt'], () => fs.rmSync(p('b.txt'))],
    ]);
    const [t] = loadTurns(root, OWNER);
    expect(t.input).toBe('change things');
    expect(t.entries.map((e) => [e.path, changeOf(e)])).toEqual([
      ['a.txt', 'changed'],
      ['new', 'created'],
      ['b.txt', 'deleted'],
    ]);

    const r = undo();
    expect(r.status).toBe('undone');
    if (r.status !== 'undone') return;
    expect(r.turns[0].restored.map((x) => [x.path, x.action])).toEqual([
      ['a.txt', 'restored'],
      ['new', 'removed'],
      ['b.txt', 'recreated'],
    ]);
    expect(read('a.txt')).toBe('alpha\n');
    expect(mode('a.txt')).toBe(0o640);
    expect(fs.existsSync(p('new'))).toBe(false);
    expect(read('b.txt')).toBe('bravo\n');
    expect(mode('b.txt')).toBe(0o600);
    // Marked undone: a second undo has nothing left.
    expect(undo().status).toBe('nothing');
    // Copies of the user's files are never committed, whatever an older .devx/.gitignore says.
    expect(fs.readFileSync(path.join(undoDir(root), '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a removed folder comes back whole: files, modes, a link, an empty folder', () => {
    write('d/x.txt', 'x\n', 0o644);
    write('d/sub/y.sh', '#!/bin/sh\n', 0o755);
    fs.mkdirSync(p('d/empty'));
    fs.symlinkSync('x.txt', p('d/link'));
    turn(journal(), 'rm -r d', [[['d'], () => fs.rmSync(p('d'), { recursive: true })]]);
    expect(undo().status).toBe('undone');
    expect(read('d/x.txt')).toBe('x\n');
    expect(mode('d/sub/y.sh')).toBe(0o755);
    expect(fs.statSync(p('d/empty')).isDirectory()).toBe(true);
    expect(fs.readlinkSync(p('d/link'))).toBe('x.txt');
  });

  it('refuses, naming the file, when it changed since devx changed it; --force puts it back', () => {
    write('a.txt', 'v1\n');
    write('b.txt', 'b1\n');
    turn(journal(), 'edit a and b', [
      [['a.txt'], () => write('a.txt', 'v2\n')],
      [['b.txt'], () => write('b.txt', 'b2\n')],
    ]);
    write('a.txt', 'the user typed this\n');
    const r = undo();
    expect(r.status).toBe('refused');
    if (r.status === 'refused') expect(r.conflicts.map((c) => [c.path, c.kind])).toEqual([['a.txt', 'changed']]);
    // Nothing was touched: not even b.txt, which was as devx left it.
    expect(read('a.txt')).toBe('the user typed this\n');
    expect(read('b.txt')).toBe('b2\n');
    const f = undo(1, true);
    expect(f.status).toBe('undone');
    if (f.status === 'undone') expect(f.turns[0].restored.find((x) => x.path === 'a.txt')?.forced).toBe(true);
    expect(read('a.txt')).toBe('v1\n');
    expect(read('b.txt')).toBe('b1\n');
  });

  it('a mode changed since counts as a change', () => {
    write('a.txt', 'v1\n', 0o644);
    turn(journal(), 'edit', [[['a.txt'], () => write('a.txt', 'v2\n')]]);
    fs.chmodSync(p('a.txt'), 0o600);
    expect(undo().status).toBe('refused');
  });

  it('goes newest first, one turn at a time or several at once; a change between turns stops it there', () => {
    write('a.txt', 'v1\n');
    const j = journal();
    turn(j, 'one', [[['a.txt'], () => write('a.txt', 'v2\n')]]);
    turn(j, 'two', [[['a.txt'], () => write('a.txt', 'v3\n')]]);
    turn(j, 'three', [[['b.txt'], () => write('b.txt', 'new\n')]]);
    expect(loadTurns(root, OWNER).map((t) => t.input)).toEqual(['three', 'two', 'one']);
    expect(undo().status).toBe('undone');
    expect(fs.existsSync(p('b.txt'))).toBe(false);
    expect(undo(2).status).toBe('undone');
    expect(read('a.txt')).toBe('v1\n');

    // A person's edit between devx's turns: undoing the later turn is fine, going past the edit is refused.
    write('c.txt', 'c1\n');
    turn(j, 'four', [[['c.txt'], () => write('c.txt', 'c2\n')]]);
    write('c.txt', 'mine\n');
    turn(j, 'five', [[['c.txt'], () => write('c.txt', 'c3\n')]]);
    const r = undo(2);
    expect(r.status).toBe('refused');
    if (r.status === 'refused') expect(r.conflicts.map((c) => [c.path, c.turn.input])).toEqual([['c.txt', 'four']]);
    expect(read('c.txt')).toBe('c3\n');
    expect(undo(1).status).toBe('undone');
    expect(read('c.txt')).toBe('mine\n');
  });

  it('a later turn inside a folder an earlier turn created: both undo in order', () => {
    const j = journal();
    turn(j, 'make pkg', [[['pkg/a.ts'], () => write('pkg/a.ts', 'a\n')]]);
    turn(j, 'add to pkg', [[['pkg/b.ts'], () => write('pkg/b.ts', 'b\n')]]);
    expect(undo(2).status).toBe('undone');
    expect(fs.existsSync(p('pkg'))).toBe(false);
  });

  it('a path changed twice in a turn goes back to its state before the turn, and a folder removed after a file in it was edited comes back as before', () => {
    write('a.txt', 'v1\n');
    write('d/x.txt', 'x1\n');
    turn(journal(), 'busy', [
      [['a.txt'], () => write('a.txt', 'v2\n')],
      [['a.txt'], () => write('a.txt', 'v3\n')],
      [['d/x.txt'], () => write('d/x.txt', 'x2\n')],
      [['d'], () => fs.rmSync(p('d'), { recursive: true })],
    ]);
    const [t] = loadTurns(root, OWNER);
    expect(t.entries.map((e) => e.path)).toEqual(['a.txt', 'd']);
    expect(undo().status).toBe('undone');
    expect(read('a.txt')).toBe('v1\n');
    expect(read('d/x.txt')).toBe('x1\n');
  });

  it('a change that left the file as it was is not a change', () => {
    write('a.txt', 'same\n');
    turn(journal(), 'noop', [[['a.txt'], () => write('a.txt', 'same\n')]]);
    expect(loadTurns(root, OWNER)).toEqual([]);
  });

  it('survives a kill -9: a turn killed mid-change still undoes; the change under way needs --force unless untouched', () => {
    write('a.txt', 'v1\n');
    write('b.txt', 'b1\n');
    const j = journal();
    j.beginTurn('killed');
    j.before([p('a.txt')], 'edit a.txt');
    write('a.txt', 'v2\n');
    j.after([p('a.txt')]);
    j.before([p('b.txt')], 'edit b.txt');
    write('b.txt', 'b2-partial');
    // killed here: no after(), no endTurn(); a new process reads what is on disk
    const dead = 2 ** 22 + 17; // above Linux's PID_MAX_LIMIT (2^22): no process has it
    const file = path.join(undoDir(root), 'turns', `${loadTurns(root, OWNER)[0].id}.json`);
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as TurnManifest;
    expect(m.endedAt).toBeUndefined();
    fs.writeFileSync(file, JSON.stringify({ ...m, pid: dead }));

    const r = undo();
    expect(r.status).toBe('refused');
    if (r.status === 'refused') expect(r.conflicts.map((c) => [c.path, c.kind])).toEqual([['b.txt', 'interrupted']]);
    expect(undo(1, true).status).toBe('undone');
    expect(read('a.txt')).toBe('v1\n');
    expect(read('b.txt')).toBe('b1\n');
  });

  it('killed before the change landed: nothing to force', () => {
    write('a.txt', 'v1\n');
    const j = journal();
    j.beginTurn('killed early');
    j.before([p('a.txt')], 'edit a.txt');
    // killed before the tool wrote
    const r = undo();
    expect(r.status).toBe('undone');
    expect(read('a.txt')).toBe('v1\n');
  });

  it('a turn another live devx is still running is not undone', async () => {
    write('a.txt', 'v1\n');
    turn(journal(), 'elsewhere', [[['a.txt'], () => write('a.txt', 'v2\n')]]);
    const file = path.join(undoDir(root), 'turns', `${loadTurns(root, OWNER)[0].id}.json`);
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as TurnManifest;
    // Another live process: the one that started this test run (our parent) is alive.
    fs.writeFileSync(file, JSON.stringify({ ...m, endedAt: undefined, pid: process.ppid }));
    expect(undo().status).toBe('running');
    expect(read('a.txt')).toBe('v2\n');
  });

  it("another user's (or a repository's) manifest is not undone, and a manifest path outside the project is never written", () => {
    write('a.txt', 'v1\n');
    turn(new UndoJournal(root, { owner: 'b'.repeat(32) }), 'theirs', [[['a.txt'], () => write('a.txt', 'v2\n')]]);
    expect(undo().status).toBe('nothing');
    expect(read('a.txt')).toBe('v2\n');

    turn(journal(), 'mine', [[['a.txt'], () => write('a.txt', 'v3\n')]]);
    const file = path.join(undoDir(root), 'turns', `${loadTurns(root, OWNER)[0].id}.json`);
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as TurnManifest;
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...m,
        entries: [
          { ...m.entries[0], path: '../escaped.txt' },
          { ...m.entries[0], path: '.git/hooks/pre-commit' },
        ],
      }),
    );
    const r = undo(1, true);
    expect(r.status).toBe('refused');
    if (r.status === 'refused') expect(r.conflicts.every((c) => c.kind === 'unsafe')).toBe(true);
    expect(fs.existsSync(path.join(root, '..', 'escaped.txt'))).toBe(false);
  });

  it('a file the policy hides is never copied: the call is named as not undoable', () => {
    write('d/.env', 'SECRET=1\n');
    write('d/x.txt', 'x\n');
    const j = new UndoJournal(root, { owner: OWNER, readDenied: (abs) => abs.endsWith('.env') });
    turn(j, 'rm -r d', [[['d'], () => fs.rmSync(p('d'), { recursive: true })]]);
    const [t] = loadTurns(root, OWNER);
    expect(t.entries).toEqual([]);
    expect(t.notUndoable[0].why).toMatch(/d\/\.env is protected/);
    const blobDir = path.join(undoDir(root), 'blobs');
    const blobs = fs.existsSync(blobDir) ? fs.readdirSync(blobDir, { recursive: true }).map(String) : [];
    expect(blobs.filter((b) => b.length > 2)).toEqual([]);
  });

  it('contents are kept once however many turns hold them; only the newest 100 turns are kept', () => {
    write('a.txt', 'v0\n');
    const j = journal();
    for (let i = 1; i <= 115; i++) turn(j, `turn ${i}`, [[['a.txt'], () => write('a.txt', `v${i % 2}\n`)]]);
    const blobDir = path.join(undoDir(root), 'blobs');
    const blobs = fs
      .readdirSync(blobDir, { recursive: true })
      .map(String)
      .filter((b) => b.length > 2);
    expect(blobs.length).toBe(2); // v0 and v1
    prune(root, 100, OWNER, 0);
    expect(loadTurns(root, OWNER)).toHaveLength(100);
    expect(loadTurns(root, OWNER)[0].input).toBe('turn 115');
  });
});

describe('comparing what is there now', () => {
  it('hashes a file a chunk at a time, as the kept copy was hashed whole (a file of several GB never held at once)', () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    write('big.bin', '');
    fs.writeFileSync(p('big.bin'), big);
    const compared = capture(p('big.bin'), null, { files: Infinity, bytes: Infinity });
    const kept = capture(p('big.bin'), new BlobStore(path.join(undoDir(root), 'blobs')), { files: 1, bytes: 100 * 1024 * 1024 });
    expect(compared).toEqual(kept);
    expect(compared).toMatchObject({ t: 'file', size: big.length });
  });
});

describe('state a checkout brought into .devx/undo', () => {
  /** An outside folder of old files (older than the hour a blob is kept for). */
  function oldFiles(names: string[]): string {
    const dir = tempDir('devx-undo-home-');
    for (const n of names) {
      fs.writeFileSync(path.join(dir, n), `${n}\n`);
      const old = new Date(Date.now() - 7200_000);
      fs.utimesSync(path.join(dir, n), old, old);
    }
    return dir;
  }

  it('pruning never removes through a linked blobs folder or blob subfolder, nor shipped turns', () => {
    // blobs -> the folder above the homes (/home): each home is a "subfolder" of blobs.
    const home = oldFiles(['id_rsa', 'credentials']);
    const sub = oldFiles(['0123abcd']);
    fs.mkdirSync(path.join(undoDir(root), 'turns'), { recursive: true });
    for (let i = 0; i < 111; i++) fs.writeFileSync(path.join(undoDir(root), 'turns', `t${i}.json`), '{}');
    fs.symlinkSync(path.dirname(home), path.join(undoDir(root), 'blobs'));
    prune(root, 100, OWNER, 10);
    expect(fs.readdirSync(home).sort()).toEqual(['credentials', 'id_rsa']);
    expect(fs.readdirSync(path.join(undoDir(root), 'turns'))).toHaveLength(111);
    // A real blobs folder whose subfolder is a link: the subfolder is left alone.
    fs.unlinkSync(path.join(undoDir(root), 'blobs'));
    fs.mkdirSync(path.join(undoDir(root), 'blobs'));
    fs.symlinkSync(sub, path.join(undoDir(root), 'blobs', 'ab'));
    prune(root, 100, OWNER, 10);
    expect(fs.readdirSync(sub)).toEqual(['0123abcd']);
  });
});

describe('undo through the tool wrapper', () => {
  const deps = async (j: UndoJournal): Promise<ToolCallDeps> => toolDeps(root, await makePolicy(root), { ctx: { changes: j } });

  it('.devx/undo planted as a link out of the project: the change is not made, nothing is written where the link points', async () => {
    write('a.txt', 'a\n');
    const outside = tempDir('devx-undo-outside-');
    fs.mkdirSync(p('.devx'));
    fs.symlinkSync(outside, p('.devx/undo'));
    const j = journal();
    const d = await deps(j);
    j.beginTurn('write through the link');
    const r = await runToolCall({ tool: 'write_file', args: { path: 'a.txt', content: 'b\n' } }, d);
    j.endTurn();
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/not run: devx could not keep a copy of what it would change, for undo \(.*symbolic link/);
    expect(read('a.txt')).toBe('a\n');
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('a refused or declined call keeps nothing', async () => {
    write('a.txt', 'a\n');
    const j = journal();
    const d = { ...(await deps(j)), approve: async () => 'no' as const };
    j.beginTurn('declined');
    const r = await runToolCall({ tool: 'write_file', args: { path: 'a.txt', content: 'b\n' } }, d);
    j.endTurn();
    expect(r.status).toBe('error');
    expect(loadTurns(root, OWNER)).toEqual([]);
  });
});

describe('/undo beside a background command', () => {
  it('waits for none: it refuses while one of the session still runs, and puts nothing back', () => {
    const j = journal();
    turn(j, 'first', [[['a.txt'], () => write('a.txt', 'new')]]);
    let shown = '';
    const out = { write: (s: string) => ((shown += s), true) } as unknown as NodeJS.WritableStream;
    const started = { run: { agent: { root, background: { running: 1 } }, history: [] } } as unknown as Started;
    undoSlash('/undo', started, out);
    expect(shown).toMatch(/1 background command\(s\) of this session still running; .*Stop them first/);
    expect(read('a.txt')).toBe('new');
  });
});
