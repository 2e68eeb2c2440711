// A run's scratch folder under ~/.devx/run (its model CLIs' working folders), and the sweep of those a
// killed devx left behind.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { isAlive } from '../../session/sessionLock.js';
import { takeReservedRunName } from '../../util/prestart.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';

/** Makes this run's scratch folder (a one-shot command's entry point may have reserved its name already). */
export function makeScratch(home: string): string {
  removeDeadScratch(path.join(home, 'run'));
  const workDir = path.join(home, 'run', takeReservedRunName(home) ?? `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  mkdirOwnedSync(workDir, 0o700);
  return workDir;
}

/** Scratch folders of devx processes that died without cleaning up (kill -9) are removed at the next start. */
function removeDeadScratch(runDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(runDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) fs.rmSync(path.join(runDir, name), { recursive: true, force: true });
  }
}
