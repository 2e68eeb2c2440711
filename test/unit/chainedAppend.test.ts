// The audit log's hash chain reads a bounded amount whatever the file holds: a sparse or foreign
// .devx/audit.jsonl of gigabytes costs one small read at the end, and `devx audit verify` reads it line by line.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { appendChained, lastHash, verifyChain } from '../../src/audit/chainedAppend.js';
import { tempDir } from '../helpers/env.js';

const HUGE = 1.5 * 1024 * 1024 * 1024;
/** The most chainedAppend.ts reads back from the end, and the longest line verify takes. */
const MAX_LINE = 1024 * 1024;

describe('chained audit log of any size', () => {
  it('appending after a 1.5 GB sparse file reads at most MAX_LINE from the end and starts a new anchored chain, with one warning', () => {
    const file = path.join(tempDir('devx-chain-'), 'audit.jsonl');
    appendChained(file, JSON.stringify({ event: 'before' }));
    fs.truncateSync(file, HUGE);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const read = vi.spyOn(fs, 'readSync');
    try {
      const began = Date.now();
      appendChained(file, JSON.stringify({ event: 'after' }));
      appendChained(file, JSON.stringify({ event: 'again' }));
      expect(Date.now() - began).toBeLessThan(5000);
      // Never more than MAX_LINE bytes in one read.
      for (const call of read.mock.calls) expect((call[1] as Buffer).length).toBeLessThanOrEqual(MAX_LINE);
      const warnings = stderr.mock.calls.map((c) => String(c[0]));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(file);
      expect(warnings[0]).toMatch(/new hash chain/);
    } finally {
      stderr.mockRestore();
      read.mockRestore();
    }
    // The new lines chain to each other.
    const fd = fs.openSync(file, 'r');
    const tail = Buffer.alloc(4096);
    const n = fs.readSync(fd, tail, 0, tail.length, fs.fstatSync(fd).size - tail.length);
    fs.closeSync(fd);
    const lines = tail
      .subarray(0, n)
      .toString('utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const [after, again] = lines.slice(-2).map((l) => JSON.parse(l) as { event: string; hash: string; prevHash: string });
    expect([after.event, again.event]).toEqual(['after', 'again']);
    expect(again.prevHash).toBe(after.hash);
    expect(lastHash(file)).toBe(again.hash);
  });

  it('devx audit verify stops at a line over MAX_LINE instead of reading the whole file', () => {
    const file = path.join(tempDir('devx-chain-'), 'audit.jsonl');
    appendChained(file, JSON.stringify({ event: 'one' }));
    appendChained(file, JSON.stringify({ event: 'two' }));
    expect(verifyChain(file)).toEqual({ ok: true, entries: 2 });
    fs.truncateSync(file, HUGE);
    const began = Date.now();
    const r = verifyChain(file);
    expect(Date.now() - began).toBeLessThan(5000);
    expect(r).toMatchObject({ ok: false, entries: 2, badLine: 3 });
    expect(r.problem).toMatch(/over \d+ bytes/);
  });

  it('devx audit verify refuses a hard link, as devx reads project files', () => {
    const dir = tempDir('devx-chain-');
    const outside = path.join(tempDir('devx-chain-out-'), 'secret');
    fs.writeFileSync(outside, 'x\n');
    fs.linkSync(outside, path.join(dir, 'audit.jsonl'));
    const r = verifyChain(path.join(dir, 'audit.jsonl'));
    expect(r.ok).toBe(false);
    expect(r.problem).toMatch(/hard links/);
  });
});
