// devx's state folders in a project that a checkout made links (to the home): each is named, so a start refuses
// and `devx sessions --remove-set-aside` removes the link alone. Every folder devx writes its state in counts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATE_FOLDERS, linkedStateFolders } from '../../src/session/projectFiles.js';

describe('linkedStateFolders', () => {
  it('names every state folder a checkout made a link, the queue’s and the runs’ too', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'devx-linked-'));
    const target = fs.mkdtempSync(path.join(os.tmpdir(), 'devx-target-'));
    try {
      const rels = ['.devx/agents/workspace', '.devx/agents/patches', '.devx/runs', '.devx/quarantine', '.devx/plans'];
      for (const rel of rels) {
        fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        fs.symlinkSync(target, path.join(root, rel));
      }
      expect(
        linkedStateFolders(root)
          .map((l) => l.rel)
          .sort(),
      ).toEqual([...rels].sort());
      expect(rels.every((r) => STATE_FOLDERS.includes(r))).toBe(true);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(target, { recursive: true, force: true });
    }
  });
});
