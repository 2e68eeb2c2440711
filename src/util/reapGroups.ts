// Stops the process groups a dead devx process left running (a crashed session, a killed task
// runner). A recorded group id may have been recycled since the crash, so on Linux a group is only
// killed when one of its live members carries the dead owner's marker in its environment, and the
// call returns once the groups are really gone (SIGKILL is asynchronous), bounded by `waitMs`.
import fs from 'node:fs';

/** Set in every child's environment by the process runner; names the devx process that spawned it. */
export const OWNER_ENV = 'DEVX_OWNER_PID';

interface ProcInfo {
  pid: number;
  pgrp: number;
}

export const hasProc = (): boolean => fs.existsSync('/proc/self/stat');

/** Live (not zombie, not dead) processes whose process group is in `groups`. */
export function liveMembers(groups: Set<number>): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses, so split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(rest[2]);
    if (groups.has(pgrp) && rest[0] !== 'Z' && rest[0] !== 'X') out.push({ pid: Number(e), pgrp });
  }
  return out;
}

/**
 * Live processes (not this one) carrying `owner`'s marker: what devx started and what they started, also those
 * that left its process group (setsid, a daemon's double fork), which no group kill reaches.
 */
export function markedProcesses(owner: number): number[] {
  if (!hasProc()) return [];
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X' && carriesMarker(Number(e), owner)) out.push(Number(e));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

function carriesMarker(pid: number, owner: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${OWNER_ENV}=${owner}`);
  } catch {
    return false;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function killGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills the groups in `pgids` that `owner` (a dead devx pid) started and waits until they are gone.
 * Returns how many groups were killed. Without /proc the marker cannot be checked and groups are
 * killed as recorded.
 */
export function reapGroups(pgids: number[], owner: number, waitMs = 3000): number {
  const wanted = new Set(pgids.filter((g) => Number.isInteger(g) && g > 1));
  if (wanted.size === 0) return 0;
  if (!hasProc()) return [...wanted].filter(killGroup).length;
  const ours = new Set(
    liveMembers(wanted)
      .filter((p) => carriesMarker(p.pid, owner))
      .map((p) => p.pgrp),
  );
  let killed = 0;
  for (const g of ours) if (killGroup(g)) killed++;
  const end = Date.now() + waitMs;
  while (ours.size && liveMembers(ours).length && Date.now() < end) sleepSync(20);
  return killed;
}
