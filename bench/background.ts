// What background commands cost a turn: the same scripted turn (three model calls of 20 ms each, two tool
// calls, the prompt built and parsed each round) without any, and with two background commands printing a line
// every millisecond the whole time (their output is appended to the bounded tails as it arrives), and the
// time a run_command background=true call takes to return. Target: at most 5 ms per turn.
import { performance } from 'node:perf_hooks';
import { makeProject } from '../test/helpers/env.js';
import { makePolicy } from '../test/helpers/policy.js';
import { makeLoopDeps } from '../test/helpers/loopDeps.js';
import { runTurn, type LoopDeps } from '../src/core/loop.js';
import { ScriptedBackend } from '../src/providers/scripted.js';
import { BackgroundCommands } from '../src/tools/backgroundCommands.js';
import { runToolCall } from '../src/tools/runToolCall.js';
import { fmt, median } from './timing.js';

const TURNS = 40;
const CHATTY = 'node chatty.js';

/** The model's time per call, stood in for: the background commands print meanwhile, as they would. */
const MODEL_MS = 20;
const reply = (text: string) => () => new Promise<string>((r) => setTimeout(() => r(text), MODEL_MS));

/** One scripted turn's time, in ms. */
async function timeTurn(deps: LoopDeps): Promise<number> {
  const backend = new ScriptedBackend([reply('TOOL_CALL: read_file | path=a.txt'), reply('TOOL_CALL: list_directory | path=.'), reply('Done.')]);
  const t0 = performance.now();
  const r = await runTurn({ ...deps, backend }, [], 'look around', { signal: new AbortController().signal, emit: () => {} });
  const ms = performance.now() - t0;
  if (r.answer !== 'Done.') throw new Error(`unexpected turn ${JSON.stringify(r)}`);
  return ms;
}

async function timeTurns(deps: LoopDeps, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await timeTurn(deps));
  return out;
}

export async function benchBackground(): Promise<void> {
  const project = makeProject(
    { 'a.txt': 'alpha\n'.repeat(200), 'b.txt': 'beta\n', 'chatty.js': "setInterval(() => console.log('line ' + Math.random()), 1);\n" },
    { git: false },
  );
  const policy = await makePolicy(project);
  const background = new BackgroundCommands();
  const base = makeLoopDeps(project, new ScriptedBackend([]), policy, { approve: async () => 'yes' });
  const deps: LoopDeps = { ...base, ctx: { ...base.ctx, background } };
  await timeTurns(deps, 10); // warm-up: modules, the file cache, the JIT
  const before = await timeTurns(deps, TURNS);
  // Starting one, as the model does: the whole call (validate, judge, authorize, start) until it returns.
  const starts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    const o = await runToolCall({ tool: 'run_command', args: { cmd: CHATTY, background: 'true' } }, deps);
    starts.push(performance.now() - t0);
    if (o.status !== 'ok') throw new Error(`background start failed: ${o.content}`);
  }
  await background.wait('bg1', { ms: 5000 });
  const t0 = performance.now();
  const withBg = await timeTurns(deps, TURNS);
  const seconds = (performance.now() - t0) / 1000;
  const printed = background.list().reduce((n, v) => n + v.unread, 0);
  await background.stopAll();
  const after = await timeTurns(deps, TURNS);
  const without = median([...before, ...after]);
  const withRunning = median(withBg);
  const extra = withRunning - without;
  console.log(
    `background commands: a scripted turn (3 model calls of ${MODEL_MS} ms) ${fmt(without)} without, ${fmt(withRunning)} with 2 background commands printing a line every millisecond (median of ${TURNS}; ${Math.round(printed / seconds / 1000)} KB/s of output kept meanwhile) -> ${extra >= 0 ? '+' : ''}${fmt(extra)} per turn (target <= 5 ms)`,
  );
  console.log(
    `background commands: run_command background=true returns in ${starts.map((ms) => fmt(ms)).join(' and ')} (judged, authorized, started; the first loads the command judge)`,
  );
}
