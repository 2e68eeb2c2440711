import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bullets, parseHandoff, readHandoff, renderHandoff, sectionsFromDraft } from '../../src/session/handoff.js';
import { readProjectNote } from '../../src/session/projectFiles.js';
import { chunkMarkdown } from '../../src/knowledge/chunkMarkdown.js';
import { documentVector, queryVector, tokenize } from '../../src/knowledge/sparse.js';
import { remember } from '../../src/session/memoryFile.js';
import { parseChecklist } from '../../src/tools/todo.js';
import { acquireLock, procStart } from '../../src/session/sessionLock.js';
import { ownerId } from '../../src/session/ownerId.js';
import { tempDir } from '../helpers/env.js';

describe('HANDOFF.md format', () => {
  it('renders and parses the turn marker and sections', () => {
    const text = renderHandoff({
      turn: 'GEMINI_TURN',
      session: 's1',
      now: new Date('2026-01-01T00:00:00Z'),
      sections: { Summary: 'Did x.', Next: '- a\n- b' },
    });
    expect(text.split('\n')[0]).toBe('GEMINI_TURN: READY');
    const p = parseHandoff(text);
    expect(p.turn).toBe('GEMINI_TURN');
    expect(bullets(p.sections.Next)).toEqual(['a', 'b']);
    expect(p.sections.Blockers).toBe('- None.');
    expect(parseHandoff('\n\n  CLAUDE_TURN: READY\n').turn).toBe('CLAUDE_TURN');
    expect(parseHandoff('Some text\nGEMINI_TURN: READY').turn).toBeNull();
  });

  it('takes the drafted sections only when a Summary is present', () => {
    expect(sectionsFromDraft('## Summary\nx\n## Next\n- y')).toEqual({ Summary: 'x', Next: '- y' });
    expect(sectionsFromDraft('I cannot write that')).toBeNull();
  });
});

describe('chunkMarkdown', () => {
  it('splits by headings with their trail, keeps code fences intact, and caps chunk size', () => {
    const md = '# A\n\nintro\n\n## B\n\n```\n# not a heading\n```\n\n### C\n\n' + 'para. '.repeat(400);
    const chunks = chunkMarkdown(md, 500);
    expect(chunks[0]).toEqual({ heading: 'A', content: 'A\n\nintro' });
    expect(chunks[1].heading).toBe('A > B');
    expect(chunks[1].content).toContain('# not a heading');
    expect(chunks.slice(2).every((c) => c.heading === 'A > B > C')).toBe(true);
    expect(chunks.every((c) => c.content.length <= 500 + 20)).toBe(true);
  });
});

describe('sparse vectors', () => {
  it('tokenizes, drops stop words, stems, and saturates term frequency', () => {
    expect(tokenize('The sessions are Configuring quickly')).toEqual(['session', 'configur', 'quickly']);
    const d = documentVector('cache cache cache miss');
    expect(d.indices).toHaveLength(2);
    const [cache, miss] = d.values;
    expect(cache).toBeGreaterThan(miss);
    expect(cache).toBeLessThan(3 * miss);
    expect(queryVector('cache cache').values).toEqual([1]);
  });
});

describe('MEMORY.md', () => {
  it('appends dated lines and ignores duplicates (case and spacing)', () => {
    const root = tempDir();
    const now = new Date('2026-03-04T10:00:00Z');
    expect(remember(root, 'Builds use pnpm', now)).toMatchObject({ added: true, line: '- 2026-03-04: Builds use pnpm' });
    expect(remember(root, '  builds USE   pnpm. ', now)).toEqual({ added: false, reason: 'already in MEMORY.md' });
    expect(remember(root, '', now).added).toBe(false);
    expect(fs.readFileSync(path.join(root, 'MEMORY.md'), 'utf8')).toMatch(/^# Memory\n[\s\S]*- 2026-03-04: Builds use pnpm\n$/);
  });

  it('MEMORY.md or HANDOFF.md committed as a link out of the project (or to a key) is not read into prompts, nor copied in', () => {
    const root = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'AWS_SECRET=abc');
    fs.mkdirSync(path.join(root, 'keys'));
    fs.writeFileSync(path.join(root, 'keys', 'id_ed25519'), 'PRIVATE KEY');
    fs.writeFileSync(path.join(root, 'notes.md'), '# Memory\n- kept\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'MEMORY.md'));
    fs.symlinkSync('keys/id_ed25519', path.join(root, 'HANDOFF.md'));
    expect(readProjectNote(root, 'MEMORY.md')).toBeUndefined();
    expect(readProjectNote(root, 'HANDOFF.md')).toBeUndefined();
    expect(readHandoff(root)).toBeNull();
    expect(remember(root, 'a fact', new Date()).added).toBe(false);
    expect(fs.lstatSync(path.join(root, 'MEMORY.md')).isSymbolicLink()).toBe(true);
    // A link inside the project to an ordinary file is read as that file.
    fs.rmSync(path.join(root, 'MEMORY.md'));
    fs.symlinkSync('notes.md', path.join(root, 'MEMORY.md'));
    expect(readProjectNote(root, 'MEMORY.md')).toBe('# Memory\n- kept\n');
  });
});

describe('todo checklist', () => {
  it('parses checked, unchecked and plain bullets', () => {
    expect(parseChecklist('- [x] a\n- [ ] b\n* c\n1. d\nnot a bullet')).toEqual([
      { text: 'a', done: true },
      { text: 'b', done: false },
      { text: 'c', done: false },
      { text: 'd', done: false },
    ]);
  });
});

describe('session lock', () => {
  it('refuses a second live holder and takes over a dead one', () => {
    const root = tempDir();
    expect(acquireLock(root, 's1').status).toBe('acquired');
    // Pretend another live devx of this user's holds it: our parent is alive.
    const mine = { owner: ownerId()!, procStart: procStart(process.ppid) };
    fs.writeFileSync(path.join(root, '.devx', 'session.lock'), JSON.stringify({ pid: process.ppid, session: 'other', startedAt: 'x', children: [], ...mine }));
    const busy = acquireLock(root, 's2');
    expect(busy).toMatchObject({ status: 'busy', holder: { session: 'other' } });
    // The same PID started at another time is a recycled PID: stale.
    fs.writeFileSync(
      path.join(root, '.devx', 'session.lock'),
      JSON.stringify({ pid: process.ppid, session: 'old', startedAt: 'x', children: [], ...mine, procStart: 'another-boot:1' }),
    );
    expect(acquireLock(root, 's2b')).toMatchObject({ status: 'acquired', stale: { session: 'old' } });
    // A lock without the user's owner id (it came with the project) is set aside, whatever it names.
    const shipped = JSON.stringify({ pid: process.ppid, session: 'shipped', startedAt: 'x', children: [] });
    fs.writeFileSync(path.join(root, '.devx', 'session.lock'), shipped);
    expect(acquireLock(root, 's2c')).toMatchObject({ status: 'acquired', setAside: path.join(root, '.devx', 'session.lock.set-aside') });
    expect(fs.readFileSync(path.join(root, '.devx', 'session.lock.set-aside'), 'utf8')).toBe(shipped);
    // A dead PID is stale (this one is above Linux's PID_MAX_LIMIT, 2^22: no process has it).
    const dead = 2 ** 22 + 17;
    fs.writeFileSync(path.join(root, '.devx', 'session.lock'), JSON.stringify({ pid: dead, session: 'crashed', startedAt: 'x', children: [], ...mine }));
    expect(acquireLock(root, 's3')).toMatchObject({ status: 'acquired', stale: { session: 'crashed' } });
    expect(JSON.parse(fs.readFileSync(path.join(root, '.devx', 'session.lock'), 'utf8')).session).toBe('s3');
  });
});
