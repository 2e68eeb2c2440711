#!/usr/bin/env node
// The `devx` binary. A CommonJS file starts ~8 ms sooner than the ES module bundle: `--version` answers
// here, and a one-shot run's model CLI is started ahead (util/prestart) before the rest of devx loads.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { devxHome } from '../config/paths.js';
import { prestart } from '../util/prestart.js';

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
  prestart(argv, process.cwd(), process.env, devxHome());
  void import('./main.js');
}
