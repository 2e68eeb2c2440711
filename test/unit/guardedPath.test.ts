// devx's own opens inside a tree a sandboxed command may change meanwhile (a background build swapping a folder
// for a link into the home between devx's check and its open): each folder on the way is entered without
// following a link. These put the link in place before the call, as the swap would have: every call must refuse
// it and leave the home as it was.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { guardTree, guardedGlobFs, mkdirAnchored, readDirNoFollow, walkDir } from '../../src/util/guardedPath.js';
import { capture, putBack } from '../../src/session/undoState.js';
import { readOwnFileSync } from '../../src/util/readRegularFileSync.js';
import { readFileNoFollow } from '../../src/sandbox/openNoFollow.js';
import { writeStateSync } from '../../src/util/atomicWrite.js';
import { appendOwnedSync, writeNewOwnedSync } from '../../src/util/ownedFile.js';
import { gitEntriesUnder, scanProject } from '../../src/sandbox/projectScan.js';
import { tempDir } from '../helpers/env.js';

const linux = process.platform === 'linux';
let root: string;
let home: string;

beforeEach(() => {
  root = fs.realpathSync(tempDir('devx-guard-proj-'));
  home = fs.realpathSync(tempDir('devx-guard-home-'));
  fs.mkdirSync(path.join(home, '.aws'));
  fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'CANARY\n');
  fs.mkdirSync(path.join(home, 'dotfiles', '.git'), { recursive: true });
  // `h` was a folder when devx checked it; now it is a link to the home.
  fs.symlinkSync(home, path.join(root, 'h'));
  guardTree(root);
});

const homeFiles = () => fs.readdirSync(home, { recursive: true }).map(String).sort();

describe.runIf(linux)('a folder of the project swapped for a link into the home', () => {
  it('is not gone through by devx reading a file (its own notes, or read_file)', async () => {
    expect(() => readOwnFileSync(path.join(root, 'h', '.aws', 'credentials'), { maxBytes: 1024, links: 'any' })).toThrow(/leads out of the project/);
    await expect(readFileNoFollow(path.join(root, 'h', '.aws', 'credentials'))).rejects.toThrow(/became a symlink after it was checked/);
    // The last name a link: refused too, inside the project.
    fs.symlinkSync(path.join(home, '.aws', 'credentials'), path.join(root, 'MEMORY.md'));
    expect(() => readOwnFileSync(path.join(root, 'MEMORY.md'), { maxBytes: 1024, links: 'any' })).toThrow(/symbolic link/);
    // A plain file of the project still reads, and so do the project's own links inside it (a file, a shared folder).
    fs.writeFileSync(path.join(root, 'plain.txt'), 'ok');
    expect(readOwnFileSync(path.join(root, 'plain.txt'), { maxBytes: 1024 }).toString()).toBe('ok');
    fs.symlinkSync('plain.txt', path.join(root, 'CLAUDE.md'));
    expect(readOwnFileSync(path.join(root, 'CLAUDE.md'), { maxBytes: 1024 }).toString()).toBe('ok');
    fs.mkdirSync(path.join(root, 'shared'));
    fs.writeFileSync(path.join(root, 'shared', 'agent.md'), 'agent');
    fs.symlinkSync('shared', path.join(root, 'agents'));
    expect(readOwnFileSync(path.join(root, 'agents', 'agent.md'), { maxBytes: 1024 }).toString()).toBe('agent');
  });

  it('is not gone through by devx writing, appending or creating a file', () => {
    const before = homeFiles();
    for (const write of [writeStateSync, appendOwnedSync, writeNewOwnedSync]) {
      // assertOwnedPath sees the link first; the anchored open is the second wall behind it.
      expect(() => write(path.join(root, 'h', '.bashrc'), 'touch /tmp/pwned\n')).toThrow();
    }
    expect(homeFiles()).toEqual(before);
  });

  it('is not walked into by the sandbox scan or the creation guard', () => {
    expect(scanProject(root).gitEntries).toEqual([]);
    expect([...gitEntriesUnder([root]).keys()]).toEqual([]);
    const seen: string[] = [];
    walkDir(root, (e, at, enter) => {
      seen.push(path.relative(root, at.toString()));
      enter();
    });
    expect(seen).toEqual(['h']);
  });

  it("is not listed, made into, copied from or removed through (list_directory, glob, write_file's folders, undo)", () => {
    fs.mkdirSync(path.join(home, 'Documents'));
    fs.writeFileSync(path.join(home, 'Documents', 'thesis.tex'), 'years of work');
    const before = homeFiles();
    expect(() => readDirNoFollow(path.join(root, 'h'))).toThrow(/link/);
    expect(() => guardedGlobFs.readdirSync(path.join(root, 'h'))).toThrow(/link/);
    expect(() => guardedGlobFs.lstatSync(path.join(root, 'h', '.bashrc'))).toThrow(/link/);
    expect(() => mkdirAnchored(path.join(root, 'h', 'made-by-devx', 'deep'))).toThrow(/link/);
    // undo: the state before a write is never copied from the home; putting back "absent" never removes it there.
    expect(() => capture(path.join(root, 'h', '.aws'), null, { files: 100, bytes: 1e6 })).toThrow(/link/);
    expect(() => putBack(path.join(root, 'h', 'Documents'), { t: 'absent' }, { t: 'dir', mode: 0o755, entries: {} }, null as never)).toThrow();
    expect(homeFiles()).toEqual(before);
  });
});
