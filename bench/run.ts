// npm run bench: each figure is a ratio against a baseline measured in the same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { DEVX_BIN, GEMINI_BIN, fakeEnv, makeHome, makeProject, tempDir } from '../test/helpers/env.js';
import { parseToolCalls } from '../src/protocol/parseToolCalls.js';
import { runTurn } from '../src/core/loop.js';
import { ScriptedBackend } from '../src/providers/scripted.js';
import { builtinTools } from '../src/tools/registry.js';
import { makePolicy } from '../test/helpers/policy.js';
import { makeLoopDeps } from '../test/helpers/loopDeps.js';
import { runProcess } from '../src/util/processRunner.js';
import { buildPrompt } from '../src/core/buildPrompt.js';
import type { Message } from '../src/core/messages.js';
import { GeminiCliBackend } from '../src/providers/gemini/geminiCli.js';
import { renderSystemPrompt } from '../src/core/systemPrompt.js';
import { fmt, median, timeProcess } from './timing.js';

const only = process.argv.slice(2);
// Every temp folder of the run goes under one, removed at the end (the knowledge section alone writes
// ~260 MB); DEVX_KEEP_TEMP=1 keeps it. Sections run as child processes inherit it.
if (!process.env.DEVX_TEST_TMP) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'devx-bench-')));
  process.env.DEVX_TEST_TMP = root;
  process.on('exit', () => {
    if (!process.env.DEVX_KEEP_TEMP) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  });
}
const SECTIONS = [
  'knowledge',
  'cold',
  'claude',
  'codex',
  'warm',
  'parser',
  'prompt',
  'compaction',
  'turn',
  'stream',
  'workflow',
  'spawn',
  'sandbox',
  'commands',
  'undo',
  'setup',
  'judge',
  'acp',
  'queuepg',
  'claims',
  'geministart',
  'background',
];
// Sections run only when named. `attacks` (bench/attacks: the attack set through the real loop in
// four configurations, judged by effects) takes about two minutes of both cores and measures security,
// not speed: `node dist/bench/run.js attacks`.
const OPT_IN = ['attacks', 'replysize', 'replysize-hang', 'rounds'];
// Without names, each section runs in a process of its own: a parent that still holds the knowledge
// bench's heap (GBs at 100k chunks) forks every later child more slowly, which skews the process timings.
if (only.length === 0) {
  for (const name of SECTIONS) {
    const r = spawnSync(process.execPath, [process.argv[1], name], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}
const unknown = only.filter((n) => !SECTIONS.includes(n) && !OPT_IN.includes(n));
if (unknown.length) throw new Error(`unknown bench section(s) ${unknown.join(', ')}; the sections are ${[...SECTIONS, ...OPT_IN].join(', ')}`);
const want = (name: string) => only.includes(name);
// One-shot `devx run` processes in the turn benchmark must not draft a handoff (an extra model call).
process.env.DEVX_HANDOFF = 'off';

/**
 * A one-shot run is timed as a single request, as the bare call is: `devx run` continues the project's
 * conversation (.devx/history.json), so without this the 21st run would send the model 20 earlier
 * exchanges (~8 KB, which costs claude itself ~5 ms to take in) against the bare call's one message.
 */
function forgetConversation(project: string): void {
  fs.rmSync(path.join(project, '.devx', 'history.json'), { force: true });
}

async function benchTurnOverhead(): Promise<void> {
  const runs = Number(process.env.BENCH_TURN_RUNS ?? 9);
  const fake = await new FakeGeminiApi().start();
  fake.fallback = { text: 'pong' };
  const home = makeHome();
  const project = makeProject({ 'README.md': '# bench\n' });
  const env = fakeEnv(fake, home);
  const bareDir = tempDir('devx-bare-');
  // The bare baseline skips gemini's self-relaunch too, so the ratio is devx's own overhead; the
  // saving from skipping it is printed on its own line below.
  const relaunchEnv = { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  const bareEnv = { ...relaunchEnv, GEMINI_CLI_NO_RELAUNCH: 'true' };
  const bare: number[] = [];
  const devx: number[] = [];
  // What the head start (util/prestart.ts) and the code cache (util/runWithCodeCache.ts) buy, each switched off.
  const without = { prestart: [] as number[], cache: [] as number[], both: [] as number[] };
  const variants: [number[], Record<string, string>][] = [
    [without.prestart, { DEVX_PRESTART: 'off' }],
    [without.cache, { DEVX_CODE_CACHE: 'off' }],
    [without.both, { DEVX_PRESTART: 'off', DEVX_CODE_CACHE: 'off' }],
  ];
  // Warm both paths once (disk cache), then alternate so drift hits both equally.
  await timeProcess(GEMINI_BIN, ['-m', 'gemini-2.5-pro', '-p', 'ping'], { cwd: bareDir, env: bareEnv });
  await timeProcess(process.execPath, [DEVX_BIN, 'run', 'ping'], { cwd: project, env });
  for (let i = 0; i < runs; i++) {
    bare.push(await timeProcess(GEMINI_BIN, ['-m', 'gemini-2.5-pro', '-p', 'ping'], { cwd: bareDir, env: bareEnv }));
    forgetConversation(project);
    devx.push(await timeProcess(process.execPath, [DEVX_BIN, 'run', 'ping'], { cwd: project, env }));
    for (const [into, extra] of variants) {
      forgetConversation(project);
      into.push(await timeProcess(process.execPath, [DEVX_BIN, 'run', 'ping'], { cwd: project, env: { ...env, ...extra } }));
    }
  }
  // Per turn inside a running session (the REPL pays process start-up once, not per turn):
  // runTurn with the real GeminiCliBackend, prompt building and parsing included.
  const tools = builtinTools();
  const turnPolicy = await makePolicy(project);
  const workDir = tempDir('devx-bench-work-');
  const backend = new GeminiCliBackend({
    bin: GEMINI_BIN,
    model: 'gemini-2.5-pro',
    accounts: [],
    workDir,
    timeoutMs: 60_000,
    maxRetries: 0,
    baseDelayMs: 100,
    maxDelayMs: 100,
    runner: runProcess,
    env: { HOME: home, GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: 'test-key', NO_COLOR: '1' },
  });
  const deps = makeLoopDeps(project, backend, turnPolicy, { systemPrompt: renderSystemPrompt(project, tools), budgetChars: 400_000 });
  const bareInProc: number[] = [];
  const turns: number[] = [];
  for (let i = 0; i < runs; i++) {
    bareInProc.push(await timeProcess(GEMINI_BIN, ['-m', 'gemini-2.5-pro', '-p', 'ping'], { cwd: bareDir, env: bareEnv }));
    const t0 = performance.now();
    const r = await runTurn(deps, [], 'ping', { signal: new AbortController().signal, emit: () => {} });
    turns.push(performance.now() - t0);
    if (r.answer !== 'pong') throw new Error(`unexpected turn result ${JSON.stringify(r)}`);
  }
  const relaunched: number[] = [];
  for (let i = 0; i < runs; i++) relaunched.push(await timeProcess(GEMINI_BIN, ['-m', 'gemini-2.5-pro', '-p', 'ping'], { cwd: bareDir, env: relaunchEnv }));
  await fake.close();
  console.log(
    `gemini call: ${fmt(median(bareInProc))} with GEMINI_CLI_NO_RELAUNCH (as devx runs it) vs ${fmt(median(relaunched))} with gemini's default self-relaunch (median of ${runs}) -> ratio ${(median(bareInProc) / median(relaunched)).toFixed(3)}`,
  );
  const bi = median(bareInProc);
  const t = median(turns);
  const br = median(relaunched);
  console.log(
    `turn overhead (per turn in a session): devx turn ${fmt(t)} vs bare gemini -p as run by default ${fmt(br)} (median of ${runs}) -> ratio ${(t / br).toFixed(3)} (${t >= br ? '+' : ''}${(((t - br) / br) * 100).toFixed(1)}%; target < +5%)`,
  );
  console.log(
    `turn overhead, devx's own (bare gemini -p also without the relaunch): devx turn ${fmt(t)} vs ${fmt(bi)} -> ratio ${(t / bi).toFixed(3)} (${t >= bi ? '+' : ''}${(((t - bi) / bi) * 100).toFixed(1)}%, ${fmt(t - bi)} per turn)`,
  );
  const b = median(bare);
  const d = median(devx);
  console.log(
    `one-shot process: devx run ${fmt(d)} vs bare gemini -p (also without the relaunch) ${fmt(b)} (median of ${runs}) -> ratio ${(d / b).toFixed(3)} (+${(((d - b) / b) * 100).toFixed(1)}%, includes devx's own start-up)`,
  );
  for (const [label, times] of [
    ['without the head start', without.prestart],
    ['without the code cache', without.cache],
    ['without either', without.both],
  ] as const)
    console.log(
      `one-shot process ${label}: devx run ${fmt(median(times))} -> ratio ${(median(times) / b).toFixed(3)} to bare gemini -p (with both: ${(d / b).toFixed(3)})`,
    );
}

function benchParser(): void {
  const calls: string[] = [];
  const body = Array.from({ length: 100 }, (_, i) => `    const value${i} = compute(${i}) | 0; // ${'x'.repeat(10)}`).join('\n');
  for (let i = 0; i < 1000; i++) {
    calls.push(`Now file ${i}.\nTOOL_CALL: write_file | path=src/file${i}.ts | content=\`\`\`ts\n${body}\n\`\`\``);
  }
  const reply = calls.join('\n\n');
  const mb = Buffer.byteLength(reply) / 1024 / 1024;
  const parseTimes: number[] = [];
  const baseTimes: number[] = [];
  let n = 0;
  for (let i = 0; i < 7; i++) {
    let t0 = performance.now();
    n = parseToolCalls(reply).calls.length;
    parseTimes.push(performance.now() - t0);
    t0 = performance.now();
    // Baseline: the least any line-based parser must do, split into lines and test each for the marker.
    let hits = 0;
    for (const line of reply.split('\n')) if (/^[ \t]*TOOL_CALL:/.test(line)) hits++;
    baseTimes.push(performance.now() - t0 + hits * 0);
  }
  const p = median(parseTimes);
  const b = median(baseTimes);
  console.log(
    `parser: ${mb.toFixed(2)} MB reply, ${n} calls parsed in ${fmt(p)} (target < 100 ms); split+scan baseline ${fmt(b)} -> ratio ${(p / b).toFixed(2)}`,
  );
}

async function benchWarm(): Promise<void> {
  // Time a model call adds over the fake API's own latency, warm (gemini --acp kept running) against
  // spawn (one gemini per call), in the same run, through the real gemini binary.
  const { WarmGeminiBackend } = await import('../src/providers/gemini/warmGemini.js');
  const runs = Number(process.env.BENCH_TURN_RUNS ?? 9);
  const fake = await new FakeGeminiApi().start();
  fake.fallback = { text: 'pong' };
  const home = makeHome();
  const common = {
    bin: GEMINI_BIN,
    model: 'gemini-2.5-pro',
    accounts: [],
    timeoutMs: 60_000,
    maxRetries: 0,
    baseDelayMs: 100,
    maxDelayMs: 100,
    runner: runProcess,
    env: { HOME: home, GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: 'test-key', NO_COLOR: '1', PATH: process.env.PATH ?? '' },
  };
  const warm = new WarmGeminiBackend({ ...common, workDir: tempDir('devx-bench-warm-') });
  const spawned = new GeminiCliBackend({ ...common, workDir: tempDir('devx-bench-spawn-') });
  const timeCall = async (b: { complete: typeof warm.complete }) => {
    const t0 = performance.now();
    await b.complete({ prompt: 'ping', systemPrompt: 'You are terse.' });
    return { total: performance.now() - t0 };
  };
  await timeCall(warm); // start-up of the warm process is paid once per session
  await timeCall(spawned);
  const w: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < runs; i++) {
    w.push((await timeCall(warm)).total);
    s.push((await timeCall(spawned)).total);
  }
  warm.dispose();
  await fake.close();
  const mw = median(w);
  const ms = median(s);
  console.log(
    `warm gemini: a model call takes ${fmt(mw)} warm vs ${fmt(ms)} spawning gemini per call (median of ${runs}; the fake API answers at once, so this is what devx and gemini add) -> ratio ${(mw / ms).toFixed(3)} (target: warm under 100 ms); slowest per-call ${fmt(Math.max(...s))} (a registry lock left by the last gemini made one wait ~12 s: providers/gemini/registryLock.ts)`,
  );
}

async function benchClaude(): Promise<void> {
  // One-shot `devx run --provider claude` against one bare `claude -p` with the same flags devx passes,
  // both against the fake Anthropic API, alternated so drift hits both.
  const { FakeAnthropicApi } = await import('../test/helpers/fakeAnthropicApi.js');
  const { claudeSpec } = await import('../src/providers/claude/claudeCli.js');
  // 21 by default: claude's own exit varies by ~20 ms from run to run (the kernel freeing its memory), so 9 runs make a jumpy median.
  const runs = Number(process.env.BENCH_TURN_RUNS ?? 21);
  const fake = await new FakeAnthropicApi().start();
  fake.fallback = { text: 'pong' };
  const home = makeHome();
  const project = makeProject({});
  const bin = path.join(path.dirname(GEMINI_BIN), 'claude');
  const env = { ...fakeEnv(new FakeGeminiApi(), home), ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-bench', DEVX_CLAUDE_BIN: bin };
  const bareDir = tempDir('devx-bare-claude-');
  const systemFile = path.join(bareDir, 'system.md');
  fs.writeFileSync(systemFile, 'You are a helpful assistant.');
  const bareArgs = claudeSpec.args('sonnet', systemFile);
  const bareEnv = claudeSpec.env({ ...(env as Record<string, string>) }, { systemFile });
  // For scale: claude -p as a user runs it (its own system prompt, tools and settings), same environment (no traffic but the fake API's).
  const defaultArgs = ['-p', '--output-format', 'json', '--model', 'sonnet'];
  const bare: number[] = [];
  const devx: number[] = [];
  const nodeAlone: number[] = [];
  const asDefault: number[] = [];
  await timeProcess(bin, bareArgs, { cwd: bareDir, env: bareEnv, input: 'ping' });
  await timeProcess(process.execPath, [DEVX_BIN, 'run', '--provider', 'claude', 'ping'], { cwd: project, env });
  for (let i = 0; i < runs; i++) {
    bare.push(await timeProcess(bin, bareArgs, { cwd: bareDir, env: bareEnv, input: 'ping' }));
    forgetConversation(project);
    devx.push(await timeProcess(process.execPath, [DEVX_BIN, 'run', '--provider', 'claude', 'ping'], { cwd: project, env }));
    nodeAlone.push(await timeProcess(process.execPath, ['-e', '0'], { cwd: project, env }));
    asDefault.push(await timeProcess(bin, defaultArgs, { cwd: bareDir, env: bareEnv, input: 'ping' }));
  }
  await fake.close();
  const b = median(bare);
  const d = median(devx);
  const n = median(nodeAlone);
  const a = median(asDefault);
  console.log(
    `claude one-shot: devx run --provider claude ${fmt(d)} vs bare claude -p (same flags) ${fmt(b)} (median of ${runs}) -> ratio ${(d / b).toFixed(3)} (target <= 1.10)`,
  );
  // claude's own process (a native binary) starts in a fraction of gemini's time, so the start-up of
  // any Node program that then runs it is a large share: the ratio of "node -e 0, then claude" is the floor.
  console.log(
    `claude one-shot floor: node -e 0 alone ${fmt(n)} -> (bare claude + node start-up) / bare claude = ${((b + n) / b).toFixed(3)}; devx's own share over that floor: ${fmt(d - b - n)}`,
  );
  console.log(
    `claude one-shot, for scale: bare claude -p as run by default (its own system prompt and tools) ${fmt(a)} -> devx run --provider claude / that = ${(d / a).toFixed(3)}`,
  );
}

function benchColdStart(): void {
  const runs = 21;
  // The tests' clean environment: a machine's NODE_EXTRA_CA_CERTS alone adds ~30 ms to every node start.
  const env = { PATH: process.env.PATH, HOME: makeHome() };
  // A script that only prints a line: what any Node CLI pays to answer --version.
  const script = path.join(tempDir('devx-bench-cold-'), 'version.cjs');
  fs.writeFileSync(script, "process.stdout.write('devx 0.0.0\\n');\n");
  const node: number[] = [];
  const printer: number[] = [];
  const devx: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env });
    node.push(performance.now() - t0);
    t0 = performance.now();
    spawnSync(process.execPath, [script], { env });
    printer.push(performance.now() - t0);
    t0 = performance.now();
    const r = spawnSync(process.execPath, [DEVX_BIN, '--version'], { encoding: 'utf8', env });
    devx.push(performance.now() - t0);
    if (!r.stdout.startsWith('devx ')) throw new Error(`devx --version printed ${r.stdout}`);
  }
  const [n, p, d] = [median(node), median(printer), median(devx)];
  console.log(
    `cold start: devx --version ${fmt(d)} (target < 150 ms) vs node -e 0 ${fmt(n)} -> ratio ${(d / n).toFixed(2)}; vs a node script that prints one line ${fmt(p)} -> ratio ${(d / p).toFixed(2)}`,
  );
  benchCodeCacheStart(env, runs);
}

/**
 * What the code cache buys a start that no head start hides (the REPL's, every command but a one-shot run):
 * `devx sessions` in a fresh repository, with the cache (made by the first run) and with DEVX_CODE_CACHE=off, alternating.
 */
function benchCodeCacheStart(env: NodeJS.ProcessEnv, runs: number): void {
  const cwd = makeProject({ 'README.md': '# bench\n' });
  const time = (extra: Record<string, string>) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [DEVX_BIN, 'sessions'], { cwd, env: { ...env, ...extra }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`devx sessions exited ${r.status}: ${r.stderr}`);
    return performance.now() - t0;
  };
  time({});
  const cached: number[] = [];
  const off: number[] = [];
  for (let i = 0; i < runs; i++) {
    cached.push(time({}));
    off.push(time({ DEVX_CODE_CACHE: 'off' }));
  }
  const [c, o] = [median(cached), median(off)];
  console.log(`start of a command (devx sessions): with the code cache ${fmt(c)} vs without ${fmt(o)} -> ratio ${(c / o).toFixed(3)} (median of ${runs})`);
}

async function benchPromptSize(): Promise<void> {
  const root = tempDir('devx-bench-prompt-');
  fs.writeFileSync(path.join(root, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `line ${i} ${'y'.repeat(20)}`).join('\n'));
  const budget = 200_000;
  const benchPolicy = await makePolicy(root);
  const sizes: number[] = [];
  const replies: string[] = [];
  for (let t = 0; t < 60; t++) replies.push('TOOL_CALL: read_file | path=big.txt', `Turn ${t} done.`);
  const backend = new ScriptedBackend(replies);
  const deps = makeLoopDeps(root, backend, benchPolicy, {
    systemPrompt: 'S',
    maxOutputChars: 100_000,
    buildPrompt: (messages, turnStart) => {
      const text = buildPrompt({ messages, turnStart, budgetChars: budget }).text;
      sizes.push(text.length);
      return text;
    },
  });
  const history: Message[] = [];
  for (let t = 0; t < 60; t++) {
    const r = await runTurn(deps, history, `turn ${t}: read big.txt`, { signal: new AbortController().signal, emit: () => {} });
    history.push(...r.added);
  }
  const unbounded = history.reduce((n, m) => n + m.content.length, 0);
  const max = Math.max(...sizes);
  console.log(
    `prompt size: 60 scripted turns (${sizes.length} model calls), largest prompt ${max} chars, budget ${budget} -> ${max <= budget ? 'under budget at every call' : 'OVER BUDGET'}; unbounded history would be ${unbounded} chars (ratio ${(max / unbounded).toFixed(3)})`,
  );
  if (max > budget) process.exitCode = 1;
}

if (want('knowledge')) {
  const { benchRecall, benchLatency } = await import('./knowledge.js');
  await benchRecall();
  await benchLatency((process.env.BENCH_KB_SIZES ?? '10000,100000').split(',').map(Number));
}
if (want('cold')) benchColdStart();
if (want('geministart')) await (await import('./geminiStart.js')).benchGeminiStart();
if (want('claude')) await benchClaude();
if (want('codex')) await (await import('./codex.js')).benchCodex();
if (want('warm')) await benchWarm();
if (want('parser')) benchParser();
if (want('prompt')) await benchPromptSize();
if (want('turn')) await benchTurnOverhead();
if (want('compaction')) {
  const { benchCompaction } = await import('./compaction.js');
  await benchCompaction();
}
if (want('stream')) {
  const { benchFirstChar } = await import('./streaming.js');
  await benchFirstChar();
}
if (want('commands')) await (await import('./commonCommands.js')).benchCommonCommands();
if (want('sandbox')) {
  const { benchSandbox } = await import('./sandbox.js');
  await benchSandbox();
}
if (want('setup')) {
  const { benchSetup } = await import('./setup.js');
  await benchSetup();
}
if (want('background')) await (await import('./background.js')).benchBackground();
if (want('acp')) await (await import('./acpCompare.js')).benchAcpCompare();
if (want('judge')) (await import('./judgeStart.js')).benchJudgeStart();
if (want('queuepg')) await (await import('./queuePg.js')).benchQueuePg();
if (want('claims')) await (await import('./queueClaims.js')).benchQueueClaims();
if (want('undo')) {
  const { benchUndo } = await import('./undo.js');
  await benchUndo();
}
if (want('workflow')) {
  const { benchWorkflowOverhead, benchWorkflowResume, benchOneShotRounds } = await import('./workflow.js');
  await benchWorkflowOverhead();
  await benchOneShotRounds();
  await benchWorkflowResume();
}
// Only the one-shot rounds of the workflow section: BENCH_ROUNDS model calls per run, by provider mode.
if (want('rounds')) await (await import('./workflow.js')).benchOneShotRounds();

// Largest reply and TOOL_CALL line per provider and mode (~2 min); the hang takes ~15 min (claude waits out 600 s).
if (want('replysize')) await (await import('./replySize.js')).benchReplySize();
if (want('replysize-hang')) await (await import('./replySize.js')).benchHang();

if (want('attacks')) {
  const { runAll } = await import('./attacks/run.js');
  await runAll();
}

if (want('spawn')) {
  // 16 spawn_gemini calls at concurrency 4 versus 4 sequential single calls, against a fake API with
  // a fixed delay, through the real gemini binary. The main turn is scripted; sub-sessions are real.
  const delay = Number(process.env.BENCH_SPAWN_DELAY_MS ?? 20_000);
  const fake = await new FakeGeminiApi().start();
  fake.fallback = { text: 'sub-answer', delayMs: delay };
  const home = makeHome();
  const project = makeProject({});
  const { AgentRun } = await import('../src/runtime/agentRun.js');
  const run = await AgentRun.create({ cwd: project, env: { ...fakeEnv(fake, home), HOME: home }, yes: true });
  const agent = { deps: run.loopDeps, dispose: () => run.dispose() };
  const signal = new AbortController().signal;
  const t0 = performance.now();
  for (let i = 0; i < 4; i++) {
    const one = await agent.deps.ctx.spawn!(`sequential ${i}`, undefined, signal);
    if (one.answer !== 'sub-answer') throw new Error(`sequential spawn failed: ${one.answer}`);
  }
  const seq = performance.now() - t0;
  const calls = Array.from({ length: 16 }, (_, i) => `TOOL_CALL: spawn_gemini | query=parallel ${i}`).join('\n');
  const t1 = performance.now();
  let ok = 0;
  const r = await runTurn({ ...agent.deps, backend: new ScriptedBackend([calls, 'done']), concurrency: 4 }, [], 'fan out', {
    signal,
    emit: (e) => {
      if (e.type === 'tool_end' && e.outcome.status === 'ok' && e.outcome.content === 'sub-answer') ok++;
    },
  });
  if (ok !== 16) throw new Error(`only ${ok} of 16 spawn_gemini calls answered`);
  const par = performance.now() - t1;
  await agent.dispose();
  await fake.close();
  if (r.status !== 'answered') throw new Error(`spawn bench turn ended ${r.status}`);
  console.log(
    `spawn_gemini: 16 calls at concurrency 4 took ${(par / 1000).toFixed(1)} s vs 4 sequential single calls ${(seq / 1000).toFixed(1)} s (fake API delay ${delay / 1000} s) -> ratio ${(par / seq).toFixed(3)} (target <= 1.1)`,
  );
}
