// What one gemini start costs with devx's workspace settings (providers/gemini/geminiCli.ts), against the same
// settings without their `tools` part (no built-in tool built, no ripgrep lookup): CPU of the whole process
// (all its threads), the two alternating, against the fake API. Linux only (it reads /proc/self/stat).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { FakeGeminiApi } from '../test/helpers/fakeGeminiApi.js';
import { GEMINI_BIN, fakeEnv, makeHome, tempDir } from '../test/helpers/env.js';
import { DENY_ALL_POLICY, GEMINI_WORKSPACE_SETTINGS } from '../src/providers/gemini/geminiCli.js';
import { median } from './timing.js';

/** CPU (ms) of this process's waited-for children so far: cutime + cstime, at 100 ticks a second. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** Runs one `gemini -p` in `cwd` (asynchronously: the fake API answers from this process). */
function runGemini(cwd: string, env: NodeJS.ProcessEnv, policy: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = ['-m', 'gemini-2.5-flash', '-o', 'json', '--policy', policy, '-e', 'none', '-p', 'hi'];
    const child = spawn(GEMINI_BIN, args, { cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
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
  } finally {
    await fake.close();
  }
  const [d, w] = [median(cpu.devx), median(cpu.without)];
  console.log(
    `gemini start (gemini -p as devx runs it, ${runs} each, CPU of all threads, median): devx's workspace settings ${d} ms vs without their tools part ${w} ms -> ratio ${(d / w).toFixed(2)}`,
  );
}
