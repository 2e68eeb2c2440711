// A natural exit also tears down the heap devx built, which process.exit skips. When nothing is pending but
// stdio and exited children, devx ends at once instead.
import { childrenRunning } from './processGroups.js';

// Handles that mean nothing is left to do: the standard streams, and children that have exited.
const IDLE = new Set(['TTYWrap', 'PipeWrap', 'ProcessWrap']);

/** Exits with `code` once stdout and stderr are flushed, if only idle handles remain; otherwise lets Node exit on its own. */
export function exitPromptly(code: number): void {
  process.exitCode = code;
  if (childrenRunning() || !process.getActiveResourcesInfo().every((r) => IDLE.has(r))) return;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
