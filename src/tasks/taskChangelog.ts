// changelog.md of a task folder: the entry a step asks the changelog agent to write, and devx's check
// that it was written (with its own line when the model skipped it, said out loud).
import fs from 'node:fs';
import { linesToAppend } from '../tools/appendFile.js';
import type { TaskFolder } from './taskFiles.js';
import { appendOwnedSync } from '../util/ownedFile.js';

/** The agent-tool call a step's model is told to make, in one protocol line. */
export function changelogCall(t: TaskFolder, at: Date, entry: string): string {
  return `TOOL_CALL: agent | name=changelog | input=Append to ${t.relFile('changelog')} with timestamp ${at.toISOString()} the entry: ${entry}`;
}

export function changelogLines(t: TaskFolder): number {
  try {
    return fs.readFileSync(t.file('changelog'), 'utf8').split('\n').filter((l) => l.trim()).length;
  } catch {
    return 0;
  }
}

/**
 * After a step that did work: if no line was added since `before`, devx appends the entry itself and
 * returns a warning saying so (the changelog must not miss a step).
 */
export function ensureChangelogEntry(t: TaskFolder, before: number, at: Date, entry: string, role: string): string | null {
  if (changelogLines(t) > before) return null;
  const file = t.file('changelog');
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  appendOwnedSync(file, linesToAppend(existing, `- ${at.toISOString()} ${entry} (recorded by devx: the ${role} agent did not call the changelog agent)`));
  return `the ${role} agent did not record a changelog entry; devx added it to ${t.relFile('changelog')}`;
}
