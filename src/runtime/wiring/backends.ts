// The provider backends of one run: made once per provider on first use, in the run's scratch folder, or
// taken from the job's shared ones (a workflow, a chain, a queue runner keep one warm model process).
import path from 'node:path';
import type { ResolvedSettings } from '../../config/settings.js';
import type { ModelBackend } from '../../providers/types.js';
import { getProvider } from '../../providers/registry.js';
import type { ChildObserver, ProcessRunner } from '../../util/processRunner.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';
import type { SharedBackends } from '../sharedBackends.js';

export interface Backends {
  backendFor(provider: string): ModelBackend;
  /** Stops the run's own backends (shared ones are the job's to stop). */
  dispose(): void;
}

export function makeBackends(o: {
  settings: ResolvedSettings;
  runner: ProcessRunner;
  env: Record<string, string>;
  workDir: string;
  home: string;
  backend?: ModelBackend;
  shared?: SharedBackends;
  observer?: ChildObserver;
}): Backends {
  const made = new Map<string, ModelBackend>();
  const backendFor = (id: string): ModelBackend => {
    if (o.backend) return o.backend;
    let b = made.get(id);
    if (!b) {
      const ps = o.settings.providers[id];
      const make = (dir: string) => getProvider(id).create(ps, { workDir: dir, runner: o.runner, env: o.env, observer: o.observer });
      if (o.shared) {
        b = o.shared.get(`${id}\0${JSON.stringify(ps)}\0${JSON.stringify(o.env)}`, o.home, make);
      } else {
        const dir = path.join(o.workDir, id);
        mkdirOwnedSync(dir, 0o700);
        b = make(dir);
      }
      made.set(id, b);
    }
    return b;
  };
  return {
    backendFor,
    dispose: () => {
      if (!o.shared) for (const b of made.values()) b.dispose?.();
    },
  };
}
