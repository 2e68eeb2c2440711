// The main bundle runs through V8's code cache (util/runWithCodeCache): each case runs a small bundle
// in a real node process, as the binary does, and reads what it printed and what it left in the cache folder.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEVX_BIN, REPO_ROOT, makeHome, tempDir } from '../helpers/env.js';

const RUNNER = path.join(REPO_ROOT, 'dist', 'src', 'util', 'runWithCodeCache.js');

// The bundle's functions run at load, so the cache made at exit holds compiled code for them.
const bundleText = (tag: string) => `
function sum(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }
console.log('${tag}', sum(10), typeof require, typeof module.exports, __filename === module.filename, path.basename(__dirname));
`;
const HEAD = "const path = require('node:path');";

/** Runs `bundle` with runWithCodeCache in a fresh node; returns its output and the cache state it reported. */
function run(bundle: string, dir: string | null, coverage = 1): { out: string; cache: string; file: string | null; status: number | null } {
  const code = `import { runWithCodeCache } from ${JSON.stringify(RUNNER)}; const r = runWithCodeCache(${JSON.stringify(bundle)}, { dir: ${JSON.stringify(dir)}, coverage: ${coverage} }); process.stderr.write(JSON.stringify(r));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  const state = JSON.parse(r.stderr.trim().split('\n').pop() || '{}') as { cache: string; file: string | null };
  return { out: r.stdout, cache: state.cache, file: state.file, status: r.status };
}

function setup(tag = 'v1'): { bundle: string; dir: string } {
  const root = tempDir('devx-cc-');
  const bundle = path.join(root, 'bundle', 'main.cjs');
  fs.mkdirSync(path.dirname(bundle));
  fs.writeFileSync(bundle, HEAD + bundleText(tag));
  return { bundle, dir: path.join(root, 'home', 'cache') };
}

const caches = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.v8')) : []);

describe('runWithCodeCache', () => {
  it('runs the bundle as a CommonJS module, writes the cache at exit, and uses it the next time', () => {
    const { bundle, dir } = setup();
    const first = run(bundle, dir);
    expect(first.status).toBe(0);
    expect(first.out).toBe('v1 45 function object true bundle\n');
    expect(first.cache).toBe('none');
    const file = fs.readFileSync(first.file!);
    expect(file.subarray(0, 4).toString('latin1')).toBe('DXC2');
    expect(file[4]).toBe(1);
    expect(fs.statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const second = run(bundle, dir);
    expect(second).toMatchObject({ out: first.out, cache: 'used', file: first.file });
  });

  it('a rebuilt bundle of the same length never meets the old cache, which V8 alone would accept', () => {
    const { bundle, dir } = setup('v1');
    const old = run(bundle, dir);
    const oldData = fs.readFileSync(old.file!).subarray(9);
    fs.writeFileSync(bundle, HEAD + bundleText('v2'));
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(bundle, later, later);
    // V8 checks only the source's length: it takes the old code for the new text. Asked in a fresh node, as
    // the cache was made: V8 also compares its flags, which a test process may have changed (util/wasmTier).
    const dataFile = path.join(path.dirname(bundle), 'old.v8');
    fs.writeFileSync(dataFile, oldData);
    const probe = `const fs = require('fs'), vm = require('vm');
      const text = '(function (exports, require, module, __filename, __dirname) { ' + fs.readFileSync(${JSON.stringify(bundle)}, 'latin1') + '\\n});';
      const s = new vm.Script(text, { filename: ${JSON.stringify(bundle)}, cachedData: fs.readFileSync(${JSON.stringify(dataFile)}) });
      process.stdout.write(String(s.cachedDataRejected));`;
    expect(spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).stdout).toBe('false');
    const r = run(bundle, dir);
    expect(r.cache).toBe('none');
    expect(r.file).not.toBe(old.file);
    expect(r.out).toMatch(/^v2 45 /);
  });

  it('a damaged cache (which would crash V8) is not used but replaced; the bundle still runs', () => {
    const { bundle, dir } = setup();
    const { file } = run(bundle, dir);
    const good = fs.readFileSync(file!);
    for (const damage of [(b: Buffer) => b.fill(0x5a, 64), (b: Buffer) => b.subarray(0, b.length - 100), () => Buffer.from('garbage')]) {
      fs.writeFileSync(file!, damage(Buffer.from(good)));
      const r = run(bundle, dir);
      expect(r).toMatchObject({ cache: 'none', status: 0 });
      expect(r.out).toMatch(/^v1 45 /);
      expect(run(bundle, dir).cache).toBe('used');
    }
  });

  it('a cache from another V8 is rejected by V8 and replaced', () => {
    const { bundle, dir } = setup();
    const { file } = run(bundle, dir);
    const raw = fs.readFileSync(file!);
    // V8's own header begins with its magic number and a hash of its version: change the version hash, keep devx's checksum right.
    raw.writeUInt32LE(raw.readUInt32LE(9 + 4) ^ 1, 9 + 4);
    raw.writeUInt32LE(zlib.crc32(raw.subarray(9)), 5);
    fs.writeFileSync(file!, raw);
    const r = run(bundle, dir);
    expect(r).toMatchObject({ cache: 'rejected', status: 0 });
    expect(r.out).toMatch(/^v1 45 /);
    expect(run(bundle, dir).cache).toBe('used');
  });

  it("an agent run replaces a lesser run's cache; a lesser run keeps an agent run's", () => {
    const { bundle, dir } = setup();
    const { file } = run(bundle, dir, 0);
    expect(fs.readFileSync(file!)[4]).toBe(0);
    expect(run(bundle, dir, 1).cache).toBe('used');
    expect(fs.readFileSync(file!)[4]).toBe(1);
    const before = fs.statSync(file!).mtimeMs;
    expect(run(bundle, dir, 0).cache).toBe('used');
    expect(fs.statSync(file!).mtimeMs).toBe(before);
  });

  it('without a folder nothing is written; an unusable folder only means no cache', () => {
    const { bundle, dir } = setup();
    expect(run(bundle, null)).toMatchObject({ cache: 'off', file: null, status: 0 });
    expect(fs.existsSync(dir)).toBe(false);
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.writeFileSync(dir, 'a file where the folder should be');
    const r = run(bundle, dir);
    expect(r).toMatchObject({ cache: 'none', status: 0 });
    expect(r.out).toMatch(/^v1 45 /);
  });

  it("keeps other bundles' caches up to four, newest first, and drops temporary files a minute old", () => {
    const { bundle, dir } = setup();
    fs.mkdirSync(dir, { recursive: true });
    const old = (name: string, ageS: number) => {
      fs.writeFileSync(path.join(dir, name), 'x');
      const t = new Date(Date.now() - ageS * 1000);
      fs.utimesSync(path.join(dir, name), t, t);
    };
    for (let i = 1; i <= 6; i++) old(`main-${i}.v8`, i * 100);
    old('main-dead.v8.123.tmp', 120);
    old('main-live.v8.456.tmp', 5);
    const { file } = run(bundle, dir);
    expect(fs.readdirSync(dir).sort()).toEqual([path.basename(file!), 'main-1.v8', 'main-2.v8', 'main-3.v8', 'main-4.v8', 'main-live.v8.456.tmp'].sort());
  });
});

describe('the devx binary', () => {
  it('keeps its code cache under ~/.devx/cache and uses it from the second start', () => {
    const home = makeHome({ codeCache: false });
    const env = { PATH: process.env.PATH, HOME: home, DEVX_DEBUG: '1', NO_COLOR: '1' };
    const cwd = tempDir('devx-proj-');
    const start = () => spawnSync(process.execPath, [DEVX_BIN, 'sessions'], { cwd, env, encoding: 'utf8' });
    const first = start();
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('code cache none');
    expect(caches(path.join(home, '.devx', 'cache'))).toHaveLength(1);
    const second = start();
    expect(second.stderr).toContain('code cache used');
    expect(second.stdout).toBe(first.stdout);
    const off = spawnSync(process.execPath, [DEVX_BIN, 'sessions'], { cwd, env: { ...env, DEVX_CODE_CACHE: 'off' }, encoding: 'utf8' });
    expect(off.stderr).toContain('code cache off');
    expect(off.stdout).toBe(first.stdout);
  });
});
