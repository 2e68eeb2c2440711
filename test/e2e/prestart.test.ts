// The head start of a one-shot run (src/util/prestart.ts): the real devx binary and the real gemini
// against the fake API. The first run records its launch; the next starts gemini before devx has loaded
// and hands it the call only when its own launch is exactly the same.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GEMINI_BIN, fakeEnv, makeProject, runDevx, tempDir, type DevxRun } from '../helpers/env.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { processesUnder, until } from '../helpers/processes.js';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { spawn } from 'node:child_process';
import { DEVX_BIN } from '../helpers/env.js';

let fake: FakeGeminiApi;
let home: string;
const children = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});

const env = (extra: Record<string, string> = {}) => fakeEnv(fake, home, { DEVX_DEBUG: '1', ...extra });
const plans = () => {
  const dir = path.join(home, '.devx', 'run', 'launch-plans');
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')) : [];
};
const ADOPTED = 'the model CLI started ahead was adopted';

async function runOk(args: string[], project: string, extra: Record<string, string> = {}): Promise<DevxRun> {
  const r = await runDevx(args, { cwd: project, env: env(extra) });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('the head start of devx run', () => {
  it('records the warm launch after the first run; the next run hands all its calls to the gemini started ahead', async () => {
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'first answer' });
    const first = await runOk(['run', 'say something'], project);
    expect(first.stderr).not.toContain('started gemini ahead');
    expect(first.stderr).toContain('recorded the launch plan');
    const [plan] = plans();
    expect(JSON.parse(plan)).toMatchObject({ file: GEMINI_BIN, cwd: '{{DEVX_RUN}}/gemini/warm-0/scratch', protocol: true });
    expect(JSON.parse(plan).args).toContain('--acp');
    expect(plan).not.toContain('test-key'); // the API key comes from the environment; it is never written down
    // devx's system prompt is in the plan, so the head start never waits for it.
    const files = JSON.parse(plan).files as Record<string, string>;
    expect(files['{{DEVX_RUN}}/gemini/warm-0/system.md']).toContain('TOOL_CALL:');

    // Second run: a tool round and the answer, both through the one adopted process.
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'a.txt says alpha' });
    const second = await runOk(['run', 'what is in a.txt?'], project);
    expect(second.stderr).toContain('started gemini ahead');
    expect(second.stderr).toContain(ADOPTED);
    expect(second.stderr.match(/started gemini ahead|adopted/g)).toHaveLength(2);
    expect(second.stdout).toContain('a.txt says alpha');
    expect(fake.modelCalls).toHaveLength(3);
    for (const call of fake.modelCalls.slice(1)) {
      expect(call.systemText).toContain('TOOL_CALL:');
      expect(call.functionDeclarations).toBe(0);
    }
    expect(fake.modelCalls[1].promptText).toContain('what is in a.txt?');
    expect(fake.modelCalls[2].promptText).toContain('alpha');
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);

    // DEVX_PRESTART=off: the recorded plan is not used, and no plan is recorded (a run that records its
    // launch rewrites a plan that differs from it; this one, marked, stays as it was).
    const dir = path.join(home, '.devx', 'run', 'launch-plans');
    const planFile = path.join(dir, fs.readdirSync(dir)[0]);
    const marked = JSON.stringify({ ...JSON.parse(plan), marked: true });
    fs.writeFileSync(planFile, marked);
    fake.push({ text: 'third answer' });
    const off = await runOk(['run', 'once more'], project, { DEVX_PRESTART: 'off' });
    expect(off.stderr).not.toContain('started gemini ahead');
    expect(off.stdout).toContain('third answer');
    expect(plans()).toEqual([marked]);
  });

  it('in spawn mode, records the per-call launch; the next run hands its first call to the gemini started ahead', async () => {
    const spawnMode = { DEVX_PROVIDER_MODE: 'spawn' };
    const project = makeProject({ 'a.txt': 'alpha\n' });
    fake.push({ text: 'first answer' });
    await runOk(['run', 'say something'], project, spawnMode);
    const [plan] = plans();
    expect(JSON.parse(plan)).toMatchObject({ file: GEMINI_BIN, cwd: '{{DEVX_RUN}}/gemini/scratch' });
    expect(JSON.parse(plan).protocol).toBeUndefined();
    // The per-call system prompt file is named by its hash: a changed prompt never matches.
    const files = JSON.parse(plan).files as Record<string, string>;
    const systemName = Object.keys(files).find((f) => /system-[0-9a-f]{16}\.md$/.test(f))!;
    expect(files[systemName]).toContain('TOOL_CALL:');
    // The first call goes to the adopted process, the second to a fresh one.
    fake.push({ text: 'TOOL_CALL: read_file | path=a.txt' }, { text: 'a.txt says alpha' });
    const second = await runOk(['run', 'what is in a.txt?'], project, spawnMode);
    expect(second.stderr).toContain(ADOPTED);
    expect(second.stdout).toContain('a.txt says alpha');
    expect(fake.modelCalls[2].promptText).toContain('alpha');
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('a head start that differs from the launch (the other kind, then another model) is stopped, and the call runs in a fresh process', async () => {
    const project = makeProject({});
    const spawnMode = { DEVX_PROVIDER_MODE: 'spawn' };
    fake.push({ text: 'warm answer' }, { text: 'spawned answer' }, { text: 'pro answer' });
    await runOk(['run', '--model', 'gemini-2.5-flash', 'hi'], project);
    // A warm plan, a per-call run.
    const r = await runOk(['run', '--model', 'gemini-2.5-flash', 'hi'], project, spawnMode);
    expect(r.stderr).toContain('started gemini ahead');
    expect(r.stderr).toContain('this launch differs from the recorded plan');
    expect(r.stdout).toContain('spawned answer');
    expect(JSON.parse(plans()[0]).protocol).toBeUndefined();
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
    // A per-call plan, another model.
    const pro = await runOk(['run', '--model', 'gemini-2.5-pro', 'hi'], project, spawnMode);
    expect(pro.stderr).toContain('this launch differs from the recorded plan');
    expect(pro.stdout).toContain('pro answer');
    expect(fake.modelCalls.map((c) => c.model)).toEqual(['gemini-2.5-flash', 'gemini-2.5-flash', 'gemini-2.5-pro']);
    // The plan now describes the latest launch, and nothing devx started is left running.
    expect(plans()[0]).toContain('gemini-2.5-pro');
    expect(processesUnder(path.join(home, '.devx'))).toEqual([]);
  });

  it('a process started ahead that failed before making a call (its stdin came too late) is replaced by a fresh one', async () => {
    // Stands in for gemini: while the flag file exists it takes its stdin and then fails the way gemini
    // does when its prompt came after its own start-up (consuming the flag); otherwise it runs the real gemini.
    const dir = tempDir('devx-fakecli-');
    const bin = path.join(dir, 'gemini');
    const flag = path.join(dir, 'fail-once');
    fs.writeFileSync(
      bin,
      `#!${process.execPath}
const fs = require('fs');
const { spawnSync } = require('child_process');
if (fs.existsSync(${JSON.stringify(flag)})) {
  fs.readFileSync(0);
  fs.unlinkSync(${JSON.stringify(flag)});
  process.stderr.write('No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.\\n');
  process.exit(42);
}
const r = spawnSync(${JSON.stringify(GEMINI_BIN)}, process.argv.slice(2), { stdio: 'inherit' });
process.exit(r.status ?? 1);
`,
      { mode: 0o755 },
    );
    // A per-call gemini reads its prompt from stdin; a warm one waits for its client and cannot be too early.
    const project = makeProject({});
    fake.push({ text: 'one' });
    await runOk(['run', 'hi'], project, { DEVX_GEMINI_BIN: bin, DEVX_PROVIDER_MODE: 'spawn' });
    fs.writeFileSync(flag, '');
    fake.push({ text: 'two' });
    const r = await runOk(['run', 'hi again'], project, { DEVX_GEMINI_BIN: bin, DEVX_PROVIDER_MODE: 'spawn' });
    expect(r.stderr).toContain(ADOPTED);
    expect(r.stderr).toContain('was ready before its prompt; starting a fresh one');
    expect(fs.existsSync(flag)).toBe(false);
    expect(r.stdout).toContain('two');
    expect(fake.modelCalls).toHaveLength(2);
  });

  it('a head start nothing asked for (the run stopped before its model call) is stopped and its plan dropped', async () => {
    const project = makeProject({});
    fake.push({ text: 'one' }, { text: 'two' });
    await runOk(['run', 'hi'], project);
    expect(plans()).toHaveLength(1);
    fs.mkdirSync(path.join(project, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(project, '.devx', 'settings.json'), '{ not json');
    const broken = await runDevx(['run', 'hi'], { cwd: project, env: env() });
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('started gemini ahead');
    expect(plans()).toEqual([]);
    // devx sent SIGKILL as it exited; the kernel ends the process a moment later.
    await until(() => processesUnder(path.join(home, '.devx')).length === 0, 10_000);
    fs.rmSync(path.join(project, '.devx', 'settings.json'));
    const next = await runOk(['run', 'hi'], project);
    expect(next.stderr).not.toContain('started gemini ahead');
    expect(next.stdout).toContain('two');
  });

  it('an account with its own environment (a key) is never recorded, so never started ahead', async () => {
    const project = makeProject({ '.devx/settings.json': '{}' });
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    fs.writeFileSync(
      path.join(home, '.devx', 'settings.json'),
      JSON.stringify({ accounts: [{ name: 'work', env: { GEMINI_API_KEY: 'secret-account-key' } }] }),
    );
    fake.push({ text: 'one' });
    const r = await runOk(['run', 'hi'], project);
    // Nothing recorded, so nothing for the next run to start ahead (the first case shows a plan is what starts one).
    expect(plans()).toEqual([]);
    expect(r.stderr).not.toContain('recorded the launch plan');
    expect(fake.modelCalls.map((c) => c.apiKey)).toEqual(['secret-account-key']);
  });

  it('kill -9 of devx right after the head start leaves no process behind (gemini sees its stdin close)', async () => {
    const project = makeProject({});
    fake.push({ text: 'one' });
    await runOk(['run', 'hi'], project);
    fake.fallback = { hang: true };
    const child = spawn(process.execPath, [DEVX_BIN, 'run', 'hi'], { cwd: project, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await until(() => err.includes('started gemini ahead'), 20_000);
    const owned = () => processesUnder(path.join(home, '.devx', 'run'));
    expect(owned().length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await until(() => owned().length === 0, 15_000);
  });
});
