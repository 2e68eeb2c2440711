// Unified diffs for confirmations: what an edit or a write would change, before it runs.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';

// diff loads on the first preview, not at every start (a one-shot answer never shows one).
const diffLib = () => createRequire(import.meta.url)('diff') as typeof import('diff');

const MAX_PREVIEW_LINES = 400;

export async function readIfExists(abs: string): Promise<string | null> {
  return fs.readFile(abs, 'utf8').catch(() => null);
}

/** A unified diff of a file's change, cut to a readable length. */
export function unifiedDiff(shown: string, before: string, after: string): string {
  const patch = diffLib().createTwoFilesPatch(`a/${shown}`, `b/${shown}`, before, after, '', '', { context: 3 });
  const lines = patch.split('\n').filter((l) => !l.startsWith('====')).slice(0, MAX_PREVIEW_LINES + 1);
  if (lines.length > MAX_PREVIEW_LINES) lines[MAX_PREVIEW_LINES] = `… (diff cut at ${MAX_PREVIEW_LINES} lines)`;
  return lines.join('\n').trimEnd();
}
