#!/usr/bin/env node
// The `devx` binary. A CommonJS file starts ~10 ms sooner than the ES module bundle, and a one-shot
// run's model CLI is started ahead from here (util/prestart) before the rest of devx loads.
import { devxHome } from '../config/paths.js';
import { prestart } from '../util/prestart.js';

prestart(process.argv.slice(2), process.cwd(), process.env, devxHome());
void import('./main.js');
