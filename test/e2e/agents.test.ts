// Sub-agents end to end with the real gemini binary: the task queue under two parallel runners,
// recovery from a killed runner, spawn_gemini fan-out, and chained one-shot runs. Queueing and --dry-run, devx's
// own, run the command in this process (runCliHere).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeGeminiApi, type RecordedRequest } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { fakeEnv, GEMINI_BIN, makeProject, runDevx } from '../helpers/env.js';
import { processesUnder, startDevx as startBg, until } from '../helpers/processes.js';
import { runCliHere, runScripted } from '../helpers/runCliHere.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';

const startDevx = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => startBg(args, cwd, env, children).child;

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

const WORKER = '---\nname: worker\ndescription: does queued jobs\ntools: [read_file, list_directory]\n---\nYou do one small job and report it.\n';
const jobOf = (req: RecordedRequest) => /Task: (job \d+)\./.exec(req.promptText)?.[1];

describe('task queue', () => {
  // 16 tasks for 4 slots: each slot claims four times, against its sibling and the other runner's two (the
  // bench, queueKills, drains hundreds). Each slot starts a gemini, the dearest start: two each, not four.
  it('two runner processes, each --parallel 2, drain 16 tasks and every task runs exactly once', async () => {
    const project = makeProject({ '.devx/agents/worker.md': WORKER });
    const env = fakeEnv(fake, home);
    for (let i = 0; i < 16; i++) {
      const r = await runCliHere(['agent', 'start', 'worker', `job ${i}`], { cwd: project, env, backend: new ScriptedBackend([]) });
      expect(r.stdout).toMatch(/^Task task_\w+ created for agent 'worker' and is now pending\.\n$/);
    }
    fake.fallback = (req) => ({ text: `Finished ${jobOf(req)}.` });
    const a = startDevx(['agent', 'run', '--all', '--parallel', '2'], project, env);
    const b = startDevx(['agent', 'run', '--all', '--parallel', '2'], project, env);
    const codes = await Promise.all([a, b].map((c) => new Promise((r) => c.on('close', r))));
    expect(codes).toEqual([0, 0]);

    const status = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout) as any[];
    expect(status).toHaveLength(16);
    expect(status.every((t) => t.status === 'complete' && t.attempts === 0 && t.runnerDeaths === 0 && t.runs === 1)).toBe(true);
    for (const t of status) {
      expect(t.summary).toBe(`Finished ${t.prompt}.`);
      expect(t.usage.input).toBeGreaterThan(0);
      expect(t.completedAt).toBeDefined();
      const log = fs.readFileSync(path.join(project, t.logFile), 'utf8');
      expect(log.match(/starts run/g)).toHaveLength(1);
      expect(fs.readFileSync(path.join(project, t.planFile), 'utf8')).toBe(`# Plan for worker - ${t.prompt}\n`);
    }
    const perJob = new Map<string, number>();
    for (const r of fake.modelCalls) perJob.set(jobOf(r)!, (perJob.get(jobOf(r)!) ?? 0) + 1);
    expect(perJob.size).toBe(16);
    expect([...perJob.values()].every((n) => n === 1)).toBe(true);
  }, 240_000);

  it('a runner killed with kill -9 mid-task: the task goes back to pending and another runner completes it', async () => {
    const project = makeProject({ '.devx/agents/worker.md': WORKER });
    const env = fakeEnv(fake, home);
    await runDevx(['agent', 'start', 'worker', 'job 1'], { cwd: project, env });
    fake.push({ hang: true });
    const a = startDevx(['agent', 'run'], project, env);
    await until(() => fake.modelCalls.length >= 1);
    const running = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout)[0];
    expect(running).toMatchObject({ status: 'running', owner: { pid: a.pid } });
    a.kill('SIGKILL');
    await new Promise((r) => a.on('close', r));

    const after = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout)[0];
    // The runner's gemini is gone: its group watchdog or the recovery stopped it (whichever came first, on a
    // loaded machine); a SIGKILL lands asynchronously, so a bounded moment.
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000).catch(() => undefined);
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    expect(after).toMatchObject({ status: 'pending', attempts: 0, runnerDeaths: 1 });
    expect(after.error).toBe(`its runner (pid ${a.pid}) died; queued again`);

    fake.push({ text: 'Finished job 1 on the second try.' });
    const b = await runDevx(['agent', 'run'], { cwd: project, env });
    expect(b.code, b.stderr).toBe(0);
    // It answered without a call that changed anything: complete, no changes, the answer shown as the model's claim.
    expect(b.stdout).toMatch(/Orchestrator finished task task_\w+: complete, no changes \(the model said: "Finished job 1 on the second try\."\)\./);
    const done = JSON.parse((await runDevx(['agent', 'status', '--json'], { cwd: project, env })).stdout)[0];
    expect(done).toMatchObject({ status: 'complete', attempts: 0, runnerDeaths: 1, runs: 2, summary: 'Finished job 1 on the second try.' });
  }, 90_000);

  it('cancel and retry', async () => {
    const project = makeProject({ '.devx/agents/worker.md': WORKER });
    const env = fakeEnv(fake, home);
    const id = /Task (task_\w+)/.exec((await runDevx(['agent', 'start', 'worker', 'job 9'], { cwd: project, env })).stdout)![1];
    expect((await runDevx(['agent', 'cancel', id], { cwd: project, env })).stdout).toBe(`Task ${id} is now cancelled.\n`);
    expect((await runDevx(['agent', 'run'], { cwd: project, env })).stdout).toBe('No pending agent tasks found.\n');
    expect((await runDevx(['agent', 'retry', id], { cwd: project, env })).stdout).toBe(`Task ${id} is now pending.\n`);
    const table = (await runDevx(['agent', 'status'], { cwd: project, env })).stdout;
    expect(table.split('\n')[0]).toMatch(/^\| Task ID\s+\| Agent\s+\| Status\s+\| Created At\s+\| Prompt\s+\| Attempts \| Runner deaths \| Why\s+\|$/);
    expect(table).toMatch(new RegExp(`\\| ${id} \\| worker \\| pending \\|`));
  });
});

describe('spawn_gemini', () => {
  it('runs several sub-sessions in parallel with rotated accounts; one failure does not sink the others; depth is limited', async () => {
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.devx', 'settings.json'),
      JSON.stringify({
        accounts: [
          { name: 'one', env: { GEMINI_API_KEY: 'key-1' } },
          { name: 'two', env: { GEMINI_API_KEY: 'key-2' } },
        ],
      }),
    );
    const project = makeProject({});
    fake.push({
      text: 'Fanning out.\nTOOL_CALL: spawn_gemini | query=Research topic A\nTOOL_CALL: spawn_gemini | query=Research topic B\nTOOL_CALL: spawn_gemini | query=Research topic C',
    });
    // A and C answer only once all three sub-sessions have asked (or after a ceiling, which the test then
    // fails on): run one after another, the first would wait for the others and open by the ceiling.
    let asked = 0;
    let allAsked!: () => void;
    const everyoneAsked = new Promise<void>((r) => (allAsked = r));
    const openedBy: string[] = [];
    const heldUntilAllAsked = () =>
      new Promise<void>((open) => {
        const ceiling = setTimeout(() => (openedBy.push('ceiling'), open()), 30_000);
        void everyoneAsked.then(() => (clearTimeout(ceiling), openedBy.push('all asked'), open()));
      });
    const sub = (req: RecordedRequest) => {
      if (++asked === 3) allAsked();
      const topic = /Research topic (\w)/.exec(req.promptText)?.[1];
      if (topic === 'B') return { status: 400 };
      if (topic === 'C') return { text: 'TOOL_CALL: spawn_gemini | query=go deeper', after: heldUntilAllAsked() };
      return { text: `Findings on ${topic}.`, after: heldUntilAllAsked() };
    };
    fake.push(sub, sub, sub);
    fake.push((req) => {
      // The depth-limited sub-agent (topic C) got an error result and now answers.
      expect(req.promptText).toContain('sub-agents cannot spawn further sub-agents');
      return { text: 'Could not go deeper; topic C is shallow.' };
    });
    fake.push((req) => {
      expect(req.promptText).toMatch(/TOOL_RESULT: spawn_gemini \| status=ok \| status=answered\n`+\nFindings on A\./);
      expect(req.promptText).toMatch(/TOOL_RESULT: spawn_gemini \| status=error \| status=error\n`+\n.*400/);
      expect(req.promptText).toContain('Could not go deeper; topic C is shallow.');
      return { text: 'Summary of A and C; B failed.' };
    });
    const r = await runDevx(['run', 'research three topics'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('Summary of A and C; B failed.');
    const subs = fake.modelCalls.filter(
      (c) => /Research topic/.test(c.promptText) && !c.systemText.includes('spawn_gemini |') && !c.promptText.includes('TOOL_RESULT'),
    );
    expect(subs).toHaveLength(3);
    // Parallel: every sub-session asked before the ones held back were answered.
    expect(openedBy).toEqual(['all asked', 'all asked']);
    expect(new Set(fake.modelCalls.map((c) => c.apiKey))).toEqual(new Set(['key-1', 'key-2']));
    expect(r.stderr).toMatch(/\[\d+\] Research topic A/);
    // The audit log records the sub-sessions' tool calls too.
    const audit = fs.readFileSync(path.join(project, '.devx', 'audit.jsonl'), 'utf8');
    expect(audit.match(/"tool":"spawn_gemini"/g)?.length).toBe(4);
  }, 90_000);
});

describe('spawn_gemini with an explicit account', () => {
  it("the seed's account=1 and account=two pin each sub-session's calls to that account; an unknown one says which exist", async () => {
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.devx', 'settings.json'),
      JSON.stringify({
        accounts: [
          { name: 'one', env: { GEMINI_API_KEY: 'key-1' } },
          { name: 'two', env: { GEMINI_API_KEY: 'key-2' } },
        ],
      }),
    );
    const project = makeProject({});
    fake.push({
      text: 'TOOL_CALL: spawn_gemini | query=Research React hooks | account=1\nTOOL_CALL: spawn_gemini | query=Research Vue composition | account=two\nTOOL_CALL: spawn_gemini | query=Research Svelte | account=3',
    });
    const sub = (req: RecordedRequest) => ({ text: `Findings on ${/Research (\w+)/.exec(req.promptText)?.[1]} with ${req.apiKey}.` });
    fake.push(sub, sub);
    fake.push((req) => {
      expect(req.promptText).toContain('Findings on React with key-1.');
      expect(req.promptText).toContain('Findings on Vue with key-2.');
      expect(req.promptText).toMatch(/there is no account "3": the accounts are 1 \(one\), 2 \(two\)/);
      expect(req.promptText).not.toContain('unknown argument');
      return { text: 'Done.' };
    });
    const r = await runDevx(['run', 'research'], { cwd: project, env: fakeEnv(fake, home) });
    expect(r.code, r.stderr).toBe(0);
    const subs = fake.modelCalls.filter(
      (c) => /Research (React|Vue|Svelte)/.test(c.promptText) && !c.systemText.includes('spawn_gemini |') && !c.promptText.includes('TOOL_RESULT'),
    );
    expect(subs.map((c) => [/Research (\w+)/.exec(c.promptText)?.[1], c.apiKey]).sort()).toEqual([
      ['React', 'key-1'],
      ['Vue', 'key-2'],
    ]);
  }, 60_000);
});

describe('one-shot agent runs', () => {
  it('chains steps, passing each final answer to the next; --dry-run shows calls without running them', async () => {
    const project = makeProject({
      '.devx/agents/code-analyzer.md': '---\nname: code-analyzer\ndescription: finds hotspots\n---\nAnalyse.',
      '.devx/agents/optimizer.md': '---\nname: optimizer\ndescription: applies fixes\n---\nOptimise.',
    });
    // gemini through a wrapper that counts its starts: the chain's steps share one warm process.
    const starts = path.join(home, 'gemini-starts.log');
    const wrapper = path.join(home, 'gemini-counted');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${starts}'\nexec '${GEMINI_BIN}' "$@"\n`, { mode: 0o755 });
    const env = { ...fakeEnv(fake, home), DEVX_GEMINI_BIN: wrapper };
    fake.push(
      (req) => {
        expect(req.systemText).toContain('# Your role: the code-analyzer agent');
        return { text: 'Hotspot: the loop in parse().' };
      },
      (req) => {
        expect(req.systemText).toContain('# Your role: the optimizer agent');
        expect(req.promptText).toContain('Input from the previous step (code-analyzer):\nHotspot: the loop in parse().');
        return { text: 'Applied: hoisted the regex.' };
      },
    );
    const r = await runDevx(['agent', 'run', 'code-analyzer', 'find perf hotspots', 'then', 'optimizer', 'apply fixes'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Hotspot: the loop in parse().\nApplied: hoisted the regex.\n');
    expect(fs.readFileSync(starts, 'utf8').trim().split('\n')).toEqual([expect.stringContaining('--acp')]);

    fs.writeFileSync(path.join(project, '.env'), 'TOKEN=secret\n');
    const calls =
      'TOOL_CALL: write_file | path=x.txt | content=hello\nTOOL_CALL: read_file | path=.env\nTOOL_CALL: run_command | cmd=curl https://example.com\nTOOL_CALL: run_command | cmd=ls';
    // What --dry-run shows is devx's own: here, with a scripted model.
    const dry = await runScripted(['agent', 'run', 'optimizer', 'write x', '--dry-run'], { cwd: project, home, replies: [calls] });
    expect(dry.code, dry.stderr).toBe(0);
    // Each call with the policy's decision, the reason and the rule: never a bare ✓.
    expect(dry.stderr).toContain('→ write_file path=x.txt content=hello\n    ? would ask: write_file changes files [tool:write]\n');
    expect(dry.stderr).toMatch(/→ read_file path=\.env\n {4}✗ would deny: .*\[path:[\w:-]+\]\n/);
    expect(dry.stderr).toMatch(/→ run_command cmd=curl https:\/\/example\.com\n {4}✗ would deny: .*\[command:network[\w:-]*\]\n/);
    expect(dry.stderr).toMatch(/→ run_command cmd=ls\n {4}✓ would allow: .*\[command:[\w:-]+\]\n/);
    expect(fs.existsSync(path.join(project, 'x.txt'))).toBe(false);

    const json = await runScripted(['agent', 'run', 'optimizer', 'write x', '--dry-run', '--json'], { cwd: project, home, replies: [calls] });
    const [step] = JSON.parse(json.stdout).steps;
    expect(step.calls.map((c: any) => [c.tool, c.decision, c.ran])).toEqual([
      ['write_file', 'ask', false],
      ['read_file', 'deny', false],
      ['run_command', 'deny', false],
      ['run_command', 'allow', false],
    ]);
    expect(step.calls[0]).toMatchObject({ args: { path: 'x.txt', content: 'hello' }, rule: 'tool:write', reason: 'write_file changes files' });
    expect(step.calls[2].rule).toMatch(/^command:network/);
    expect(fs.existsSync(path.join(project, 'x.txt'))).toBe(false);
  }, 60_000);
});
