// Each test process (and the fast tier's thread) gets a HOME of its own under the run's temp folder: code under test
// that falls back to the process's environment (a default parameter, an in-process run) meets a temp home, never
// the machine's own ~/.devx, ~/.gemini or ~/.claude. Tests give the processes they start a temp HOME of their own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const home = path.join(process.env.DEVX_TEST_TMP ?? os.tmpdir(), `process-home-${process.pid}`);
fs.mkdirSync(home, { recursive: true, mode: 0o700 });
process.env.HOME = home;
