#!/usr/bin/env node
// The `devx` binary, a small CommonJS file: `--version` answers here, a one-shot run's model CLI is
// started ahead (util/prestart), and then the main bundle beside it runs with V8's code cache (util/runWithCodeCache).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { useBaselineWasmTier } from '../util/wasmTier.js';
import { dirname, join } from 'node:path';
import { devxHome, devxHomeUsable } from '../util/devxHome.js';
import { debug, oneShotCommand, prestart } from '../util/prestart.js';
import { dropRelativePath } from '../util/absolutePath.js';
import { COVERAGE, runWithCodeCache } from '../util/runWithCodeCache.js';

const argv = process.argv.slice(2);

/** devx's version, from the package.json above this script (followed through the npm bin link). */
function version(): string | null {
  try {
    for (let dir = dirname(realpathSync(process.argv[1])); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'devx' && pkg.version) return pkg.version;
    }
  } catch {
    /* the bundle answers instead */
  }
  return null;
}

const v = argv[0] === '--version' || argv[0] === '-v' ? version() : null;
if (v) process.stdout.write(`devx ${v}\n`);
else {
  // Before anything is started: the head start, and every program after it, inherit this PATH.
  const notice = dropRelativePath(process.env);
  if (notice) process.stderr.write(notice);
  // Before the code cache is read: V8 keys its cache on the flags (util/wasmTier.ts says why).
  useBaselineWasmTier();
  const home = devxHome();
  // A ~/.devx that is a link gets nothing written here; the main bundle stops with the reason.
  const usable = devxHomeUsable(home);
  if (usable) prestart(argv, process.cwd(), process.env, home);
  // The REPL (no command word) and one-shot runs make model calls: their cache holds the loop's code.
  const runsLoop = oneShotCommand(argv) !== null || argv[0] === undefined || (argv[0].startsWith('-') && !['--help', '-h'].includes(argv[0]));
  const run = runWithCodeCache(join(__dirname, 'devx-main.cjs'), {
    dir: process.env.DEVX_CODE_CACHE === 'off' || !usable ? null : join(home, 'cache'),
    coverage: runsLoop ? COVERAGE.agent : COVERAGE.other,
  });
  debug(`code cache ${run.cache}${run.file ? ` (${run.file})` : ''}`);
}
