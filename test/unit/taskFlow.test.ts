// The clarification flow's devx-side logic: status parsing and routing, the feedback markers,
// what counts as new feedback, the model's status line, and the pipeline's input.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTask, openTaskFolder, readTaskStatus, statusFileText, TaskFileError, type TaskFolder } from '../../src/clarify/taskFiles.js';
import { planTask } from '../../src/clarify/planTask.js';
import { parseFeedbackBlocks, droppedAnswers } from '../../src/clarify/qnaFile.js';
import { decidedStatus } from '../../src/clarify/qnaStep.js';
import { readTaskInput } from '../../src/clarify/nextTask.js';
import { makeProject, tempDir } from '../helpers/env.js';

let root: string;
let t: TaskFolder;

beforeEach(() => {
  root = makeProject({}, { git: false });
  t = createTask(root, 'tasks/login', 'Login fails after a password reset', root);
});

const write = (name: string, text: string) => fs.writeFileSync(path.join(t.dir, name), text);
const Q = (n: number, q: string, body: string) => `### ${n}. ${q}\n<!-- USER_FEEDBACK_START -->\n${body}\n<!-- USER_FEEDBACK_END -->\n`;

describe('task folder and status', () => {
  it('task new never overwrites a description', () => {
    expect(fs.readFileSync(t.file('description'), 'utf8')).toBe('Login fails after a password reset\n');
    expect(() => createTask(root, 'tasks/login', 'other', root)).toThrow(/tasks\/login\/task_description.md already exists/);
    expect(fs.readFileSync(t.file('description'), 'utf8')).toBe('Login fails after a password reset\n');
  });

  it('routes every status exactly; anything else names the file, line and allowed values', () => {
    expect(planTask(t)).toEqual({ step: 'context_research' });
    write('task_status.md', statusFileText('AWAITING_CONTEXT_REVIEW'));
    expect(planTask(t)).toMatchObject({
      step: 'stop',
      status: 'AWAITING_CONTEXT_REVIEW',
      message: expect.stringContaining(
        'Initial context generated in `task_context.md`. Please review/update and then change `task_status.md` to `AWAITING_QUESTIONS`.',
      ),
    });
    write('task_status.md', 'AWAITING_QUESTIONS\r\n# my own note\n');
    expect(planTask(t)).toEqual({ step: 'qna', status: 'AWAITING_QUESTIONS' });
    write('task_status.md', '  AWAITING_USER_FEEDBACK  \n');
    expect(planTask(t)).toEqual({ step: 'qna', status: 'AWAITING_USER_FEEDBACK' });
    write('task_status.md', statusFileText('READY_FOR_PRD'));
    expect(planTask(t)).toMatchObject({
      step: 'stop',
      status: 'READY_FOR_PRD',
      message: expect.stringMatching(/^Q&A ready for user review and next step assignment\./),
    });
    write('task_status.md', 'ready_for_prd\n');
    expect(() => readTaskStatus(t)).toThrow(
      'tasks/login/task_status.md line 1: unknown status "ready_for_prd"; allowed values: AWAITING_CONTEXT_REVIEW, AWAITING_QUESTIONS, AWAITING_USER_FEEDBACK, READY_FOR_PRD',
    );
    write('task_status.md', '\nAWAITING_QUESTIONS\n');
    expect(() => planTask(t)).toThrow(/line 1: the status is empty/);
  });

  it("a task file linked out of the project (or to a protected file) is refused, naming it; the project's own link is read", () => {
    const outside = tempDir('devx-task-outside-');
    fs.writeFileSync(path.join(outside, 'credentials'), 'CANARY-AWS\n');
    write('task_status.md', statusFileText('READY_FOR_PRD'));
    write('questions-and-answers.md', `# Questions and answers\n\n${Q(1, 'Email?', 'Yes.')}`);
    fs.symlinkSync(path.join(outside, 'credentials'), t.file('context'));
    expect(() => readTaskInput(t)).toThrow(/tasks\/login\/task_context.md resolves outside the project .*devx does not read it/);
    fs.unlinkSync(t.file('context'));
    fs.writeFileSync(path.join(root, '.env'), 'CANARY-ENV\n');
    fs.symlinkSync(path.join(root, '.env'), t.file('context'));
    expect(() => readTaskInput(t)).toThrow(/is protected/);
    fs.unlinkSync(t.file('context'));
    fs.writeFileSync(path.join(root, 'shared-context.md'), '# Task context\nshared\n');
    fs.symlinkSync('../../shared-context.md', t.file('context'));
    expect(readTaskInput(t)).toContain('shared');
  });

  it('a task folder outside the project is refused', () => {
    expect(() => openTaskFolder(root, '..', root)).toThrow(/outside the project/);
    expect(() => openTaskFolder(root, 'tasks/none', root)).toThrow(/task folder not found/);
  });
});

describe('feedback markers', () => {
  it('parses each block with its question; the placeholder is not feedback', () => {
    const text = `# Q&A\n\n## Questions\n\n${Q(1, 'Which login?', 'USER FEEDBACK REQUIRED')}\n${Q(2, 'Email or SMS reset?', 'Email only.\nNo SMS.')}\n${Q(3, 'Mobile too?', 'USER FEEDBACK REQUIRED\nYes, the app as well.')}`;
    const blocks = parseFeedbackBlocks(text, 'x.md');
    expect(blocks).toEqual([
      { question: '### 1. Which login?', feedback: '', line: 6 },
      { question: '### 2. Email or SMS reset?', feedback: 'Email only.\nNo SMS.', line: 11 },
      { question: '### 3. Mobile too?', feedback: 'Yes, the app as well.', line: 17 },
    ]);
    expect(parseFeedbackBlocks('Q?\n<!-- USER_FEEDBACK_START -->inline answer<!-- USER_FEEDBACK_END -->\n', 'x.md')).toEqual([
      { question: 'Q?', feedback: 'inline answer', line: 2 },
    ]);
  });

  it('unbalanced or damaged markers name the file and line', () => {
    const err = (text: string) => {
      try {
        parseFeedbackBlocks(text, 'tasks/login/questions-and-answers.md');
      } catch (e) {
        expect(e).toBeInstanceOf(TaskFileError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('Q\n<!-- USER_FEEDBACK_START -->\nx\n')).toBe(
      'tasks/login/questions-and-answers.md line 2: <!-- USER_FEEDBACK_START --> is never closed with <!-- USER_FEEDBACK_END -->',
    );
    expect(err('Q\nx\n<!-- USER_FEEDBACK_END -->\n')).toBe(
      'tasks/login/questions-and-answers.md line 3: USER_FEEDBACK_END without a <!-- USER_FEEDBACK_START --> before it',
    );
    expect(err('<!-- USER_FEEDBACK_START -->\na\n<!-- USER_FEEDBACK_START -->\n<!-- USER_FEEDBACK_END -->')).toMatch(
      /line 3: a second USER_FEEDBACK_START before the block opened on line 1/,
    );
    expect(err('<!-- USER_FEEDBACK_START ->\nx\n<!-- USER_FEEDBACK_END -->')).toMatch(/line 1: a damaged feedback marker/);
  });

  it('an answer may mention the marker words; a marker comment inside one is refused saying the answer is the cause', () => {
    const err = (text: string) => {
      try {
        parseFeedbackBlocks(text, 'q.md');
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    // In words, even on a line with a marker: part of the answer.
    const words =
      '### 1. Which marker?\n<!-- USER_FEEDBACK_START -->\nThe parser keys on USER_FEEDBACK_START and USER_FEEDBACK_END.\nSee USER_FEEDBACK_END. <!-- USER_FEEDBACK_END -->\n';
    expect(parseFeedbackBlocks(words, 'q.md')).toEqual([
      { question: '### 1. Which marker?', line: 2, feedback: 'The parser keys on USER_FEEDBACK_START and USER_FEEDBACK_END.\nSee USER_FEEDBACK_END.' },
    ]);
    // Outside an answer a stray word is still a damaged marker.
    expect(err('Q\nUSER_FEEDBACK_START\n')).toMatch(/^q\.md line 2: a damaged feedback marker; write it exactly as/);
    // A whole marker comment in an answer: the answer is named.
    expect(err('### 1. Q?\n<!-- USER_FEEDBACK_START -->\nI would write <!-- USER_FEEDBACK_START --> here\n<!-- USER_FEEDBACK_END -->\n')).toMatch(
      /^q\.md line 3: a second USER_FEEDBACK_START before the block opened on line 2 \(the answer to "### 1\. Q\?"\) was closed .*if its answer holds the marker comment itself, take it out/,
    );
    expect(err('### 1. Q?\n<!-- USER_FEEDBACK_START -->\nend it with <!-- USER_FEEDBACK_END --> like so\n<!-- USER_FEEDBACK_END -->\n')).toMatch(
      /^q\.md line 4: USER_FEEDBACK_END without a <!-- USER_FEEDBACK_START --> before it; if the answer to "### 1\. Q\?" \(its block opens on line 2\) holds the marker <!-- USER_FEEDBACK_END --> itself, it ended that answer early/,
    );
    expect(err('### 1. Q?\n<!-- USER_FEEDBACK_START -->\na <!-- USER_FEEDBACK_EDN --> b\n<!-- USER_FEEDBACK_END -->\n')).toMatch(
      /line 3: a damaged feedback marker \(inside the answer to "### 1\. Q\?", whose block opens on line 2\)/,
    );
  });

  it('an answer the model dropped or reworded is caught', () => {
    const before = parseFeedbackBlocks(Q(1, 'A?', 'Yes, email.') + Q(2, 'B?', 'USER FEEDBACK REQUIRED'), 'x');
    expect(droppedAnswers(before, parseFeedbackBlocks(Q(1, 'A?', 'Yes,\n  email.') + Q(3, 'C?', 'USER FEEDBACK REQUIRED'), 'x'))).toEqual([]);
    expect(droppedAnswers(before, parseFeedbackBlocks(Q(1, 'A?', 'Email.'), 'x')).map((b) => b.line)).toEqual([2]);
  });
});

describe('the model status line', () => {
  it('takes the last STATUS line and accepts only the two Q&A outcomes', () => {
    expect(decidedStatus('Done.\nSTATUS: AWAITING_USER_FEEDBACK')).toBe('AWAITING_USER_FEEDBACK');
    expect(decidedStatus('STATUS: AWAITING_USER_FEEDBACK\nthen\n**STATUS: READY_FOR_PRD**')).toBe('READY_FOR_PRD');
    expect(decidedStatus('STATUS: AWAITING_CONTEXT_REVIEW')).toBeNull();
    expect(decidedStatus('I think it is ready')).toBeNull();
  });
});

describe('readTaskInput (for --from-task)', () => {
  it('refuses a task that is not ready; gives description, context and answers as one Markdown text', () => {
    expect(() => readTaskInput(t)).toThrow(/says \(missing\); the task must be READY_FOR_PRD first/);
    write('task_status.md', statusFileText('AWAITING_USER_FEEDBACK'));
    expect(() => readTaskInput(t)).toThrow(/says AWAITING_USER_FEEDBACK/);
    write('task_status.md', statusFileText('READY_FOR_PRD'));
    write('task_context.md', '# Task context\n\n## Files\n- a.ts\n');
    write(
      'questions-and-answers.md',
      `# Questions and answers\n\n## Assumptions\n- web only\n\n## Questions\n\n${Q(1, 'Email?', 'Yes.')}\n${Q(2, 'SMS?', 'USER FEEDBACK REQUIRED')}`,
    );
    const md = readTaskInput(t);
    expect(md).toContain('# Task (tasks/login)\n\nLogin fails after a password reset\n');
    expect(md).toContain('## Task context\n\n### Files\n- a.ts');
    expect(md).toContain('#### 1. Email?\n**Answer:** Yes.');
    expect(md).toContain('#### 2. SMS?\n**Answer:** (left open)');
    expect(md).not.toContain('USER_FEEDBACK');
  });
});
