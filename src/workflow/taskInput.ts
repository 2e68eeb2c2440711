// `--from-task <folder>`: a clarification folder (devx task) whose Q&A is READY_FOR_PRD becomes the
// pipeline's request: the description, the context and the answered questions.
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError } from './runWorkflow.js';

const read = (f: string) => {
  try {
    return fs.readFileSync(f, 'utf8').trim();
  } catch {
    return null;
  }
};

export function readTaskInput(root: string, folder: string): string {
  const dir = path.resolve(root, folder);
  const statusFile = path.join(dir, 'task_status.md');
  const status = read(statusFile)?.split('\n')[0].trim();
  if (!status) throw new WorkflowError(`${statusFile} is missing; run devx task next ${folder} until it says READY_FOR_PRD`);
  if (status !== 'READY_FOR_PRD') throw new WorkflowError(`${statusFile} says ${status}, not READY_FOR_PRD; finish the Q&A with devx task next ${folder} first`);
  const description = read(path.join(dir, 'task_description.md'));
  if (!description) throw new WorkflowError(`${path.join(dir, 'task_description.md')} is missing or empty`);
  const parts = [`# Task (${path.relative(root, dir) || '.'})\n\n${description}`];
  const context = read(path.join(dir, 'task_context.md'));
  if (context) parts.push(`# Context (task_context.md)\n\n${context}`);
  const qna = read(path.join(dir, 'questions-and-answers.md'));
  if (qna) parts.push(`# Questions and answers (questions-and-answers.md)\n\n${qna}`);
  return parts.join('\n\n');
}
