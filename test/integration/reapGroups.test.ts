// Crash recovery kills only the orphans a dead devx really started, and returns once they are gone.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_ENV, reapGroups } from '../../src/util/reapGroups.js';
import { isAlive as alive } from '../helpers/processes.js';

const started: number[] = [];
/** A process group of a sleeping shell plus a grandchild, as gemini's relaunch makes. */
function group(env: Record<string, string>): number {
  const c = spawn('sh', ['-c', 'sleep 60 & sleep 60'], { detached: true, stdio: 'ignore', env: { ...process.env, ...env } });
  c.unref();
  started.push(c.pid!);
  return c.pid!;
}
afterEach(() => {
  for (const g of started.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

describe('reapGroups', () => {
  it('kills the groups carrying the dead owner marker and waits until they are gone', async () => {
    const ours = group({ [OWNER_ENV]: '424242' });
    const recycled = group({}); // same shape, but not started by the dead devx: a recycled group id
    const otherOwner = group({ [OWNER_ENV]: '777' });
    await new Promise((r) => setTimeout(r, 200));
    expect(reapGroups([ours, recycled, otherOwner], 424242)).toBe(1);
    expect(alive(ours)).toBe(false); // gone on return, not merely signalled
    expect(alive(recycled)).toBe(true);
    expect(alive(otherOwner)).toBe(true);
  });

  it('ignores ids that name no group, and never signals init or every process', () => {
    expect(reapGroups([0, 1, -1, 2 ** 22 + 17], 424242)).toBe(0);
  });
});
