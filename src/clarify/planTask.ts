// The TaskPlanner: the first line of task_status.md decides the next step. Routing is
// devx code, never a model call.
import { readTaskStatus, type TaskFolder, type TaskStatus } from './taskFiles.js';

export type TaskRoute =
  | { step: 'context_research' }
  | { step: 'qna'; status: 'AWAITING_QUESTIONS' | 'AWAITING_USER_FEEDBACK' }
  | { step: 'stop'; status: 'AWAITING_CONTEXT_REVIEW' | 'READY_FOR_PRD'; message: string };

/** The seed's words for the two statuses that stop, with where to look. */
export function stopMessage(t: TaskFolder, status: 'AWAITING_CONTEXT_REVIEW' | 'READY_FOR_PRD'): string {
  if (status === 'AWAITING_CONTEXT_REVIEW') {
    return `Initial context generated in \`task_context.md\`. Please review/update and then change \`task_status.md\` to \`AWAITING_QUESTIONS\`.\nReview ${t.relFile('context')}, then set the first line of ${t.relFile('status')} to AWAITING_QUESTIONS and run devx task next ${t.rel}`;
  }
  return `Q&A ready for user review and next step assignment.\nRead ${t.relFile('qna')}; to build it: devx workflow run --mode direct --from-task ${t.rel}`;
}

/** Throws a TaskFileError for an unknown or empty status. */
export function planTask(t: TaskFolder): TaskRoute {
  const status: TaskStatus | null = readTaskStatus(t);
  switch (status) {
    case null:
      return { step: 'context_research' };
    case 'AWAITING_QUESTIONS':
    case 'AWAITING_USER_FEEDBACK':
      return { step: 'qna', status };
    case 'AWAITING_CONTEXT_REVIEW':
    case 'READY_FOR_PRD':
      return { step: 'stop', status, message: stopMessage(t, status) };
  }
}
