// Runs devx's main bundle (one CommonJS file) with V8's code cache. Without it every start compiles
// the bundle again: parsing it, then compiling each function as it is first called (CPU that slows the
// model CLI started beside it; `npm run bench`, "start of a command"). The cache is made at the exit of a run,
// so it holds the functions that run used, not only the top level. Node 22 has this built in
// (module.enableCompileCache); Node 20 does not. Only node built-ins are imported: this runs first.
import { closeSync, fstatSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Module from 'node:module';
import { hashOf } from './hashOf.js';
import { builtin } from './builtin.js';
import { replaceFileSync } from './replaceFileSync.js';
import { mkdirOwnedSync } from './ownedFile.js';

// A cache file: 4 bytes naming the format, 1 byte for who made it (COVERAGE), the CRC-32 of the rest,
// then V8's own data. V8 (11 in Node 20) does not checksum a code cache: damaged data crashes the
// process, so devx checks its own.
const MAGIC = 0x32435844; // "DXC2"
const HEADER = 9;
/** A run that made no model call (`devx sessions`, `--help`) compiles little of devx; a run of the loop compiles the core. */
export const COVERAGE = { other: 0, agent: 1 } as const;

export interface CodeCacheOptions {
  /** Where cache files live (devx's home, `cache/`); null runs without a cache. */
  dir: string | null;
  /** How much of devx this process is expected to run: a run's cache replaces a lesser one. */
  coverage: number;
}

export interface CodeCacheRun {
  /** 'used' (V8 accepted the cache), 'rejected' (made by another Node or V8 flags), 'none' (no file) or 'off'. */
  cache: 'used' | 'rejected' | 'none' | 'off';
  /** The file the cache is read from and written to. */
  file: string | null;
}

/**
 * Loads and runs `bundle` as a CommonJS module. V8 uses the cached code only if it was made by the same
 * V8 with the same flags; the file name also holds the bundle's size, mtime and inode, so a rebuilt or
 * reinstalled bundle never meets an old cache (V8 itself only compares the source's length). The bundle
 * is ASCII (scripts/bundle.mjs makes it so): read as latin1 it becomes a one-byte string without decoding.
 */
export function runWithCodeCache(bundle: string, opts: CodeCacheOptions): CodeCacheRun {
  const fd = openSync(bundle, 'r');
  let source: string;
  let id: string;
  try {
    const st = fstatSync(fd);
    source = readFileSync(fd, 'latin1');
    id = hashOf(`${bundle}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${process.version}\0${process.arch}`);
  } finally {
    closeSync(fd);
  }
  // Loaded here, after the head start's spawn. zlib.crc32 is Node 20.15+: without it, no cache.
  const vm = builtin('node:vm');
  const Module = builtin('node:module');
  const crc32 = opts.dir ? builtin('node:zlib').crc32 : undefined;
  const file = opts.dir && crc32 ? join(opts.dir, `main-${id}.v8`) : null;
  let data: Buffer | undefined;
  let madeBy = -1;
  if (file) {
    try {
      const raw = readFileSync(file);
      const payload = raw.subarray(HEADER);
      if (raw.length > HEADER && raw.readUInt32LE(0) === MAGIC && raw.readUInt32LE(5) === crc32!(payload)) {
        madeBy = raw[4];
        data = payload;
      }
    } catch {
      /* none yet */
    }
  }
  // The bundle holds no import() (scripts/bundle.mjs turns each into a require), which a vm.Script could not run.
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData: data });
  const state: CodeCacheRun = { cache: !file ? 'off' : !data ? 'none' : script.cachedDataRejected ? 'rejected' : 'used', file };
  if (file && (state.cache !== 'used' || madeBy < opts.coverage)) {
    // At exit the cache holds every function this run compiled. A failure only means no cache next time.
    process.once('exit', () => {
      try {
        writeCache(file, opts.coverage, script.createCachedData(), crc32!);
      } catch {
        /* no cache */
      }
    });
  }
  const m = new Module(bundle) as Module & { filename: string; paths: string[]; exports: unknown };
  m.filename = bundle;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(bundle));
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void;
  run.call(m.exports, m.exports, Module.createRequire(bundle), m, bundle, dirname(bundle));
  return state;
}

// Caches of other bundles (another devx install, an older build) are kept up to this many, newest first.
const KEEP = 4;

/** Replaces the cache atomically (a devx starting meanwhile reads the old file or the new one) and prunes old ones. */
function writeCache(file: string, coverage: number, data: Buffer, crc32: (data: Buffer) => number): void {
  const dir = dirname(file);
  mkdirOwnedSync(dir, 0o700);
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header[4] = coverage;
  header.writeUInt32LE(crc32(data), 5);
  replaceFileSync(file, Buffer.concat([header, data]));
  const now = Date.now();
  const others = readdirSync(dir)
    .filter((f) => f.startsWith('main-') && join(dir, f) !== file)
    .map((f) => ({ f: join(dir, f), st: statSync(join(dir, f), { throwIfNoEntry: false }) }))
    .filter((x) => x.st)
    .sort((x, y) => y.st!.mtimeMs - x.st!.mtimeMs);
  // A temporary file left by a devx killed while writing is dropped once it is a minute old.
  const stale = [...others.filter((x) => x.f.endsWith('.v8')).slice(KEEP), ...others.filter((x) => x.f.endsWith('.tmp') && now - x.st!.mtimeMs > 60_000)];
  for (const x of stale) rmSync(x.f, { force: true });
}
