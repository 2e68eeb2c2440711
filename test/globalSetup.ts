// One temp folder per test run: the helpers put every directory they make under it (test/helpers/env.ts
// tempDir), and it is removed when the run ends, so runs do not pile up in /tmp. DEVX_KEEP_TEMP=1 keeps it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-tests-')));
  process.env.DEVX_TEST_TMP = root;
  return () => {
    if (process.env.DEVX_KEEP_TEMP) process.stderr.write(`test folders kept in ${root}\n`);
    else fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
