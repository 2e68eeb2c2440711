// Undo through the tool wrapper when the turn runs commands (rm, npm install): real tool calls through
// runToolCall with the journal in their context (test/unit/undoStore.test.ts has the rest of undo's store).
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { UndoJournal, loadTurns, undoTurns, changeOf } from '../../src/session/undoStore.js';
import { runToolCall, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { tempDir } from '../helpers/env.js';

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

beforeEach(() => {
  root = tempDir('devx-undo-');
});

describe('undo through the tool wrapper', () => {
  const deps = async (j: UndoJournal): Promise<ToolCallDeps> => toolDeps(root, await makePolicy(root), { ctx: { changes: j } });

  it('write_file, edit_file, append_file and an approved rm are kept before they run; npm install is named as not undoable', async () => {
    root = fs.realpathSync(root);
    write('src/main.ts', 'const a = 1;\n');
    write('notes.md', 'one\n');
    write('old.txt', 'old\n', 0o600);
    write('package.json', '{"name":"x","version":"1.0.0"}\n');
    const j = journal();
    const d = await deps(j);
    j.beginTurn('do several things');
    const results = [];
    results.push(await runToolCall({ tool: 'edit_file', args: { path: 'src/main.ts', old_text: 'const a = 1;', new_text: 'const a = 2;' } }, d));
    results.push(await runToolCall({ tool: 'write_file', args: { path: 'src/new/util.ts', content: 'export {};\n' } }, d));
    results.push(await runToolCall({ tool: 'append_file', args: { path: 'notes.md', content: 'two' } }, d));
    results.push(await runToolCall({ tool: 'run_command', args: { cmd: 'rm old.txt' } }, d));
    results.push(await runToolCall({ tool: 'run_command', args: { cmd: 'npm install --offline --no-audit --no-fund' } }, d));
    j.endTurn();
    expect(results.slice(0, 4).map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(fs.existsSync(p('old.txt'))).toBe(false);

    const [t] = loadTurns(root, OWNER);
    expect(t.entries.map((e) => [e.path, changeOf(e)])).toEqual([
      ['src/main.ts', 'changed'],
      ['src/new', 'created'],
      ['notes.md', 'changed'],
      ['old.txt', 'deleted'],
    ]);
    expect(t.notUndoable).toEqual([{ what: 'run: npm install --offline --no-audit --no-fund', why: expect.stringMatching(/project's own code/) }]);

    // Whatever npm left (a lock file) is not devx's to undo; the files it kept go back.
    fs.rmSync(p('package-lock.json'), { force: true });
    fs.rmSync(p('node_modules'), { recursive: true, force: true });
    const r = undo();
    expect(r.status).toBe('undone');
    expect(read('src/main.ts')).toBe('const a = 1;\n');
    expect(fs.existsSync(p('src/new'))).toBe(false);
    expect(read('notes.md')).toBe('one\n');
    expect(read('old.txt')).toBe('old\n');
    expect(mode('old.txt')).toBe(0o600);
  });
});
