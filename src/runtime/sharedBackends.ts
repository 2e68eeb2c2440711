// Provider backends shared by the runs of one job: a workflow's steps, a chain's steps, a queue runner's
// tasks. Each run is its own agent (its own persona, tools and policy), but they all call the same
// provider with the same settings many times, so one warm model process (providers.gemini mode "auto")
// serves them all instead of one process per call. The job owns the cache and disposes it when it ends,
// on every path (its processes are stopped and its scratch folder removed).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { ModelBackend } from '../providers/types.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';

export class SharedBackends {
  private readonly made = new Map<string, ModelBackend>();
  private dir: string | null = null;

  /** The backend for `key`, made once in a scratch folder of its own under `<devx home>/run/` (removed when this process is gone). */
  get(key: string, devxHome: string, make: (dir: string) => ModelBackend): ModelBackend {
    let b = this.made.get(key);
    if (!b) {
      this.dir ??= path.join(devxHome, 'run', `${process.pid}-job-${crypto.randomBytes(4).toString('hex')}`);
      const dir = path.join(this.dir, String(this.made.size));
      mkdirOwnedSync(dir, 0o700);
      b = make(dir);
      this.made.set(key, b);
    }
    return b;
  }

  async dispose(): Promise<void> {
    for (const b of this.made.values()) b.dispose?.();
    this.made.clear();
    await awaitLingering();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
