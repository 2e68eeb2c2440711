// devx processes that start at once in a new HOME agree on one owner id: were each to keep its own,
// state one of them wrote (a queued task) would be "written by another user" and vanish from the queue.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/env.js';

const MODULE = path.join(REPO_ROOT, 'dist', 'src', 'session', 'ownerId.js');

function idIn(home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(
      process.execPath,
      ['--input-type=module', '-e', `const { ownerId } = await import(${JSON.stringify(MODULE)}); process.stdout.write(String(ownerId()));`],
      { env: { PATH: process.env.PATH, HOME: home } },
    );
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

describe('owner id', () => {
  it('twelve processes starting at once in a fresh HOME all get the same id', async () => {
    for (let round = 0; round < 3; round++) {
      const home = tempDir('devx-owner-');
      const ids = await Promise.all(Array.from({ length: 12 }, () => idIn(home)));
      expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(ids).size).toBe(1);
    }
  }, 60_000);
});
