// The process groups devx's children lead (util/processRunner starts each child as a group leader): which
// are running, how one is stopped, and what devx does about them when it exits.
import { hasProc, liveMembers, markedProcesses } from './reapGroups.js';

// The groups the watchdog (util/groupWatchdog.ts) has been told about, and how to tell it.
const told = new Set<number>();
let tellWatchdog: ((line: string) => void) | null = null;

/** Tells the watchdog when a group starts or stops being devx's to stop: while it is running or being stopped. */
function sync(pid: number): void {
  const want = liveGroups.has(pid) || stoppingGroups.has(pid);
  if (!tellWatchdog || want === told.has(pid)) return;
  if (want) told.add(pid);
  else told.delete(pid);
  tellWatchdog(`${want ? '+' : '-'}${pid}\n`);
}

// Whether devx ran a program no sandbox holds: only then does its exit look for marked processes left behind
// (a look through /proc). A sandboxed command's processes die with its sandbox.
let strays = false;

/** A program that may leave its group runs: at devx's exit, every process carrying its marker is stopped. */
export function expectStrays(): void {
  strays = true;
}

/** A set of groups whose changes reach the watchdog. */
class WatchedGroups extends Set<number> {
  override add(pid: number): this {
    super.add(pid);
    sync(pid);
    return this;
  }

  override delete(pid: number): boolean {
    const had = super.delete(pid);
    sync(pid);
    return had;
  }
}

/** Groups whose leader devx started and has not yet seen exit. */
export const liveGroups = new WatchedGroups();

// Groups sent SIGTERM whose SIGKILL a second later is still due. The leader may exit at once while
// another member ignores SIGTERM: devx exiting before the second passes must not leave that member behind.
const stoppingGroups = new WatchedGroups();

/** From now on the watchdog is told of every group devx must stop (util/groupWatchdog.ts), starting with those running. */
export function reportGroupsTo(tell: (line: string) => void): void {
  tellWatchdog = tell;
  for (const pid of new Set([...liveGroups, ...stoppingGroups])) sync(pid);
  for (const pid of singles) tell(`+p${pid}\n`);
}

// Children that lead no group of their own (an MCP server the SDK spawns): stopped one by one, with their
// marked descendants, by the watchdog if devx dies, and by the exit hook at an exit.
const singles = new Set<number>();

/** A child devx must stop that is no group leader (it carries the owner marker in its environment). */
export function watchProcess(pid: number): void {
  singles.add(pid);
  tellWatchdog?.(`+p${pid}\n`);
}

/** The child is gone or closed: nothing to stop. */
export function unwatchProcess(pid: number): void {
  if (!singles.delete(pid)) return;
  tellWatchdog?.(`-p${pid}\n`);
}

/** Whether any child devx started is still running. */
export function childrenRunning(): boolean {
  return liveGroups.size > 0;
}

/** Is any process left in the group (a zombie not yet reaped counts)? */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Stops a process group: SIGTERM first, so the CLI can release what it holds (gemini keeps a lock
 * on ~/.gemini/projects.json that a SIGKILL leaves behind for the next start to wait out), then
 * SIGKILL a moment later for whatever did not exit (at devx's exit, if that comes first).
 */
export function stopGroup(pid: number | undefined): void {
  if (!pid) return;
  killGroup(pid, 'SIGTERM');
  stoppingGroups.add(pid);
  setTimeout(() => {
    stoppingGroups.delete(pid);
    killGroup(pid);
  }, 1000).unref();
}

let exitHookInstalled = false;

/** At devx's exit, every group still running or still being stopped is killed. */
export function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of new Set([...liveGroups, ...stoppingGroups])) killGroup(pid);
    // With what left its group carrying devx's marker (a background command's `setsid` child): none outlives devx.
    for (const pid of new Set([...singles, ...(strays ? markedProcesses(process.pid) : [])])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
}

/** Which of `groups` still have a live member (a zombie is dead; without /proc, any member counts). */
function groupsWithLiveMembers(groups: Iterable<number>): number[] {
  const wanted = new Set(groups);
  if (!hasProc()) return [...wanted].filter(groupAlive);
  const live = new Set(liveMembers(wanted).map((p) => p.pgrp));
  return [...wanted].filter((g) => live.has(g));
}

/**
 * Kills every group devx started that is running or being stopped, and waits (at most `ms`) until no
 * live process is left in any of them (zombies are dead, whoever reaps them). Returns the groups that
 * still had one: what devx may not claim is gone.
 */
export async function killAllGroups(ms: number): Promise<number[]> {
  const groups = new Set([...liveGroups, ...stoppingGroups]);
  for (const pid of groups) killGroup(pid);
  const end = Date.now() + ms;
  let left = groupsWithLiveMembers(groups);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 10));
    left = groupsWithLiveMembers(left);
  }
  return left;
}
