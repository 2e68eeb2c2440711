// MEMORY.md and HANDOFF.md as named pipes (made with mkfifo, a process); the rest of the session's parts
// are in test/unit/sessionParts.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readHandoff } from '../../src/session/handoff.js';
import { readProjectNote } from '../../src/session/projectFiles.js';
import { remember } from '../../src/session/memoryFile.js';
import { tempDir } from '../helpers/env.js';

describe('MEMORY.md', () => {
  it('a FIFO at MEMORY.md or HANDOFF.md (a `mkfifo` a command left) neither blocks the start nor takes a fact', () => {
    const root = tempDir();
    for (const f of ['MEMORY.md', 'HANDOFF.md']) spawnSync('mkfifo', [path.join(root, f)]);
    // Each of these blocked on the open before, for good: the test would time out.
    expect(readProjectNote(root, 'MEMORY.md')).toBeUndefined();
    expect(readProjectNote(root, 'HANDOFF.md')).toBeUndefined();
    expect(readHandoff(root)).toBeNull();
    expect(remember(root, 'Builds use pnpm', new Date())).toMatchObject({ added: false, reason: expect.stringMatching(/not a regular file in the project/) });
    expect(fs.statSync(path.join(root, 'MEMORY.md')).isFIFO()).toBe(true);
  });
});
