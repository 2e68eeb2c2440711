// The file tools keep what the model never sees: a file's encoding (UTF-8, or a single-byte one edited byte
// for byte), its BOM, CRLF endings, final newline or its absence, and its mode; UTF-16 is refused, never
// rewritten. Each case runs the real tool wrapper (runToolCall) on real files and compares every byte; undo
// puts the bytes back as they were.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runToolCall, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { UndoJournal, undoTurns } from '../../src/session/undoStore.js';
import { makePolicy } from '../helpers/policy.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { tempDir } from '../helpers/env.js';
import type { PolicyEngine } from '../../src/policy/decide.js';

const OWNER = 'b'.repeat(32);
let root: string;
let policy: PolicyEngine;
let journal: UndoJournal;

beforeEach(async () => {
  root = tempDir('devx-enc-');
  policy = await makePolicy(root);
  journal = new UndoJournal(root, { owner: OWNER });
});

const deps = (): ToolCallDeps => toolDeps(root, policy, { ctx: { changes: journal } });

const file = () => path.join(root, 'f.txt');
const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p as number[]))));
const latin1 = (s: string) => Buffer.from(s, 'latin1');
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

/** Runs one call on f.txt, holding `before` (and `mode`), as a turn undo can take back. */
async function callOn(before: Buffer, tool: string, args: Record<string, string>, mode = 0o644) {
  fs.writeFileSync(file(), before);
  fs.chmodSync(file(), mode);
  journal.beginTurn(`${tool} f.txt`);
  const r = await runToolCall({ tool, args: { path: 'f.txt', ...args } }, deps());
  journal.endTurn();
  return r;
}

// [what, the file before, the call, the file after: only the edited bytes differ]
const KEPT: [string, Buffer, string, Record<string, string>, Buffer][] = [
  ['UTF-8', bytes('Olá — ', 'br', ' café\n'), 'edit_file', { old_text: 'br', new_text: 'BR' }, bytes('Olá — ', 'BR', ' café\n')],
  ['UTF-8 with a BOM', bytes([0xef, 0xbb, 0xbf], 'br über\n'), 'edit_file', { old_text: 'br', new_text: 'BR' }, bytes([0xef, 0xbb, 0xbf], 'BR über\n')],
  ['Latin-1', latin1('Olá, ça br déjà\nfin é\n'), 'edit_file', { old_text: 'br', new_text: 'BR' }, latin1('Olá, ça BR déjà\nfin é\n')],
  ['Latin-1, new text with é', latin1('Olá br\n'), 'edit_file', { old_text: 'br', new_text: 'brûlé' }, latin1('Olá brûlé\n')],
  ['Latin-1, old text with an accent', latin1('café br\n'), 'edit_file', { old_text: 'café', new_text: 'thé' }, latin1('thé br\n')],
  [
    'Windows-1252 (curly quotes, €)',
    bytes([0x93], 'br', [0x94, 0x20, 0x80, 0x0a]),
    'edit_file',
    { old_text: '“br”', new_text: '“BR” ‘x’' },
    bytes([0x93], 'BR', [0x94, 0x20, 0x91], 'x', [0x92, 0x20, 0x80, 0x0a]),
  ],
  [
    'CRLF, a multi-line edit',
    bytes('one\r\nbr two\r\nthree\r\n'),
    'edit_file',
    { old_text: 'br two\nthree\n', new_text: 'BR two\nthree\nfour\n' },
    bytes('one\r\nBR two\r\nthree\r\nfour\r\n'),
  ],
  ['CRLF, new lines in a one-line edit', bytes('one\r\nbr\r\n'), 'edit_file', { old_text: 'br', new_text: 'BR\nmore' }, bytes('one\r\nBR\r\nmore\r\n')],
  ['no final newline (fenced old text)', bytes('a\nbr'), 'edit_file', { old_text: 'br\n', new_text: 'BR\n' }, bytes('a\nBR')],
  ['no final newline (new text ends in one)', bytes('a\nbr'), 'edit_file', { old_text: 'br', new_text: 'BR\n' }, bytes('a\nBR')],
  ['write_file over Latin-1', latin1('vieux café\n'), 'write_file', { content: 'naïve café\n' }, latin1('naïve café\n')],
  ['write_file over CRLF', bytes('a\r\nb\r\n'), 'write_file', { content: 'x\ny\n' }, bytes('x\r\ny\r\n')],
  ['write_file over UTF-8 with a BOM', bytes([0xef, 0xbb, 0xbf], 'a\n'), 'write_file', { content: 'b\n' }, bytes([0xef, 0xbb, 0xbf], 'b\n')],
  ['write_file over no final newline', bytes('old'), 'write_file', { content: 'new\n' }, bytes('new')],
  ['append_file to Latin-1', latin1('déjà\n'), 'append_file', { content: 'élan' }, latin1('déjà\nélan\n')],
  ['append_file to CRLF without a final newline', bytes('a\r\nb'), 'append_file', { content: 'c\nd' }, bytes('a\r\nb\r\nc\r\nd\r\n')],
];

describe('the file tools keep every byte outside the change', () => {
  for (const [what, before, tool, args, after] of KEPT) {
    it(`${tool}: ${what}; undo puts the bytes back`, async () => {
      const r = await callOn(before, tool, args);
      expect(r.status, r.content).toBe('ok');
      expect(fs.readFileSync(file()).toString('hex')).toBe(after.toString('hex'));
      expect(undoTurns(root, 1, { force: false, owner: OWNER }).status).toBe('undone');
      expect(fs.readFileSync(file()).toString('hex')).toBe(before.toString('hex'));
    });
  }

  it('keeps an executable mode through edit_file, write_file and append_file', async () => {
    for (const [tool, args] of [
      ['edit_file', { old_text: 'br', new_text: 'BR' }],
      ['write_file', { content: 'br\n' }],
      ['append_file', { content: 'x' }],
    ] as const) {
      const r = await callOn(bytes('#!/bin/sh\nbr\n'), tool, args, 0o755);
      expect(r.status, r.content).toBe('ok');
      expect(fs.statSync(file()).mode & 0o777).toBe(0o755);
    }
  });

  it('tells the model a file is single-byte text when it reads or edits one', async () => {
    const r = await callOn(latin1('café\n'), 'read_file', {});
    expect(r.content).toBe('café');
    expect(r.meta?.encoding).toMatch(/single-byte/);
    const e = await callOn(latin1('café\n'), 'edit_file', { old_text: 'café', new_text: 'thé' });
    expect(e.meta?.encoding).toMatch(/single-byte/);
  });
});

// [what, the file] for UTF-16, which every tool refuses, leaving the file as it was.
const UTF16: [string, Buffer][] = [
  ['little-endian, with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('br über\r\n', 'utf16le')])],
  ['big-endian, with a BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('br über\r\n')])],
  ['little-endian', Buffer.from('br and more text\n', 'utf16le')],
  ['big-endian', utf16be('br and more text\n')],
];

describe('UTF-16 is refused with a reason, never rewritten', () => {
  for (const [what, before] of UTF16) {
    it(what, async () => {
      for (const [tool, args] of [
        ['edit_file', { old_text: 'br', new_text: 'BR' }],
        ['write_file', { content: 'br\n' }],
        ['append_file', { content: 'x' }],
        ['read_file', {}],
      ] as const) {
        const r = await callOn(before, tool, args);
        expect(r.status, `${tool}: ${r.content}`).toBe('error');
        expect(r.content).toMatch(new RegExp(`f\\.txt is UTF-16 text \\(${what}\\); devx reads and edits only UTF-8 and single-byte`));
        expect(fs.readFileSync(file()).toString('hex'), tool).toBe(before.toString('hex'));
      }
    });
  }

  it('a character a single-byte file cannot hold is refused, the file unchanged', async () => {
    const before = latin1('café br\n');
    const r = await callOn(before, 'edit_file', { old_text: 'br', new_text: 'BR ✓' });
    expect(r.status).toBe('error');
    expect(r.content).toMatch(/f\.txt is not UTF-8: it is single-byte text \(Latin-1 or Windows-1252\), which devx keeps, and it cannot hold "✓"/);
    expect(fs.readFileSync(file()).toString('hex')).toBe(before.toString('hex'));
  });
});
