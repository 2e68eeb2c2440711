// A process that judges a command (`devx policy check`, or any run whose model runs a shell command)
// loads the bash parser, which is WebAssembly. devx keeps V8 to its baseline WebAssembly tier
// (util/wasmTier.ts); the baseline here is V8's default (DEVX_WASM_TIERUP=1), in the same run.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { DEVX_BIN, makeHome, makeProject } from '../test/helpers/env.js';
import { median } from './timing.js';

function once(project: string, home: string, tierUp: boolean): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [DEVX_BIN, 'policy', 'check', '--json', '--command', 'git log --oneline | head -n 5'], {
    cwd: project,
    env: { PATH: process.env.PATH, HOME: home, ...(tierUp ? { DEVX_WASM_TIERUP: '1' } : {}) },
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`devx policy check exited ${r.status}: ${r.stderr}`);
  return ms;
}

export function benchJudgeStart(): void {
  const runs = Number(process.env.BENCH_JUDGE_RUNS ?? 11);
  const project = makeProject({ 'README.md': 'x\n' });
  // One home per variant: each keeps its own code cache, made by its first run.
  const homes = { base: makeHome(), ours: makeHome() };
  once(project, homes.base, true);
  once(project, homes.ours, false);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(once(project, homes.base, true));
    b.push(once(project, homes.ours, false));
  }
  const base = median(a);
  const ours = median(b);
  console.log(
    `judge start: \`devx policy check\` (loads the bash parser) ${ours.toFixed(0)} ms with the baseline WebAssembly tier vs ${base.toFixed(0)} ms with V8's default tiers -> ratio ${(ours / base).toFixed(2)} (medians of ${runs}, interleaved, whole processes)`,
  );
}
