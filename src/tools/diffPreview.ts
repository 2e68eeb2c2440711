// Unified diffs for confirmations: what an edit or a write would change, before it runs.
import { createRequire } from 'node:module';
import { readTextIfRegular } from '../sandbox/openNoFollow.js';

// diff loads on the first preview, not at every start (a one-shot answer never shows one).
const diffLib = () => createRequire(import.meta.url)('diff') as typeof import('diff');

const MAX_PREVIEW_LINES = 400;
/** The line that ends a cut diff; a confirmation offers the whole diff when its preview has it. */
export const DIFF_CUT_MARK = `… (diff cut at ${MAX_PREVIEW_LINES} lines;`;

/** The file's current text for a preview; null for a new file (or a FIFO or device, which the tool then refuses). */
export async function readIfExists(abs: string): Promise<string | null> {
  return readTextIfRegular(abs);
}

/** A unified diff of a file's change, whole (the audit log hashes this). */
export function wholeUnifiedDiff(shown: string, before: string, after: string): string {
  const patch = diffLib().createTwoFilesPatch(`a/${shown}`, `b/${shown}`, before, after, '', '', { context: 3 });
  return patch
    .split('\n')
    .filter((l) => !l.startsWith('===='))
    .join('\n')
    .trimEnd();
}

/** A unified diff of a file's change, cut to a readable length. */
export function unifiedDiff(shown: string, before: string, after: string): string {
  const all = wholeUnifiedDiff(shown, before, after).split('\n');
  const lines = all.slice(0, MAX_PREVIEW_LINES + 1);
  if (lines.length > MAX_PREVIEW_LINES) lines[MAX_PREVIEW_LINES] = `${DIFF_CUT_MARK} ${all.length - MAX_PREVIEW_LINES} more)`;
  return lines.join('\n').trimEnd();
}
