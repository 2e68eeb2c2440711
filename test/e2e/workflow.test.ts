// The dev pipeline end to end: the real gemini binary against the scripted fake API, in real temp git
// repositories. Each step's replies are chosen by the step name devx puts in the prompt. What needs the
// process (its exit codes, kill -9, Ctrl-C, the REPL, the merge) is here; the engine's routing (back-edges,
// caps, repairs, gates, pauses, the test command) runs in-process in test/integration/workflowEngine.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type FakeGeminiApi, type FakeReply, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { fakeEnv, GEMINI_BIN, makeProject, runDevx } from '../helpers/env.js';
import { startDevx as startBg, until } from '../helpers/processes.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

const BUGGY = 'exports.check = (stored, given) => stored === given + " ";\n';
const FIXED = 'exports.check = (stored, given) => stored === given;\n';
const TEST =
  "const { check } = require('./src/login.js');\nif (!check('pw', 'pw')) { console.error('login fails after reset'); process.exit(1); }\nconsole.log('ok');\n";

/** The project, with its test command in the user's settings (a project's own needs `devx trust`). */
function repo(userSettings: Record<string, unknown> = {}): string {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ testCommand: 'node test.js', ...userSettings }));
  return makeProject({ 'src/login.js': BUGGY, 'test.js': TEST });
}

const env = (extra: Record<string, string> = {}) =>
  fakeEnv(fake, home, {
    GIT_AUTHOR_NAME: 'Dev Eloper',
    GIT_AUTHOR_EMAIL: 'dev@example.com',
    GIT_COMMITTER_NAME: 'Dev Eloper',
    GIT_COMMITTER_EMAIL: 'dev@example.com',
    ...extra,
  });
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const stepOf = (r: RecordedRequest) => /, step ([A-Z_]+)\n/.exec(r.promptText)?.[1] ?? '?';
const inTool = (r: RecordedRequest) => r.promptText.includes('TOOL_RESULT');
const callsOf = (step: string) => fake.modelCalls.filter((r) => stepOf(r) === step);

const commitCalls = (content: string) =>
  `TOOL_CALL: write_file | path=src/login.js | content=\`\`\`\n${content}\`\`\`\nTOOL_CALL: run_command | cmd=git add src/login.js && git commit -q -m "Fix login after a reset"\nTOOL_CALL: run_command | cmd=git rev-parse HEAD`;
const hashIn = (r: RecordedRequest) => [...r.promptText.matchAll(/\b[0-9a-f]{40}\b/g)].at(-1)![0];

type Router = Record<string, (r: RecordedRequest, nth: number) => FakeReply>;
/** Replies by step; `nth` counts this step's model calls that started the step (not tool rounds). */
function route(router: Router): void {
  const seen = new Map<string, number>();
  fake.fallback = (r) => {
    const s = stepOf(r);
    const n = inTool(r) ? (seen.get(s) ?? 1) : (seen.get(s) ?? 0) + 1;
    seen.set(s, n);
    const f = router[s];
    if (!f) throw new Error(`no reply scripted for step ${s}`);
    return f(r, n);
  };
}

const HAPPY: Router = {
  INVESTIGATE: () => ({ text: 'MARK-INVESTIGATE: check() in src/login.js:1 appends a space to the given password.' }),
  ANALYST_REVIEW: () => ({ text: 'MARK-ANALYST the cause is shown.\n{"verdict": "APPROVE"}' }),
  PLAN: () => ({ text: 'MARK-PLAN: compare the passwords as given; test.js covers it.' }),
  PLAN_REVIEW: () => ({ text: 'MARK-PLANREVIEW sound.\n```json\n{"verdict": "APPROVE"}\n```' }),
  CODE: (r) => (inTool(r) ? { text: `MARK-CODE done.\n{"commit_hash": "${hashIn(r)}", "tests_passed": true}` } : { text: commitCalls(FIXED) }),
  AUDIT: () => ({ text: 'MARK-AUDIT the change matches the plan.\n{"verdict": "PASS"}' }),
};

function state(project: string, id: string) {
  return JSON.parse(fs.readFileSync(path.join(project, '.devx', 'workflows', id, 'state.json'), 'utf8'));
}
const idOf = (stderr: string) => /workflow (wf-\d{8}-[0-9a-f]{6})/.exec(stderr)![1];

describe('devx workflow: the dev pipeline', () => {
  it('bugfix happy path: every step committed on a task branch, merged back with --no-ff, artifacts archived, no conversation shared', async () => {
    const project = repo();
    const base = git(project, 'branch', '--show-current');
    route(HAPPY);
    // gemini through a wrapper that counts its starts: the steps' many calls share warm processes.
    const starts = path.join(home, 'gemini-starts.log');
    const wrapper = path.join(home, 'gemini-counted');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${starts}'\nexec '${GEMINI_BIN}' "$@"\n`, { mode: 0o755 });
    const r = await runDevx(['workflow', 'run', '--mode', 'bugfix', 'login fails after a password reset'], {
      cwd: project,
      env: env({ DEVX_GEMINI_BIN: wrapper }),
      timeoutMs: 180_000,
    });
    expect(r.stderr).toContain('is done');
    expect(r.code).toBe(0);
    expect(fake.modelCalls.length).toBeGreaterThan(6);
    // One warm process per model the steps use (its model is fixed when it starts), not one per call.
    const models = [...new Set(fake.modelCalls.map((c) => c.model))].sort();
    const started = fs.readFileSync(starts, 'utf8').trim().split('\n');
    expect(started.every((l) => l.includes('--acp'))).toBe(true);
    expect(started.map((l) => /--model=(\S+)/.exec(l)?.[1]).sort()).toEqual(models);
    const id = idOf(r.stderr);
    const s = state(project, id);
    expect(s.status).toBe('done');
    expect(s.steps.map((x: any) => `${x.step}:${x.outcome}`)).toEqual([
      'INVESTIGATE:next',
      'ANALYST_REVIEW:APPROVE',
      'PLAN:next',
      'PLAN_REVIEW:APPROVE',
      'CODE:next',
      'AUDIT:PASS',
    ]);
    expect(s.git.branch).toBe(`task/${id}-login-fails-after-a-password-reset`);

    // Back on the base branch, with the fix merged by a real merge commit.
    expect(git(project, 'branch', '--show-current')).toBe(base);
    expect(fs.readFileSync(path.join(project, 'src/login.js'), 'utf8')).toBe(FIXED);
    expect(git(project, 'log', '-1', '--format=%P').split(' ')).toHaveLength(2);
    const log = git(project, 'log', `${base}`, '--format=%an|%s', '--no-merges').split('\n');
    for (const step of [
      'INVESTIGATE',
      'ANALYST_REVIEW (lead-analyst): APPROVE',
      'PLAN (architect)',
      'PLAN_REVIEW (lead-architect): APPROVE',
      'AUDIT (auditor): PASS',
      'Archive the artifacts',
    ]) {
      expect(log.some((l) => l.startsWith('devx workflow|') && l.includes(step))).toBe(true);
    }
    expect(log).toContain('Dev Eloper|Fix login after a reset');
    // The verdicts are in the commit messages.
    expect(git(project, 'log', base, '--format=%B', '--grep=PLAN_REVIEW')).toContain('Verdict: {"verdict":"APPROVE"}');

    // Artifacts moved to the archive; the working folders are empty.
    const archive = path.join(project, 'docs/dev_docs/archived', id);
    expect(fs.readdirSync(archive).sort()).toEqual([
      `${id}-analysis-review.md`,
      `${id}-audit.md`,
      `${id}-diagnosis.md`,
      `${id}-plan-review.md`,
      `${id}-plan.md`,
    ]);
    expect(fs.readFileSync(path.join(archive, `${id}-diagnosis.md`), 'utf8')).toContain('MARK-INVESTIGATE');
    expect(fs.readFileSync(path.join(archive, `${id}-plan-review.md`), 'utf8')).not.toContain('"verdict"');
    expect(fs.existsSync(path.join(project, 'docs/dev_docs/plans', `${id}-plan.md`))).toBe(false);
    expect(
      git(project, 'status', '--porcelain')
        .split('\n')
        .filter((l) => l && !l.includes('.devx/')),
    ).toEqual([]);

    // Each step saw only the artifacts it reads, never another step's conversation.
    const readers: Record<string, string[]> = {
      'MARK-INVESTIGATE': ['INVESTIGATE', 'ANALYST_REVIEW', 'PLAN'],
      'MARK-PLAN:': ['PLAN', 'PLAN_REVIEW', 'CODE', 'AUDIT'],
      'MARK-ANALYST': ['ANALYST_REVIEW'],
      'MARK-PLANREVIEW': ['PLAN_REVIEW'],
      'MARK-CODE': ['CODE'],
      'TOOL_CALL: write_file': ['CODE'],
    };
    for (const req of fake.modelCalls) {
      for (const [mark, allowed] of Object.entries(readers)) {
        if (allowed.includes(stepOf(req))) continue;
        expect(req.promptText.includes(mark), `${stepOf(req)}'s prompt holds ${mark}`).toBe(false);
      }
    }
    // Per-role models: the investigator's own (Flash), the workflow's default (Pro) elsewhere.
    expect(callsOf('INVESTIGATE')[0].model).toBe('gemini-2.5-flash');
    expect(callsOf('PLAN')[0].model).toBe('gemini-2.5-pro');
    expect(s.steps[0].tokens.input).toBeGreaterThan(0);

    const status = await runDevx(['workflow', 'status', id], { cwd: project, env: env() });
    expect(status.stdout).toMatch(/✓ AUDIT\s+auditor\s+1×/);
    expect(status.stdout).toMatch(/· RESEARCH/);
  }, 240_000);
  it('kill -9 of the orchestrator mid-step: its gemini dies with it, and resume redoes only that step', async () => {
    const project = repo();
    let hang = true;
    route({ PLAN: () => ({ text: 'A plan.' }), PLAN_REVIEW: () => (hang ? { hang: true } : { text: '{"verdict": "APPROVE"}' }) });
    const { child } = startBg(['workflow', 'run', '--mode', 'direct', '--gate', 'PLAN_REVIEW', 'add a remember-me box'], project, env(), children);
    await until(() => callsOf('PLAN_REVIEW').length === 1, 60_000);
    const id = fs.readdirSync(path.join(project, '.devx', 'workflows'))[0];
    const lock = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'workflows', id, 'lock'), 'utf8'));
    expect(lock.children.length).toBeGreaterThan(0);
    process.kill(child.pid!, 'SIGKILL');
    await new Promise((res) => child.on('close', res));
    // The orchestrator's children watch it (util/groupWatchdog.ts): they are gone without waiting for a resume.
    const orphans = lock.children as number[];
    await until(() => !orphans.some((g) => alive(-g)), 30_000);
    // Nothing runs it: status says so, and how to go on (not "running").
    const status = await runDevx(['workflow', 'status'], { cwd: project, env: env() });
    expect(status.stdout).toContain(`${id}  dev-pipeline (direct)  interrupted at PLAN_REVIEW (run devx workflow resume ${id})  `);
    const json = JSON.parse((await runDevx(['workflow', 'status', id, '--json'], { cwd: project, env: env() })).stdout);
    expect(json).toMatchObject({ status: 'interrupted', current: 'PLAN_REVIEW', resume: `devx workflow resume ${id}` });
    expect(state(project, id).status).toBe('running'); // the stored state is untouched
    hang = false;
    const again = await runDevx(['workflow', 'resume', id], { cwd: project, env: env(), timeoutMs: 120_000 });
    expect(again.stderr).toContain('waiting at the gate after PLAN_REVIEW');
    expect(orphans.some((g) => alive(-g))).toBe(false);
    expect(callsOf('PLAN')).toHaveLength(1);
    expect(callsOf('PLAN_REVIEW')).toHaveLength(2);
    expect(state(project, id).steps.map((x: any) => x.step)).toEqual(['PLAN', 'PLAN_REVIEW']);
  }, 180_000);

  it('refuses a dirty tree, and a definition with an unknown role, a missing step or an uncapped cycle, naming file and line', async () => {
    const project = repo();
    fs.writeFileSync(path.join(project, 'src/login.js'), FIXED);
    const dirty = await runDevx(['workflow', 'run', '--mode', 'bugfix', 'x'], { cwd: project, env: env() });
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain('uncommitted changes (src/login.js)');
    expect(fake.modelCalls).toHaveLength(0);

    const defs = path.join(project, '.devx', 'workflows');
    fs.mkdirSync(defs, { recursive: true });
    fs.writeFileSync(path.join(defs, 'a.yaml'), 'name: a\nsteps:\n  ONE:\n    role: nobody\n');
    fs.writeFileSync(path.join(defs, 'b.yaml'), 'name: b\nsteps:\n  ONE:\n    role: architect\n    next: TWO\n');
    fs.writeFileSync(
      path.join(defs, 'c.yaml'),
      'name: c\nmaxLoops: none\nsteps:\n  ONE:\n    role: architect\n    next: TWO\n  TWO:\n    role: lead-architect\n    verdict: approve_reject\n    on:\n      APPROVE: $done\n      REJECT: ONE\n',
    );
    const list = await runDevx(['workflow', 'list'], { cwd: project, env: env() });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`${path.join(defs, 'a.yaml')}:4: unknown role "nobody"`);
    expect(list.stderr).toContain(`${path.join(defs, 'b.yaml')}:5: transition to a missing step "TWO"`);
    expect(list.stderr).toContain(`${path.join(defs, 'c.yaml')}:12: the cycle ONE -> TWO -> ONE has no cap`);
    expect(list.stdout).toContain('dev-pipeline');
  }, 60_000);
});

describe('devx workflow: around the pipeline', () => {
  it("--from-task starts the pipeline at PLAN with the task's description, context and answered Q&A; an unready task is refused", async () => {
    const q = (a: string) =>
      `# Questions and answers\n\n## Questions\n\n### 1. Which channels?\n<!-- USER_FEEDBACK_START -->\n${a}\n<!-- USER_FEEDBACK_END -->\n`;
    const project = makeProject({
      'src/login.js': BUGGY,
      'tasks/login/task_description.md': 'TASK-DESC login fails after a reset\n',
      'tasks/login/task_context.md': '# Context\nCTX-MARK\n',
      'tasks/login/questions-and-answers.md': q('ANSWER-MARK email only'),
      'tasks/login/task_status.md': 'AWAITING_USER_FEEDBACK\n',
    });
    const refused = await runDevx(['workflow', 'run', '--from-task', 'tasks/login'], { cwd: project, env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('must be READY_FOR_PRD');
    fs.writeFileSync(path.join(project, 'tasks/login/task_status.md'), 'READY_FOR_PRD\n');
    git(project, 'add', '-A');
    git(project, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'task ready');
    route({ PLAN: () => ({ text: 'A plan.' }) });
    const r = await runDevx(['workflow', 'run', '--from-task', 'tasks/login', '--gate', 'PLAN'], { cwd: project, env: env(), timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('(dev-pipeline, direct)');
    const plan = callsOf('PLAN')[0].promptText;
    for (const mark of ['TASK-DESC', 'CTX-MARK', 'ANSWER-MARK email only']) expect(plan).toContain(mark);
    expect(fake.modelCalls).toHaveLength(1);
  }, 120_000);

  it('/workflow works in the REPL; status --json and log read the state; cancel ends it', async () => {
    const project = repo();
    route({ PLAN: () => ({ text: 'A plan.' }) });
    const r = await runDevx([], {
      cwd: project,
      env: env(),
      input: '/workflow list\n/workflow run --mode direct --gate PLAN "add a remember-me box"\n/exit\n',
      timeoutMs: 120_000,
    });
    expect(r.stdout).toContain('dev-pipeline');
    const id = idOf(r.stderr);
    expect(r.stderr).toContain('waiting at the gate after PLAN');
    const st = JSON.parse((await runDevx(['workflow', 'status', id, '--json'], { cwd: project, env: env() })).stdout);
    expect(st).toMatchObject({ id, status: 'paused', gate: { after: 'PLAN', next: 'PLAN_REVIEW' } });
    const log = await runDevx(['workflow', 'log', id], { cwd: project, env: env() });
    expect(log.stdout).toMatch(/1\. PLAN \(architect, gemini-2\.5-pro\)/);
    const c = await runDevx(['workflow', 'cancel', id], { cwd: project, env: env() });
    expect(c.stdout).toContain(`Workflow ${id} is cancelled`);
    expect((await runDevx(['workflow', 'resume', id], { cwd: project, env: env() })).stderr).toContain('was cancelled');
    const missing = await runDevx(['workflow', 'status', 'wf-nope'], { cwd: project, env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no workflow "wf-nope"');
  }, 120_000);
});

describe('devx workflow: interruptions and faults', () => {
  it('Ctrl-C pauses the step (exit 130, no gemini left); a second orchestrator on a running workflow is refused (exit 4)', async () => {
    const project = repo();
    route({ PLAN: () => ({ hang: true }) });
    const { child } = startBg(['workflow', 'run', '--mode', 'direct', 'add a remember-me box'], project, env(), children);
    await until(() => callsOf('PLAN').length === 1, 60_000);
    const id = fs.readdirSync(path.join(project, '.devx', 'workflows')).find((n) => n.startsWith('wf-'))!;
    const busy = await runDevx(['workflow', 'resume', id], { cwd: project, env: env() });
    expect(busy.code).toBe(4);
    expect(busy.stderr).toContain(`workflow ${id} is being run by process ${child.pid}`);
    const groups = JSON.parse(fs.readFileSync(path.join(project, '.devx', 'workflows', id, 'lock'), 'utf8')).children as number[];
    child.kill('SIGINT');
    const code = await new Promise((res) => child.on('close', res));
    expect(code).toBe(130);
    expect(state(project, id)).toMatchObject({ status: 'paused', current: 'PLAN' });
    expect(state(project, id).reason).toContain('cancelled during step PLAN');
    expect(groups.some((g) => alive(-g))).toBe(false);
    expect(fs.existsSync(path.join(project, '.devx', 'workflows', id, 'lock'))).toBe(false);
  }, 120_000);
});

/** Whether a process group (given as -pgid) has a live member; zombies awaiting their reaper do not count. */
function alive(negPgid: number): boolean {
  const pgid = -negPgid;
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pgid && rest[0] !== 'Z' && rest[0] !== 'X') return true;
    } catch {
      // gone while we looked
    }
  }
  return false;
}
