// Plan mode over ACP: `plan` is one of the session's modes; a prompt in it is a planning turn whose plan is
// saved (.devx/plans/), sent as ACP's plan update, and put to the person as a permission request: carry it out
// (the session leaves plan mode, the plan's steps become the todo list and the work turn follows) or keep
// planning (the session stays in plan mode; the next prompt can ask for changes).
import * as acp from '@agentclientprotocol/sdk';
import type { Started } from '../runtime/startSession.js';
import type { TurnResult } from '../core/loop.js';
import type { ApprovalMode } from '../policy/types.js';
import { planningMessage, planSteps, savePlan, workMessage } from '../runtime/planMode.js';

export const PLAN_MODE = 'plan';

export const PLAN_MODE_INFO = {
  id: PLAN_MODE,
  name: 'plan',
  description: 'read-only: the model explores and writes a plan you approve before anything changes',
};

const PLAN_OPTIONS: acp.PermissionOption[] = [
  { optionId: 'default', name: 'Carry it out, asking before changes', kind: 'allow_once' },
  { optionId: 'auto-edit', name: 'Carry it out, file edits approved', kind: 'allow_always' },
  { optionId: 'reject', name: 'Keep planning', kind: 'reject_once' },
];

export interface PlanSession {
  started: Started;
  id: string;
  send(update: acp.SessionUpdate): void;
  flushed(): Promise<void>;
  /** Asks the client (null when the turn was cancelled or the request failed). */
  ask(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<string | null>;
}

let seq = 0;

/** A prompt in plan mode: the planning turn, the plan saved and shown, the person's answer, and the work if approved. */
export async function planOverAcp(s: PlanSession, task: string, signal: AbortSignal): Promise<TurnResult> {
  const run = s.started.run;
  const r = await run.prompt(planningMessage(task), { signal });
  if (r.status !== 'answered' || !r.answer?.trim()) return r;
  const plan = r.answer.trim();
  const file = savePlan(run.agent.root, task, plan);
  const steps = planSteps(plan);
  s.send({ sessionUpdate: 'plan', entries: steps.map((t) => ({ content: t.text, priority: 'medium', status: 'pending' })) });
  const toolCallId = `plan-${++seq}`;
  const title = `Carry out the plan (${file})`;
  s.send({ sessionUpdate: 'tool_call', toolCallId, title, kind: 'think', status: 'pending' });
  await s.flushed();
  const chosen = await s.ask({ sessionId: s.id, toolCall: { toolCallId, title, status: 'pending' }, options: PLAN_OPTIONS }, signal);
  if (chosen !== 'default' && chosen !== 'auto-edit') {
    s.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'failed',
      content: [text(`Not carried out; the plan is kept as ${file}, still in plan mode.`)],
    });
    return r;
  }
  run.setMode(chosen as ApprovalMode);
  s.started.session.setCheckpoint({ objective: task, todos: steps });
  s.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(`Approved (${chosen}); ${steps.length} steps.`)] });
  s.send({ sessionUpdate: 'current_mode_update', currentModeId: run.persona?.name ?? 'default' });
  return run.prompt(workMessage(file, plan), { signal });
}

function text(t: string): acp.ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}
