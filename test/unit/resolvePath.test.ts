import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isInside, PathError, resolveInside } from '../../src/sandbox/resolvePath.js';
import { tempDir } from '../helpers/env.js';

let base: string;
let root: string;

beforeEach(() => {
  base = tempDir('devx-sandbox-');
  root = path.join(base, 'app');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'a');
  fs.mkdirSync(path.join(base, 'app-evil'));
  fs.writeFileSync(path.join(base, 'app-evil', 'secret'), 's');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'o');
});

const denied = (p: string, r = root) => expect(() => resolveInside(r, p), p).toThrow(PathError);

describe('path confinement', () => {
  it('resolves ordinary relative paths inside the root', () => {
    expect(resolveInside(root, 'src/a.ts')).toBe(path.join(root, 'src/a.ts'));
    expect(resolveInside(root, '.')).toBe(root);
    expect(resolveInside(root, '')).toBe(root);
    expect(resolveInside(root, './src/../src/a.ts')).toBe(path.join(root, 'src/a.ts'));
    expect(resolveInside(root, 'new/dir/file.txt')).toBe(path.join(root, 'new/dir/file.txt'));
    expect(resolveInside(root, path.join(root, 'src'))).toBe(path.join(root, 'src'));
  });

  it('compares by segments, not string prefix', () => {
    expect(isInside('/home/me/app', '/home/me/app-evil')).toBe(false);
    expect(isInside('/home/me/app', '/home/me/app/x')).toBe(true);
    expect(isInside('/home/me/app', '/home/me/app/..x')).toBe(true);
    denied('../app-evil/secret');
    denied(path.join(base, 'app-evil', 'secret'));
  });

  it('refuses .. escapes and absolute paths outside', () => {
    denied('..');
    denied('../outside.txt');
    denied('src/../../outside.txt');
    denied('/etc/passwd');
  });

  it('follows symlinks out of the root (files, directories, chains, dangling)', () => {
    fs.symlinkSync(path.join(base, 'outside.txt'), path.join(root, 'link-file'));
    fs.symlinkSync(base, path.join(root, 'link-dir'));
    fs.symlinkSync(path.join(root, 'link-dir'), path.join(root, 'chain'));
    fs.symlinkSync(path.join(base, 'not-yet'), path.join(root, 'dangling'));
    denied('link-file');
    denied('link-dir/outside.txt');
    denied('link-dir/new-file');
    denied('chain/app-evil/secret');
    denied('dangling');
    denied('dangling/child');
  });

  it('allows symlinks that stay inside the root', () => {
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'src-link'));
    expect(resolveInside(root, 'src-link/a.ts')).toBe(path.join(root, 'src/a.ts'));
  });

  it('detects symlink loops', () => {
    fs.symlinkSync(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
    fs.symlinkSync(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
    denied('loop-a');
  });

  it('refuses control characters and NUL', () => {
    denied('src/a.ts\u0000.png');
    denied('src/\r/a.ts');
  });

  it('treats a root that is itself a symlink by its real path', () => {
    const linkRoot = path.join(base, 'root-link');
    fs.symlinkSync(root, linkRoot);
    const real = fs.realpathSync(linkRoot);
    expect(resolveInside(real, path.join(linkRoot, 'src/a.ts'))).toBe(path.join(root, 'src/a.ts'));
  });

  it('/proc/self/root does not lead out', () => {
    denied('/proc/self/root/etc/passwd');
  });
});

describe('O_NOFOLLOW reads', () => {
  it('refuses a path that became a symlink after the check', async () => {
    const { readFileNoFollow } = await import('../../src/sandbox/openNoFollow.js');
    const real = path.join(root, 'src', 'a.ts');
    expect((await readFileNoFollow(real)).toString()).toBe('a');
    const swapped = path.join(root, 'swapped.ts');
    fs.symlinkSync(path.join(base, 'outside.txt'), swapped);
    await expect(readFileNoFollow(swapped)).rejects.toThrow(/became a symlink after it was checked/);
  });
});
