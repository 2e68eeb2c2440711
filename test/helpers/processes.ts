// Process helpers for e2e tests: background devx processes, waiting, and finding leftovers by cwd.
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { DEVX_BIN } from './env.js';

/** Live (non-zombie) processes whose working directory is under `dir` (gemini runs in devx's scratch dir). */
export function processesUnder(dir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return !/\) Z /.test(fs.readFileSync(`/proc/${e}/stat`, 'utf8')) && fs.readlinkSync(`/proc/${e}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether `pid` is a live process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

export function killUnder(dir: string): void {
  for (const pid of processesUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

export async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts devx in the background; `output()` is what it printed so far. Callers kill it in afterEach. */
export function startDevx(args: string[], cwd: string, env: NodeJS.ProcessEnv, registry: ChildProcess[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [DEVX_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  registry.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

/**
 * Kills the watchdog devx `pid` started (util/groupWatchdog.ts: `node -e <source> <pid>`), so that a kill -9 of
 * devx that follows leaves its children for the next start to reap, as when one blow takes both.
 */
export function killWatchdogOf(pid: number): void {
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv[1] === '-e' && argv[2]?.includes('DEVX_OWNER_PID') && argv[3] === String(pid)) process.kill(Number(e), 'SIGKILL');
  }
}
