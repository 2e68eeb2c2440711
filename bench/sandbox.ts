// The sandbox's cost: a command run the way run_command runs it, with and without
// bubblewrap, interleaved so the machine's drift falls on both sides. Reported as ratios.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runProcess } from '../src/util/processRunner.js';
import { commandEnv } from '../src/tools/commandEnv.js';
import { detectBwrap, sandboxCommand } from '../src/sandbox/bwrap.js';
import type { SandboxClaim } from '../src/policy/types.js';
import { makePolicy } from '../test/helpers/policy.js';
import { makeHome, makeProject } from '../test/helpers/env.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchSandbox(rounds = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 21)): Promise<void> {
  const bwrap = detectBwrap(process.env);
  if (!bwrap) {
    console.log('sandbox: skipped (no working bubblewrap here: install the bubblewrap package)');
    return;
  }
  const home = makeHome();
  const root = makeProject({
    'package.json': JSON.stringify({ name: 'b', scripts: { test: 'node -e "1"' } }),
    'README.md': 'x\n',
    '.env': 'SECRET=1\n',
    'src/a.ts': 'a\n',
  });
  const policy = await makePolicy(root, { home, sandboxed: true });
  const env = { ...commandEnv(process.env, root), HOME: home };
  // devx's package caches for builds (bwrap.ts packageCaches), as a session sets them; `cold` runs without them.
  const cacheDir = path.join(home, '.devx', 'sandbox-caches');
  const once = async (cmd: string, claim: SandboxClaim | null, cold = false): Promise<number> => {
    const spec = { bin: bwrap, root, home, hidden: () => policy.hiddenPaths(), claim: claim!, ...(cold ? {} : { cacheDir }) };
    const sb = claim ? sandboxCommand(spec, root, ['bash', '-c', cmd]) : null;
    const t0 = performance.now();
    const r = await runProcess(sb?.file ?? 'bash', sb?.args ?? ['-c', cmd], {
      cwd: root,
      env,
      extendEnv: false,
      timeoutMs: 60_000,
      reapGroup: true,
      passFds: sb?.fds,
    });
    const ms = performance.now() - t0;
    sb?.cleanup();
    if (r.exitCode !== 0) throw new Error(`${cmd} failed in the bench (exit ${r.exitCode}): ${r.stderr.slice(-300)}`);
    return ms;
  };
  for (const [cmd, claim] of [
    ['ls', policy.decideCommand('ls').claim!],
    ['npm test', policy.decideCommand('npm test').claim!],
  ] as const) {
    const plain: number[] = [];
    const boxed: number[] = [];
    const cold: number[] = [];
    const build = claim.profile === 'build';
    await once(cmd, null);
    await once(cmd, claim);
    for (let i = 0; i < rounds; i++) {
      plain.push(await once(cmd, null));
      boxed.push(await once(cmd, claim));
      if (build) cold.push(await once(cmd, claim, true));
    }
    const ratios = plain.map((p, i) => boxed[i] / p);
    console.log(
      `sandbox: \`${cmd}\` (${claim.profile}) sandboxed ${median(boxed).toFixed(1)} ms against ${median(plain).toFixed(1)} ms unsandboxed: ratio ${median(ratios).toFixed(3)} (median of ${rounds} interleaved pairs)`,
    );
    if (build)
      console.log(
        `sandbox: \`${cmd}\` without devx's package caches (an empty home each run) ${median(cold).toFixed(1)} ms: ratio ${median(plain.map((p, i) => cold[i] / p)).toFixed(3)}`,
      );
  }
  fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
}
