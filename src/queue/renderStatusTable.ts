// `devx agent status`'s table (either queue).
import type { Task } from './taskSchema.js';
import { escapeControls } from '../util/terminalText.js';

/** The seed's status table. */
export function renderStatusTable(tasks: Task[]): string {
  // Why a task failed, is blocked or incomplete shows beside it (the calls in full: agent status <id>).
  // A task that changed nothing shows what the model claimed, as its claim.
  const why = (t: Task) =>
    ['failed', 'blocked', 'incomplete'].includes(t.status) || (t.status === 'pending' && t.error)
      ? (t.error ?? '').replace(/\s+/g, ' ').slice(0, 80)
      : t.status === 'complete' && t.noChanges && t.summary
        ? `the model said: ${JSON.stringify(t.summary.replace(/\s+/g, ' ').slice(0, 60))}`
        : '';
  // A prompt and an error are a person's or a model's text: shown with their controls escaped (and padded as shown).
  const rows = tasks.map((t) => [
    t.taskId,
    t.agent,
    t.status === 'complete' && t.noChanges ? 'complete, no changes' : t.status,
    t.createdAt,
    escapeControls(t.prompt.replace(/\s+/g, ' ').slice(0, 50)),
    String(t.attempts),
    String(t.runnerDeaths),
    escapeControls(why(t)),
  ]);
  const head = ['Task ID', 'Agent', 'Status', 'Created At', 'Prompt', 'Attempts', 'Runner deaths', 'Why'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(w[i])).join(' | ')} |`;
  return [line(head), `| ${w.map((n) => '-'.repeat(n)).join(' | ')} |`, ...rows.map(line)].join('\n');
}
