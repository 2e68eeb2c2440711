// Workflow benchmarks: orchestration overhead (a whole bugfix run against the sum of its model calls,
// each timed as a bare gemini call with the same per-request delay, in the same run) and resume
// latency (from `devx workflow resume` to the next model request, against `devx --version`).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FakeGeminiApi, DAILY_QUOTA_429, type RecordedRequest } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, GEMINI_BIN, fakeEnv, makeHome, makeProject, tempDir } from '../test/helpers/env.js';
import { median } from './timing.js';

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv, onSpawn?: (t0: number) => void): Promise<{ code: number | null; ms: number; err: string }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    onSpawn?.(t0);
    const child = spawn(args[0], args.slice(1), { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, ms: performance.now() - t0, err }));
  });
}

const stepOf = (r: RecordedRequest) => /, step ([A-Z_]+)\n/.exec(r.promptText)?.[1] ?? '?';

function project(home: string): string {
  fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
  fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify({ testCommand: 'node test.js' }));
  return makeProject({
    'src/login.js': 'exports.check = (a, b) => a === b + " ";\n',
    'test.js': "if (!require('./src/login.js').check('p', 'p')) process.exit(1);\n",
  });
}

export async function benchWorkflowOverhead(): Promise<void> {
  const delay = Number(process.env.BENCH_WORKFLOW_DELAY_MS ?? 3000);
  const fake = await new FakeGeminiApi().start();
  const home = makeHome();
  const env = {
    ...fakeEnv(fake, home),
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
    DEVX_HANDOFF: 'off',
  };
  fake.fallback = (r) => {
    const s = stepOf(r);
    const inTool = r.promptText.includes('TOOL_RESULT');
    const text: Record<string, string> = {
      INVESTIGATE: 'The diagnosis.',
      ANALYST_REVIEW: '{"verdict": "APPROVE"}',
      PLAN: 'The plan.',
      PLAN_REVIEW: '{"verdict": "APPROVE"}',
      CODE: inTool
        ? `{"commit_hash": "${[...r.promptText.matchAll(/\b[0-9a-f]{40}\b/g)].at(-1)?.[0]}", "tests_passed": true}`
        : 'TOOL_CALL: write_file | path=src/login.js | content=```\nexports.check = (a, b) => a === b;\n```\nTOOL_CALL: run_command | cmd=git add src/login.js && git commit -q -m fix\nTOOL_CALL: run_command | cmd=git rev-parse HEAD',
      AUDIT: '{"verdict": "PASS"}',
    };
    // The bare baseline's prompt ("ping") gets the same delay.
    return { text: text[s] ?? 'pong', delayMs: delay };
  };
  const p = project(home);
  const wf = await run([process.execPath, DEVX_BIN, 'workflow', 'run', '--mode', 'bugfix', 'login fails after a reset'], p, env);
  if (wf.code !== 0) throw new Error(`workflow bench run failed: ${wf.err.slice(-800)}`);
  const calls = fake.modelCalls.length;
  // The same workflow with one gemini process per call (mode spawn, how every step ran before the steps shared warm processes).
  const spawned = await run([process.execPath, DEVX_BIN, 'workflow', 'run', '--mode', 'bugfix', 'login fails after a reset'], project(home), {
    ...env,
    DEVX_PROVIDER_MODE: 'spawn',
  });
  if (spawned.code !== 0) throw new Error(`workflow bench run (spawn) failed: ${spawned.err.slice(-800)}`);
  // Each model call as a bare gemini call (same binary, same delay), measured now.
  const bareDir = tempDir('devx-bare-');
  // As devx runs it: no self-relaunch (see the turn benchmark).
  const bareEnv = { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true' };
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) bare.push((await run([GEMINI_BIN, '-m', 'gemini-2.5-pro', '-p', 'ping'], bareDir, bareEnv)).ms);
  const sum = median(bare) * calls;
  await fake.close();
  console.log(
    `workflow: a full bugfix run (${calls} model calls, ${delay} ms API delay each) took ${(wf.ms / 1000).toFixed(1)} s vs ${calls} bare gemini calls ${(sum / 1000).toFixed(1)} s -> ratio ${(wf.ms / sum).toFixed(3)} (target < 1.05)`,
  );
  console.log(
    `workflow: steps sharing warm gemini processes ${(wf.ms / 1000).toFixed(1)} s vs one gemini process per call (DEVX_PROVIDER_MODE=spawn) ${(spawned.ms / 1000).toFixed(1)} s -> ratio ${(wf.ms / spawned.ms).toFixed(3)}`,
  );
}

/**
 * A one-shot `devx run` whose model makes `rounds` model calls (tool rounds, then the answer), in each
 * provider mode: what devx chooses (auto), every call spawned, every call warm. Each mode has a project
 * of its own, so the launch plan a run records is the one its next run starts ahead (runs interleaved).
 */
export async function benchOneShotRounds(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const runs = Number(process.env.BENCH_ROUNDS_RUNS ?? 5);
  const fake = await new FakeGeminiApi().start();
  const home = makeHome();
  const env = { ...fakeEnv(fake, home), DEVX_HANDOFF: 'off' };
  // Each request lists the README until the conversation holds `rounds` tool results, then answers.
  fake.fallback = (r) =>
    (r.promptText.match(/TOOL_RESULT: /g) ?? []).length < rounds - 1 ? { text: 'TOOL_CALL: read_file | path=README.md' } : { text: 'Done.' };
  const modes = [
    { name: 'auto', env: {} },
    { name: 'spawn', env: { DEVX_PROVIDER_MODE: 'spawn' } },
    { name: 'warm', env: { DEVX_PROVIDER_MODE: 'warm' } },
  ].map((m) => ({ ...m, project: makeProject({ 'README.md': '# bench\n' }), ms: [] as number[] }));
  for (let i = 0; i < runs; i++) {
    for (const m of modes) {
      fs.rmSync(path.join(m.project, '.devx', 'history.json'), { force: true });
      const r = await run([process.execPath, DEVX_BIN, 'run', 'read it'], m.project, { ...env, ...m.env });
      if (r.code !== 0) throw new Error(`rounds bench run (${m.name}) failed: ${r.err.slice(-500)}`);
      m.ms.push(r.ms);
    }
  }
  await fake.close();
  const [auto, spawnOnly, warmOnly] = modes.map((m) => median(m.ms));
  console.log(
    `one-shot run with ${rounds} model calls: devx's choice (auto) ${auto.toFixed(0)} ms vs every call spawned ${spawnOnly.toFixed(0)} ms -> ratio ${(auto / spawnOnly).toFixed(3)}; every call warm ${warmOnly.toFixed(0)} ms -> ratio ${(warmOnly / spawnOnly).toFixed(3)} (medians of ${runs}, interleaved)`,
  );
}

export async function benchWorkflowResume(): Promise<void> {
  const runs = Number(process.env.BENCH_RESUME_RUNS ?? 7);
  const fake = await new FakeGeminiApi().start();
  const home = makeHome();
  // BENCH_RESUME_MODE=spawn|warm times the resume with that provider mode (the default is what devx chooses).
  const env = fakeEnv(fake, home, process.env.BENCH_RESUME_MODE ? { DEVX_PROVIDER_MODE: process.env.BENCH_RESUME_MODE } : {});
  // PLAN answers; the review always hits the daily quota, so every resume makes one request and pauses again.
  fake.fallback = (r) => (stepOf(r) === 'PLAN' ? { text: 'A plan.' } : stepOf(r) === '?' ? { text: 'pong' } : DAILY_QUOTA_429);
  const p = project(home);
  const first = await run([process.execPath, DEVX_BIN, 'workflow', 'run', '--mode', 'direct', 'add a remember-me box'], p, env);
  if (first.code !== 1) throw new Error(`resume bench setup: expected a pause, got ${first.code}: ${first.err.slice(-500)}`);
  const id = fs.readdirSync(path.join(p, '.devx', 'workflows')).find((n) => n.startsWith('wf-'))!;
  const toRequest: number[] = [];
  const bareToRequest: number[] = [];
  const bareDir = tempDir('devx-bare-');
  const version: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = fake.modelCalls.length;
    const wall = Date.now();
    await run([process.execPath, DEVX_BIN, 'workflow', 'resume', id], p, env);
    const req = fake.modelCalls[before];
    if (!req) throw new Error('resume made no model request');
    toRequest.push(req.at - wall);
    version.push((await run([process.execPath, DEVX_BIN, '--version'], p, env)).ms);
    // A bare gemini's own time to its request: what any resume through gemini must pay.
    const b0 = Date.now();
    const n = fake.modelCalls.length;
    await run([GEMINI_BIN, '-m', 'gemini-2.5-pro', '-p', 'ping'], bareDir, { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true', GEMINI_CLI_NO_RELAUNCH: 'true' });
    bareToRequest.push(fake.modelCalls[n].at - b0);
  }
  await fake.close();
  const a = median(toRequest);
  const b = median(version);
  const g = median(bareToRequest);
  console.log(
    `workflow resume: ${a.toFixed(0)} ms from \`devx workflow resume\` to the next model request vs \`devx --version\` ${b.toFixed(0)} ms -> ratio ${(a / b).toFixed(2)}; ` +
      `a bare gemini takes ${g.toFixed(0)} ms to its request, so devx's own part is ${(a - g).toFixed(0)} ms (${((a - g) / b).toFixed(2)}x --version)`,
  );
}
