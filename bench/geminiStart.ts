// What one gemini start costs with devx's workspace settings (providers/gemini/geminiCli.ts), against the same
// settings without their `tools` part (no built-in tool built, no ripgrep lookup): CPU of the whole process
// (all its threads), the two alternating, against the fake API. Then the same start with the compile cache devx
// gives gemini (providers/gemini/compileCache.ts) against none, wall time and CPU: it needs Node 22.1 or later,
// so on an older node the figure is skipped; BENCH_NODE=/path/to/node runs gemini with another one. Linux only
// (it reads /proc/self/stat).
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { GEMINI_BIN, fakeEnv, makeHome, tempDir } from '../test/helpers/env.js';
import { DENY_ALL_POLICY, GEMINI_WORKSPACE_SETTINGS } from '../src/providers/gemini/geminiCli.js';
import { geminiCompileCacheEnv } from '../src/providers/gemini/compileCache.js';
import { median } from './timing.js';

/** CPU (ms) of this process's waited-for children so far: cutime + cstime, at 100 ticks a second. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** Runs one `gemini -p` in `cwd` (asynchronously: the fake API answers from this process). */
function runGemini(cwd: string, env: NodeJS.ProcessEnv, policy: string, node?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = ['-m', 'gemini-2.5-flash', '-o', 'json', '--policy', policy, '-e', 'none', '-p', 'hi'];
    const child = node
      ? spawn(node, [fs.realpathSync(GEMINI_BIN), ...args], { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] })
      : spawn(GEMINI_BIN, args, { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`gemini exited ${code}: ${err.slice(-400)}`))));
    child.stdin.end();
  });
}

export async function benchGeminiStart(runs = Number(process.env.BENCH_GEMINI_STARTS ?? 30)): Promise<void> {
  if (!fs.existsSync('/proc/self/stat')) return console.log('gemini start: skipped (needs /proc)');
  const fake = await new FakeGeminiApi().start();
  fake.fallback = { text: 'ok' };
  const { tools: _tools, ...withoutTools } = GEMINI_WORKSPACE_SETTINGS;
  const dirs = { devx: tempDir('devx-bench-gstart-'), without: tempDir('devx-bench-gstart-') };
  fs.mkdirSync(path.join(dirs.devx, '.gemini'));
  fs.writeFileSync(path.join(dirs.devx, '.gemini', 'settings.json'), JSON.stringify(GEMINI_WORKSPACE_SETTINGS));
  fs.mkdirSync(path.join(dirs.without, '.gemini'));
  fs.writeFileSync(path.join(dirs.without, '.gemini', 'settings.json'), JSON.stringify(withoutTools));
  // As devx starts it (geminiSpec): no re-launch, a trusted scratch folder, the deny-all policy.
  const env = { ...fakeEnv(fake, makeHome()), GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' };
  const policy = path.join(dirs.devx, 'deny-all-tools.toml');
  fs.writeFileSync(policy, DENY_ALL_POLICY);
  const cpu = { devx: [] as number[], without: [] as number[] };
  try {
    for (let i = 0; i < runs; i++) {
      for (const k of ['devx', 'without'] as const) {
        const before = childrenCpuMs();
        await runGemini(dirs[k], env, policy);
        cpu[k].push(childrenCpuMs() - before);
      }
    }
    const [d, w] = [median(cpu.devx), median(cpu.without)];
    console.log(
      `gemini start (gemini -p as devx runs it, ${runs} each, CPU of all threads, median): devx's workspace settings ${d} ms vs without their tools part ${w} ms -> ratio ${(d / w).toFixed(2)}`,
    );
    await benchCompileCache(runs, dirs.devx, env, policy);
  } finally {
    await fake.close();
  }
}

/** The same start with devx's compile cache for gemini against none, with BENCH_NODE or this node. */
async function benchCompileCache(runs: number, cwd: string, env: NodeJS.ProcessEnv, policy: string): Promise<void> {
  const node = process.env.BENCH_NODE || process.execPath;
  const probe = spawnSync(node, ['-p', "process.version + ' ' + typeof require('node:module').enableCompileCache"], { encoding: 'utf8' });
  const [version, has] = probe.stdout.trim().split(' ');
  if (has !== 'function') {
    return console.log(`gemini compile cache: skipped (Node ${version ?? '?'} has none; BENCH_NODE=<a Node 22.1 or later> measures it)`);
  }
  const home = tempDir('devx-bench-gcache-');
  const cache = geminiCompileCacheEnv({ DEVX_HOME: home }, path.join(home, 'runs', 'bench'));
  const withCache = { ...env, ...cache };
  await runGemini(cwd, withCache, policy, node); // the first start fills the cache
  const wall = { cache: [] as number[], none: [] as number[] };
  const cpu = { cache: [] as number[], none: [] as number[] };
  for (let i = 0; i < runs; i++) {
    for (const k of ['cache', 'none'] as const) {
      const [before, t0] = [childrenCpuMs(), performance.now()];
      await runGemini(cwd, k === 'cache' ? withCache : env, policy, node);
      wall[k].push(performance.now() - t0);
      cpu[k].push(childrenCpuMs() - before);
    }
  }
  const [wc, wn, cc, cn] = [median(wall.cache), median(wall.none), median(cpu.cache), median(cpu.none)];
  console.log(
    `gemini compile cache (Node ${version}, ${runs} each, median): wall ${wc.toFixed(0)} ms vs ${wn.toFixed(0)} ms without -> ratio ${(wc / wn).toFixed(2)}; CPU ${cc} ms vs ${cn} ms -> ratio ${(cc / cn).toFixed(2)}`,
  );
}
