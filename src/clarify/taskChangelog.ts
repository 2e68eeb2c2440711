// changelog.md of a task folder: the entry a step asks the changelog agent to write, and devx's check
// that it was written (with its own line when the model skipped it, said out loud).
import fs from 'node:fs';
import { linesToAppend } from '../tools/appendFile.js';
import type { TaskFolder } from './taskFiles.js';
import { appendOwnedSync } from '../util/ownedFile.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';

/** The agent-tool call a step's model is told to make, in one protocol line. */
export function changelogCall(t: TaskFolder, at: Date, entry: string): string {
  return `TOOL_CALL: agent | name=changelog | input=Append to ${t.relFile('changelog')} with timestamp ${at.toISOString()} the entry: ${entry}`;
}

export function changelogLines(t: TaskFolder): number {
  return (readTextOrNull(t.file('changelog'), READ_LIMITS.state) ?? '').split('\n').filter((l) => l.trim()).length;
}

/**
 * The changelog as it was before a step; `rollback()` takes back what the step appended when the step
 * does not stand (devx restored its files), so the changelog records only steps that stood. A file
 * changed in any other way meanwhile is left alone. Returns whether it took anything back.
 */
export function snapshotChangelog(t: TaskFolder): { rollback(): boolean } {
  const file = t.file('changelog');
  const read = () => {
    return readTextOrNull(file, READ_LIMITS.state);
  };
  const before = read();
  return {
    rollback() {
      const now = read();
      if (now === null || now === before) return false;
      if (before === null) {
        fs.rmSync(file, { force: true });
        return true;
      }
      if (!now.startsWith(before)) return false;
      writeFileAtomicSync(file, before);
      return true;
    },
  };
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
