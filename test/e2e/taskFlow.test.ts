// The clarification flow: every status of it, context research, Q&A with and without feedback, the
// changelog written by the changelog agent through append_file, a model's bad step (an answer dropped, a
// changelog skipped) and bad input. The flow is devx's own, so it runs `devx task` in this process with a
// scripted model (runCliHere); one planner per folder runs the built devx against the real gemini binary and
// the fake API, which its first step reaches.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeGeminiApi, FakeReply, RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { runCliHere } from '../helpers/runCliHere.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import type { ModelRequest } from '../../src/providers/types.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, inProcessEnv, makeProject, runDevx } from '../helpers/env.js';
import { killUnder, startDevx, until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
let home: string;
useFakeApi((f, h) => {
  fake = f;
  home = h;
});

const ARCH = '# Architecture\n\n## Auth service\nSessions are JWTs signed by auth-svc; password resets revoke them.\n\n## Billing\nInvoices are monthly.\n';
const roleOf = (req: RecordedRequest) => /# Your role: the ([\w-]+) agent/.exec(req.systemText)?.[1];
const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, 'tasks', 'login', f), 'utf8');
const changelogLines = (dir: string) => read(dir, 'changelog.md').split('\n').filter(Boolean);

/** The caller's reply: the changelog call devx asked for, exactly as the prompt gives it (plus anything before it). */
const callChangelog =
  (role: string, before = '') =>
  (req: RecordedRequest) => {
    expect(roleOf(req)).toBe(role);
    const line = /^TOOL_CALL: agent \| name=changelog \| input=.*$/m.exec(req.promptText)![0];
    return { text: `${before}${line}` };
  };

/** The changelog agent's two replies: one append_file call built from its input, then its status. */
const changelogAgent = [
  (req: RecordedRequest) => {
    expect(roleOf(req)).toBe('changelog');
    expect(req.model).toBe('gemini-2.5-flash');
    const m = /Append to (\S+) with timestamp (\S+) the entry: (.*)$/m.exec(req.promptText)!;
    return { text: `TOOL_CALL: append_file | path=${m[1]} | content=- ${m[2]} ${m[3]}` };
  },
  (req: RecordedRequest) => {
    expect(req.promptText).toMatch(/TOOL_RESULT: append_file \| status=ok/);
    return { text: '{"status": "success"}' };
  },
];

const qnaFile = (answer1 = 'USER FEEDBACK REQUIRED') =>
  [
    '# Questions and answers',
    '',
    '## Assumptions',
    '- Only the web login is affected.',
    '',
    '## Questions',
    '',
    '### 1. Which reset channels exist: email, SMS, or both?',
    '<!-- USER_FEEDBACK_START -->',
    answer1,
    '<!-- USER_FEEDBACK_END -->',
    '',
    '### 2. Should existing sessions survive a reset?',
    '<!-- USER_FEEDBACK_START -->',
    'USER FEEDBACK REQUIRED',
    '<!-- USER_FEEDBACK_END -->',
    '',
  ].join('\n');

async function devx(dir: string, ...args: string[]) {
  return runDevx(['task', ...args], { cwd: dir, env: fakeEnv(fake, home) });
}

type Reply = FakeReply | ((req: RecordedRequest) => FakeReply);
/** The scripted model's request as the fake API records one, so one set of replies serves both. */
const recorded = (req: ModelRequest) => ({ systemText: req.systemPrompt, promptText: req.prompt, model: req.model }) as RecordedRequest;
/** `devx task …` in this process (runCliHere), the model replying `replies` in turn; the roles it was asked as. */
async function here(dir: string, replies: Reply[], ...args: string[]) {
  const text = (r: FakeReply) => ('text' in r && typeof r.text === 'string' ? r.text : '');
  const model = new ScriptedBackend(replies.map((r) => (req: ModelRequest) => text(typeof r === 'function' ? r(recorded(req)) : r)));
  const r = await runCliHere(['task', ...args], { cwd: dir, env: inProcessEnv(home), backend: model });
  return { ...r, roles: model.requests.map((q) => roleOf(recorded(q))) };
}

describe('devx task: the clarification flow', () => {
  it('walks every status: context research, review, questions, no feedback, feedback, ready', async () => {
    const dir = makeProject({ 'tech_architecture.md': ARCH, 'src/auth/reset.ts': 'export {}\n' });
    const created = await here(dir, [], 'new', 'tasks/login', 'Login fails after a password reset');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe('Created tasks/login/task_description.md. Next: devx task next tasks/login\n');

    // 1. No task_status.md: context research.
    const research = await here(
      dir,
      [
        (req) => {
          expect(roleOf(req)).toBe('context-researcher');
          expect(req.model).toBe('gemini-2.5-flash');
          expect(req.promptText).toContain('Login fails after a password reset');
          expect(req.promptText).toContain('Sessions are JWTs signed by auth-svc');
          expect(req.promptText).toContain('src/auth/reset.ts');
          // A user file the step does not own: refused, never run.
          return { text: 'TOOL_CALL: write_file | path=tasks/login/task_description.md | content=overwritten' };
        },
        (req) => {
          expect(req.promptText).toMatch(/TOOL_RESULT: write_file \| status=error\n`+\nnot run: write_file needs approval/);
          return callChangelog('context-researcher')(req);
        },
        ...changelogAgent,
        (req) => {
          expect(req.promptText).toMatch(/TOOL_RESULT: agent \| status=ok \| agent=changelog \| status=answered\n`+\n\{"status": "success"\}/);
          return { text: '## Auth service\nSessions are JWTs signed by auth-svc; password resets revoke them.' };
        },
      ],
      'next',
      'tasks/login',
    );
    expect(research.code, research.stderr).toBe(0);
    expect(research.roles).toHaveLength(5);
    expect(research.stdout).toContain('Wrote tasks/login/task_context.md and tasks/login/task_status.md (AWAITING_CONTEXT_REVIEW).');
    expect(research.stdout).toContain(
      'Initial context generated in `task_context.md`. Please review/update and then change `task_status.md` to `AWAITING_QUESTIONS`.',
    );
    expect(read(dir, 'task_description.md')).toBe('Login fails after a password reset\n');
    const context = read(dir, 'task_context.md');
    expect(context).toContain('## Task description\nLogin fails after a password reset\n');
    expect(context).toContain('## Architecture context\n_Extracted from tech_architecture.md._\n\n## Auth service\nSessions are JWTs');
    expect(context).not.toContain('Invoices are monthly');
    expect(context).toMatch(/## Files\nThe first \d+ of \d+ files in the project:\n\n(- .*\n)*- src\/auth\/reset\.ts\n/);
    expect(read(dir, 'task_status.md')).toBe('AWAITING_CONTEXT_REVIEW\n# Note: After reviewing context, update this status to AWAITING_QUESTIONS\n');
    expect(changelogLines(dir)).toEqual([expect.stringMatching(/^- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z Generated initial context, awaiting review\.$/)]);
    const audit = fs.readFileSync(path.join(dir, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit).toMatch(/"tool":"append_file"/);

    // 2. AWAITING_CONTEXT_REVIEW: tell the user what to review, stop, no model call.
    const review = await here(dir, [], 'next', 'tasks/login');
    expect(review.code).toBe(0);
    expect(review.stdout).toContain('Initial context generated in `task_context.md`.');
    expect(review.stdout).toContain('Review tasks/login/task_context.md');
    expect(review.roles).toEqual([]);

    // 3. The user sets AWAITING_QUESTIONS: the qna agent writes the questions (no --yes needed for its own file).
    fs.writeFileSync(path.join(dir, 'tasks/login/task_status.md'), 'AWAITING_QUESTIONS\n');
    const questions = await here(
      dir,
      [
        (req) => {
          expect(req.model).toBe('gemini-2.5-pro');
          expect(req.promptText).toContain('## Auth service');
          expect(req.promptText).toContain('(none yet: write the first version)');
          return callChangelog('qna', `TOOL_CALL: write_file | path=tasks/login/questions-and-answers.md | content=\`\`\`\n${qnaFile()}\`\`\`\n`)(req);
        },
        ...changelogAgent,
        { text: 'Two questions for you.\nSTATUS: AWAITING_USER_FEEDBACK' },
      ],
      'next',
      'tasks/login',
    );
    expect(questions.code, questions.stderr).toBe(0);
    expect(questions.roles).toHaveLength(4);
    expect(questions.stdout).toContain('Wrote tasks/login/questions-and-answers.md: 2 question(s), 2 awaiting your feedback. Status: AWAITING_USER_FEEDBACK.');
    expect(read(dir, 'questions-and-answers.md')).toBe(qnaFile());
    expect(read(dir, 'task_status.md')).toMatch(/^AWAITING_USER_FEEDBACK\n# Note: After providing feedback/);
    expect(changelogLines(dir)[1]).toMatch(/^- \S+Z Generated initial questions\.$/);

    // 4. AWAITING_USER_FEEDBACK with only placeholders: no model call, no changelog entry.
    const none = await here(dir, [], 'next', 'tasks/login');
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^Checked Q&A file; no new user feedback provided yet\.\n/);
    expect(none.roles).toEqual([]);
    expect(changelogLines(dir)).toHaveLength(2);

    // 5. The user answers question 1: devx parses it and gives it to the model; the answer is kept.
    fs.writeFileSync(path.join(dir, 'tasks/login/questions-and-answers.md'), qnaFile('Email only; SMS is not offered.'));
    const updated = qnaFile('Email only; SMS is not offered.').replace(
      '### 2. Should existing sessions survive a reset?\n<!-- USER_FEEDBACK_START -->\nUSER FEEDBACK REQUIRED',
      '### 2. Should existing sessions survive a reset?\n<!-- USER_FEEDBACK_START -->\nAssumed: no (answered by the JWT revocation rule).',
    );
    const feedback = await here(
      dir,
      [
        (req) => {
          expect(req.promptText).toContain(
            '- Question: ### 1. Which reset channels exist: email, SMS, or both? (line 9)\n  Feedback: Email only; SMS is not offered.',
          );
          return callChangelog('qna', `TOOL_CALL: write_file | path=tasks/login/questions-and-answers.md | content=\`\`\`\n${updated}\`\`\`\n`)(req);
        },
        ...changelogAgent,
        { text: 'Everything a PRD needs is answered.\nSTATUS: READY_FOR_PRD' },
      ],
      'next',
      'tasks/login',
    );
    expect(feedback.code, feedback.stderr).toBe(0);
    expect(feedback.roles).toHaveLength(4);
    expect(read(dir, 'task_status.md')).toMatch(/^READY_FOR_PRD\n# Note: Q&A complete/);
    expect(read(dir, 'questions-and-answers.md')).toContain('Email only; SMS is not offered.');
    expect(changelogLines(dir)[2]).toMatch(/^- \S+Z Processed feedback, updated Q&A\.$/);
    expect(feedback.stdout).toContain('Q&A ready for user review and next step assignment.');

    // 6. READY_FOR_PRD: say so and stop; the pipeline's input is available.
    const ready = await here(dir, [], 'next', 'tasks/login');
    expect(ready.code).toBe(0);
    expect(ready.stdout).toMatch(/^Q&A ready for user review and next step assignment\.\n/);
    expect(ready.roles).toEqual([]);
    const input = await here(dir, [], 'input', 'tasks/login');
    expect(input.stdout).toContain('**Answer:** Email only; SMS is not offered.');
    expect(input.stdout).toContain('Login fails after a password reset');
  }, 180_000);

  it('an unknown status is an error naming the file and the allowed values, with no model call', async () => {
    const dir = makeProject({ 'tasks/login/task_description.md': 'x\n', 'tasks/login/task_status.md': 'DONE\n' });
    const r = await devx(dir, 'next', 'tasks/login');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'devx: tasks/login/task_status.md line 1: unknown status "DONE"; allowed values: AWAITING_CONTEXT_REVIEW, AWAITING_QUESTIONS, AWAITING_USER_FEEDBACK, READY_FOR_PRD\n',
    );
    fs.writeFileSync(path.join(dir, 'tasks/login/task_status.md'), '');
    expect((await devx(dir, 'next', 'tasks/login')).stderr).toMatch(/task_status\.md line 1: the status is empty/);
    expect(fake.modelCalls).toHaveLength(0);
  });

  it('hand-broken feedback markers: an error naming the file and line, nothing overwritten, no model call', async () => {
    const broken = qnaFile('I answered but deleted the end marker').replace('<!-- USER_FEEDBACK_END -->\n\n### 2', '\n### 2');
    const dir = makeProject({
      'tasks/login/task_description.md': 'x\n',
      'tasks/login/task_context.md': 'ctx\n',
      'tasks/login/task_status.md': 'AWAITING_USER_FEEDBACK\nmy note\n',
      'tasks/login/questions-and-answers.md': broken,
    });
    const r = await devx(dir, 'next', 'tasks/login');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'devx: tasks/login/questions-and-answers.md line 13: a second USER_FEEDBACK_START before the block opened on line 9 (the answer to "### 1. Which reset channels exist: email, SMS, or both?") was closed with <!-- USER_FEEDBACK_END -->; close that block, or, if its answer holds the marker comment itself, take it out (an answer may mention USER_FEEDBACK_START in words, not hold a marker comment)\n',
    );
    expect(read(dir, 'questions-and-answers.md')).toBe(broken);
    expect(read(dir, 'task_status.md')).toBe('AWAITING_USER_FEEDBACK\nmy note\n');
    expect(fs.existsSync(path.join(dir, 'tasks/login/changelog.md'))).toBe(false);
    expect(fake.modelCalls).toHaveLength(0);
  });

  it('a model that drops an answer: the file is restored, the status kept and its changelog entry taken back; one that skips the changelog: devx writes the line and says so', async () => {
    const earlier = '- 2026-01-01T00:00:00.000Z Generated initial questions.\n';
    const dir = makeProject({
      'tasks/login/task_description.md': 'x\n',
      'tasks/login/task_context.md': 'ctx\n',
      'tasks/login/task_status.md': 'AWAITING_USER_FEEDBACK\n',
      'tasks/login/questions-and-answers.md': qnaFile('Email only.'),
      'tasks/login/changelog.md': earlier,
    });
    // It rewords the answer and records the step in the changelog, as asked: the step does not stand.
    const dropped = await here(
      dir,
      [
        callChangelog('qna', `TOOL_CALL: write_file | path=tasks/login/questions-and-answers.md | content=\`\`\`\n${qnaFile()}\`\`\`\n`),
        ...changelogAgent,
        { text: 'STATUS: AWAITING_USER_FEEDBACK' },
      ],
      'next',
      'tasks/login',
    );
    expect(dropped.code).toBe(1);
    expect(dropped.stderr).toContain('Q&A stopped: the qna agent dropped or reworded the answer(s) on line 9; answered questions must keep their answers.');
    expect(dropped.roles).toEqual(['qna', 'changelog', 'changelog', 'qna']);
    expect(read(dir, 'questions-and-answers.md')).toBe(qnaFile('Email only.'));
    expect(read(dir, 'task_status.md')).toBe('AWAITING_USER_FEEDBACK\n');
    expect(read(dir, 'changelog.md')).toBe(earlier);

    const skipped = await here(
      dir,
      [
        {
          text: `TOOL_CALL: write_file | path=tasks/login/questions-and-answers.md | content=\`\`\`\n${qnaFile('Email only.')}\n### 3. More?\n<!-- USER_FEEDBACK_START -->\nUSER FEEDBACK REQUIRED\n<!-- USER_FEEDBACK_END -->\n\`\`\``,
        },
        { text: 'STATUS: AWAITING_USER_FEEDBACK' },
      ],
      'next',
      'tasks/login',
    );
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toContain('devx: warning: the qna agent did not record a changelog entry; devx added it to tasks/login/changelog.md');
    expect(changelogLines(dir)).toEqual([
      earlier.trim(),
      expect.stringMatching(/^- \S+Z Processed feedback, updated Q&A\. \(recorded by devx: the qna agent did not call the changelog agent\)$/),
    ]);
    // The answer it has now seen is not "new" next time.
    const again = await here(dir, [], 'next', 'tasks/login');
    expect(again.stdout).toMatch(/^Checked Q&A file; no new user feedback provided yet\./);
    expect(again.roles).toEqual([]);
  }, 90_000);

  it('one planner per folder: a second one exits 4 while the first works; an existing task_context.md is never replaced', async () => {
    const dir = makeProject({ 'tasks/login/task_description.md': 'x\n' });
    fake.push({ hang: true });
    const first = startDevx(['task', 'next', 'tasks/login'], dir, fakeEnv(fake, home), []);
    try {
      await until(() => fake.modelCalls.length === 1);
      const second = await devx(dir, 'next', 'tasks/login');
      expect(second.code).toBe(4);
      expect(second.stderr).toBe('devx: another devx task next is working on tasks/login; wait for it to finish\n');
    } finally {
      first.child.kill('SIGKILL');
      killUnder(path.join(home, '.devx'));
    }
    expect(fs.existsSync(path.join(dir, 'tasks/login/task_status.md'))).toBe(false);
    fs.writeFileSync(path.join(dir, 'tasks/login/task_context.md'), 'my own context\n');
    fs.rmSync(path.join(dir, 'tasks/login/.devx-task.lock'), { recursive: true, force: true }); // the killed planner's lock (it would go stale in 30 s)
    const r = await devx(dir, 'next', 'tasks/login');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tasks/login/task_context.md exists but tasks/login/task_status.md is missing');
    expect(read(dir, 'task_context.md')).toBe('my own context\n');
    expect(fake.modelCalls).toHaveLength(1);
  }, 60_000);

  it('task new refuses to overwrite a description', async () => {
    const dir = makeProject({ 'tasks/login/task_description.md': 'mine\n' });
    const r = await devx(dir, 'new', 'tasks/login', 'other');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tasks/login/task_description.md already exists');
    expect(read(dir, 'task_description.md')).toBe('mine\n');
  });
});

describe('builtin agents on the command line', () => {
  it('agent list shows the shipped roles; rm refuses them; a template still creates an agent', async () => {
    const dir = makeProject({});
    const env = fakeEnv(fake, home);
    const list = await runDevx(['agent', 'list'], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^changelog\s+builtin devx\s+Appends one timestamped entry/m);
    expect(list.stdout).toMatch(/^qna\s+builtin/m);
    const rm = await runDevx(['agent', 'rm', 'changelog'], { cwd: dir, env });
    expect(rm.code).toBe(2);
    expect(rm.stderr).toContain('"changelog" is a builtin agent');
    const created = await runDevx(['agent', 'create', '--template', 'code-reviewer', '--name', 'rev', '--scope', 'project'], { cwd: dir, env });
    expect(created.code, created.stderr).toBe(0);
    expect(fs.readFileSync(path.join(dir, '.devx', 'agents', 'rev.md'), 'utf8')).toMatch(/^---\nname: rev\n/);
    expect(fake.modelCalls).toHaveLength(0);
  });
});
