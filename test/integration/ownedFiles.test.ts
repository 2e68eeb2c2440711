// A full disk loses nothing acknowledged and leaves nothing half-written: devx's own writers on a real
// 256 KB tmpfs (mount, a process; test/unit/ownedFiles.test.ts has the rest of devx's own files).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskError } from '../../src/util/ownedFile.js';
import { writeFileAtomicSync, writeStateSync } from '../../src/util/atomicWrite.js';
import { appendChained } from '../../src/audit/chainedAppend.js';
import { appendJournal, resetJournal } from '../../src/knowledge/journal.js';
import { tempDir } from '../helpers/env.js';

// A real small tmpfs (CI runs as root); where the machine does not allow a mount, these say so and skip.
const small = path.join(tempDir('devx-full-'), 'disk');
fs.mkdirSync(small);
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log('ownedFiles: no tmpfs could be mounted here (not root, or no mount rights): the full-disk cases are skipped');
}
afterAll(() => {
  if (mounted) execFileSync('umount', [small]);
});

describe.skipIf(!mounted)('a full disk (a real 256 KB tmpfs)', () => {
  const fill = () => {
    const filler = path.join(small, 'filler');
    fs.rmSync(filler, { force: true });
    try {
      fs.writeFileSync(filler, Buffer.alloc(1024 * 1024));
    } catch {
      // full now
    }
    return filler;
  };

  it('a replaced file keeps its old content whole, and the error names the file', () => {
    const f = path.join(small, 'history.json');
    writeFileAtomicSync(f, JSON.stringify({ messages: ['kept'] }));
    const filler = fill();
    let err: unknown;
    try {
      writeStateSync(f, JSON.stringify({ messages: ['x'.repeat(200_000)] }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DiskError);
    expect((err as Error).message).toBe(`no space left on the device writing ${f}`);
    expect(JSON.parse(fs.readFileSync(f, 'utf8'))).toEqual({ messages: ['kept'] });
    expect(fs.readdirSync(small).sort()).toEqual(['filler', 'history.json']); // no temp file left
    fs.rmSync(filler);
  });

  it('appends are whole or not at all: 500 audit lines and journal ops, none torn, every acknowledged one there', () => {
    const audit = path.join(small, 'audit.jsonl');
    const journal = path.join(small, 'journal.jsonl');
    resetJournal(journal, 'g1');
    const filler = path.join(small, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(150 * 1024));
    let ackAudit = 0;
    let ackJournal = 0;
    let failures = 0;
    for (let i = 0; i < 500; i++) {
      try {
        appendChained(audit, JSON.stringify({ tool: 'write_file', i, pad: 'p'.repeat(200) }));
        ackAudit++;
      } catch (e) {
        expect(e).toBeInstanceOf(DiskError);
        failures++;
      }
      try {
        appendJournal(journal, { op: 'add', id: `n${i}`, doc: { text: 'q'.repeat(300) } } as never);
        ackJournal++;
      } catch (e) {
        expect(e).toBeInstanceOf(DiskError);
        failures++;
      }
    }
    expect(failures).toBeGreaterThan(0); // the disk did fill
    const lines = fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(ackAudit);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const ops = fs.readFileSync(journal, 'utf8').split('\n').filter(Boolean).slice(1);
    expect(ops).toHaveLength(ackJournal);
    for (const l of ops) expect(() => JSON.parse(l)).not.toThrow();
    expect(fs.readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    fs.rmSync(filler);
  });
});
