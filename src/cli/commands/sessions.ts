// `devx sessions [--json]`: this project's sessions, oldest first.
import { defineCommand, flagTable } from '../command.js';
import { findProjectRoot } from '../../config/paths.js';
import { listRecords } from '../../session/sessionRecord.js';
import { isAlive } from '../../session/sessionLock.js';
import { removeSetAside } from '../../session/setAside.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

/** Removes what devx set aside (session/setAside.ts), naming each path. */
function removeAside(root: string): number {
  const removed = removeSetAside(root);
  if (!removed.length) process.stdout.write('nothing is set aside here\n');
  for (const rel of removed) process.stdout.write(`removed ${escapeControls(rel)}\n`);
  return 0;
}

export const sessionsCommand = defineCommand({
  name: 'sessions',
  summary: "this project's sessions, oldest first (resume one with devx --resume <id>)",
  usage: ['sessions [--json]', 'sessions --remove-set-aside'],
  flags: flagTable(`
    --json               print the session records as JSON
    --remove-set-aside   remove the devx state here that you did not write (devx sets it aside and names it at start)
`),
  async run({ values }) {
    const root = findProjectRoot(process.cwd());
    if (values['remove-set-aside']) return removeAside(root);
    // A record still marked live whose process is gone crashed (it is only re-marked at the next start).
    const records = listRecords(root).map((r) => (r.status === 'live' && !isAlive(r.pid) ? { ...r, status: 'crashed' as const } : r));
    if (values.json) {
      process.stdout.write(`${printableJson(records, 2)}\n`);
      return 0;
    }
    if (!records.length) {
      process.stdout.write('no sessions yet\n');
      return 0;
    }
    for (const r of records) {
      const open = r.checkpoint.todos.filter((t) => !t.done).length;
      process.stdout.write(
        `${r.id}  ${r.status.padEnd(7)}  ${String(r.turns).padStart(3)} turns  ${open ? `${open} open todos  ` : ''}${escapeControls((r.lastInput ?? '').replace(/\s+/g, ' ').slice(0, 60))}\n`,
      );
    }
    process.stdout.write('Continue one with: devx --resume <id>\n');
    return 0;
  },
});
