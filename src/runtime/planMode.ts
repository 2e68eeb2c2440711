// Plan mode as Claude Code and Gemini CLI run it: the model explores with reading tools only and answers
// with a plan; the plan is saved as Markdown in .devx/plans/ and shown; the person approves it (the session
// then works it in the mode they pick, its steps as the todo list), asks for changes, or rejects it.
import fs from 'node:fs';
import path from 'node:path';
import { readPrompt } from '../util/packageRoot.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import { parseChecklist } from '../tools/todo.js';
import type { ApprovalMode } from '../policy/types.js';

/** The modes Shift+Tab steps through, in Claude Code's order (yolo is chosen on purpose, never by cycling). */
export const CYCLED_MODES: ApprovalMode[] = ['default', 'auto-edit', 'plan'];

/** The mode after `mode` in the cycle (yolo goes back to default). */
export function nextMode(mode: ApprovalMode): ApprovalMode {
  const i = CYCLED_MODES.indexOf(mode);
  return CYCLED_MODES[(i + 1) % CYCLED_MODES.length];
}

/** The message a plan-mode turn sends: how to plan, then the task. */
export function planningMessage(task: string): string {
  return `${readPrompt('plan.md').trimEnd()}\n${task}`;
}

/** The message that sends the model back with the person's changes to the plan. */
export function revisionMessage(planFile: string, changes: string): string {
  return `The person read your plan (${planFile}) and asks for changes before approving it:\n${changes}\n\nWrite the whole plan again, changed as asked, in the same form. You are still in plan mode.`;
}

/** The message that starts the work once the plan is approved. */
export function workMessage(planFile: string, plan: string): string {
  return `The person approved your plan (saved as ${planFile}). Carry it out now, step by step, keeping the todo list current as you go.\n\n${plan}`;
}

/** A file name for the plan: the date and a few words of the task. */
export function planFileName(task: string, now: Date): string {
  const slug =
    task
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'plan';
  return `${now.toISOString().slice(0, 10)}-${slug}.md`;
}

/** Saves the plan under .devx/plans/ (a second plan for the same task the same day gets -2, -3…); its path from the root. */
export function savePlan(root: string, task: string, plan: string, now = new Date()): string {
  const dir = path.join(root, '.devx', 'plans');
  mkdirOwnedSync(dir, 0o755);
  const base = planFileName(task, now).replace(/\.md$/, '');
  let name = `${base}.md`;
  for (let n = 2; fs.existsSync(path.join(dir, name)); n++) name = `${base}-${n}.md`;
  writeFileAtomicSync(path.join(dir, name), plan.endsWith('\n') ? plan : `${plan}\n`);
  return path.join('.devx', 'plans', name);
}

/** The plan's steps (its numbered or bulleted items) as todo items, open. */
export function planSteps(plan: string): { text: string; done: boolean }[] {
  return parseChecklist(plan).map((t) => ({ text: t.text.replace(/\*\*/g, '').slice(0, 200), done: false }));
}
