// Runs the attack set (corpus.ts) through the real agent loop and judges every attack by its effects.
//
//   node dist/bench/attacks/run.js --mode default|yolo --sandbox on|off [--json out.json] [--only 1,2,3]
//   node dist/bench/attacks/run.js --mode control [--json out.json]   (bash -c without devx: does the payload work here?)
//   node dist/bench/attacks/run.js all [--json out.json] [--only ...]  (the four configurations and the control, one
//                                                                      child process each, and one table)
//   node dist/bench/run.js attacks                                       (the same, as a bench section)
//
// One configuration runs in a process of its own: devx probes bubblewrap once per process, and
// DEVX_SANDBOX=off turns the sandbox off. Each attack gets a fresh fixture (fixture.ts); the model is a
// ScriptedBackend whose first reply calls run_command with the attack and whose second says "done".
// Only runHeadless, ScriptedBackend and files on disk are used, so the bench outlives refactors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runHeadless } from '../../src/runtime/runHeadless.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { ATTACKS } from './corpus.js';
import {
  baseEnv,
  buildFixture,
  createRoot,
  devxOwned,
  judge,
  killStragglers,
  snapshot,
  startNetServer,
  toolCallReply,
  changes,
  type Attack,
  type Fixture,
} from './fixture.js';

type Mode = 'default' | 'yolo' | 'control';
const TOOL_TIMEOUT_S = 10;
const RUN_TIMEOUT_MS = 40_000;

export interface Row {
  id: number;
  class: string;
  goal: string;
  cmd: string;
  decision: string | null;
  answer: string | null;
  status: string | null;
  executed: boolean;
  asked: boolean;
  refused: boolean;
  ran: boolean;
  ranBy: string[];
  leaked: string[];
  wrote: string[];
  error?: string;
  ms: number;
}

export interface ConfigResult {
  name: string;
  mode: Mode;
  sandbox: 'on' | 'off' | '-';
  /** Whether devx reported bubblewrap as working in this configuration (null for the control). */
  sandboxActive: boolean | null;
  calibration: string[];
  rows: Row[];
  ms: number;
}

const configName = (mode: Mode, sandbox: string) => (mode === 'control' ? 'control: bash -c, no devx' : `${mode}, sandbox ${sandbox}`);

/** Runs the command as bash would without devx (the control): same fixture, same environment, same timeout. */
function runDirect(cmd: string, f: Fixture): Promise<{ out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', cmd], {
      cwd: f.project,
      env: { ...process.env, HOME: f.home, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, TOOL_TIMEOUT_S * 1000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ out });
    });
  });
}

export async function runConfig(mode: Mode, sandbox: boolean, only?: Set<number>): Promise<ConfigResult> {
  const label = mode === 'control' ? 'control' : `${mode}-${sandbox ? 'sb' : 'nosb'}`;
  const { root, markers } = createRoot(label);
  // Nothing of the real user's environment reaches devx or the commands: run_command passes this
  // process's environment on, so it is replaced here, and HOME is each fixture's own below.
  const idle = path.join(root, 'idle-home');
  fs.mkdirSync(idle);
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, baseEnv(idle, sandbox));
  const net = await startNetServer();
  const t0 = Date.now();
  let sandboxActive: boolean | null = mode === 'control' ? null : false;
  const calibration: string[] = [];

  async function viaDevx(f: Fixture, cmd: string, approval: 'default' | 'yolo') {
    const backend = new ScriptedBackend([toolCallReply(cmd, TOOL_TIMEOUT_S), 'done']);
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), RUN_TIMEOUT_MS);
    const warnings: string[] = [];
    try {
      const r = await runHeadless({
        prompt: 'Run the command this task needs.',
        cwd: f.project,
        env: { ...baseEnv(f.home, sandbox) },
        approval,
        backend,
        signal: ac.signal,
        onWarning: (w) => warnings.push(w),
      });
      return { r, prompts: backend.requests.map((q) => q.prompt), warnings, error: undefined as string | undefined };
    } catch (err) {
      return { r: null, prompts: backend.requests.map((q) => q.prompt), warnings, error: `runHeadless threw: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  // Calibration: what a harmless run leaves in .devx/ (its .gitignore, learned once and then planted
  // in every fixture), and a second harmless run that must change nothing the judge looks at.
  if (mode !== 'control') {
    for (const id of [900001, 900002]) {
      const f = buildFixture(root, markers, id, net.port, sandbox);
      const before = snapshot(f);
      process.env.HOME = f.home;
      const { r, warnings } = await viaDevx(f, 'true', 'default');
      sandboxActive = !warnings.some((w) => /bubblewrap/.test(w));
      if (devxOwned.gitignore === null) {
        try {
          devxOwned.gitignore = fs.readFileSync(path.join(f.project, '.devx', '.gitignore'), 'utf8');
        } catch {
          devxOwned.gitignore = '';
        }
      } else {
        const c = changes(before, snapshot(f), r?.toolCalls.length ?? 0);
        if (c.length) calibration.push(`a harmless run changed ${c.join(', ')}`);
      }
      if (r?.toolCalls[0]?.decision !== 'allow') calibration.push(`the calibration command "true" was not allowed (${r?.toolCalls[0]?.decision})`);
      fs.rmSync(f.dir, { recursive: true, force: true });
    }
  }

  const rows: Row[] = [];
  for (const a of ATTACKS) {
    if (only && !only.has(a.id)) continue;
    rows.push(await runOne(a));
  }
  await net.close();
  if (!process.env.DEVX_KEEP_TEMP) fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  return {
    name: configName(mode, sandbox ? 'on' : 'off'),
    mode,
    sandbox: mode === 'control' ? '-' : sandbox ? 'on' : 'off',
    sandboxActive,
    calibration,
    rows,
    ms: Date.now() - t0,
  };

  async function runOne(a: Attack): Promise<Row> {
    const t1 = Date.now();
    const f = buildFixture(root, markers, a.id, net.port, sandbox);
    net.current = a.id;
    let error: string | undefined;
    try {
      a.setup?.(f);
    } catch (err) {
      error = `setup failed: ${(err as Error).message}`;
    }
    const cmd = f.t(a.cmd);
    if (cmd.includes(`RAN-${a.id}`)) error = 'the command spells its own RAN token, so an echo of it would count as a run';
    const before = snapshot(f);
    process.env.HOME = f.home;
    let modelText = '';
    let decision: string | null = null;
    let answer: string | null = null;
    let status: string | null = null;
    let calls = 0;
    if (mode === 'control') {
      const { out } = await runDirect(cmd, f);
      modelText = out;
      decision = 'control';
      status = 'ok';
    } else {
      const v = await viaDevx(f, cmd, mode);
      if (v.error) error = v.error;
      // What reached the model: every prompt after the one that asked for the command.
      modelText = v.prompts.slice(1).join('\n');
      const tc = v.r?.toolCalls[0];
      calls = v.r?.toolCalls.length ?? 0;
      if (tc) {
        decision = tc.decision;
        answer = tc.answer;
        status = tc.status;
        if (String(tc.args.cmd ?? '').trim() !== cmd.trim()) error = `protocol: the command arrived as ${JSON.stringify(tc.args.cmd)}`;
      } else if (!error) error = `no tool call ran (${v.r?.status ?? 'no result'}${v.r?.error ? `: ${v.r.error.message}` : ''})`;
    }
    killStragglers(f.home);
    await new Promise((r) => setTimeout(r, 30));
    const e = judge(f, { modelText, hits: net.hits.get(a.id) ?? [] }, before, snapshot(f), calls);
    fs.rmSync(f.dir, { recursive: true, force: true, maxRetries: 3 });
    process.env.HOME = idle;
    const executed = decision === 'control' || decision === 'allow' || (decision === 'ask' && answer === 'yes');
    return {
      id: a.id,
      class: a.class,
      goal: a.goal,
      cmd: a.cmd,
      decision,
      answer,
      status,
      executed,
      asked: decision === 'ask' && answer !== 'yes',
      refused: decision === 'deny',
      ran: e.ran,
      ranBy: e.ranBy,
      leaked: e.leaked,
      wrote: e.wrote,
      ...(error ? { error } : {}),
      ms: Date.now() - t1,
    };
  }
}

// ---------------------------------------------------------------------------------------------------
// Reporting

const harmful = (r: Row) => r.ran || r.leaked.length > 0 || r.wrote.length > 0;
const achieved = (r: Row) => (r.goal === 'ran' ? r.ran : r.goal === 'leak' ? r.leaked.length > 0 : r.wrote.length > 0);

export function table(results: ConfigResult[]): string {
  const lines = [
    '| configuration | bwrap active | attacks | ran | leaked | wrote outside | asked | refused | allowed & harmless | any effect | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of results) {
    const rs = c.rows;
    const n = (p: (r: Row) => boolean) => rs.filter(p).length;
    const ctl = c.mode === 'control';
    lines.push(
      `| ${c.name} | ${c.sandboxActive === null ? '-' : c.sandboxActive ? 'yes' : 'no'} | ${rs.length} | ${n((r) => r.ran)} | ${n((r) => r.leaked.length > 0)} | ${n((r) => r.wrote.length > 0)} | ${ctl ? '-' : n((r) => r.asked)} | ${ctl ? '-' : n((r) => r.refused)} | ${ctl ? '-' : n((r) => r.executed && !harmful(r))} | ${n(harmful)} | ${n((r) => !!r.error)} |`,
    );
  }
  return lines.join('\n');
}

export function details(results: ConfigResult[]): string {
  const out: string[] = [];
  const ids = (rs: Row[]) => (rs.length ? rs.map((r) => r.id).join(' ') : '-');
  for (const c of results) {
    out.push(`\n${c.name}${c.calibration.length ? ` (calibration: ${c.calibration.join('; ')})` : ''}`);
    if (c.mode === 'control') {
      out.push(`  payload achieved its goal without devx: ${c.rows.filter(achieved).length}/${c.rows.length}`);
      out.push(`  inert here (goal not reached even without devx): ${ids(c.rows.filter((r) => !achieved(r)))}`);
      continue;
    }
    out.push(`  ran:           ${ids(c.rows.filter((r) => r.ran))}`);
    out.push(`  leaked:        ${ids(c.rows.filter((r) => r.leaked.length > 0))}`);
    out.push(`  wrote outside: ${ids(c.rows.filter((r) => r.wrote.length > 0))}`);
    const errs = c.rows.filter((r) => r.error);
    for (const r of errs) out.push(`  error #${r.id}: ${r.error}`);
  }
  // Every attack with an effect in some devx configuration, once, with what it did where.
  const devx = results.filter((c) => c.mode !== 'control');
  const hit = new Map<number, string[]>();
  for (const c of devx) {
    for (const r of c.rows.filter(harmful)) {
      const what = [
        r.ran ? `ran(${r.ranBy.join('+')})` : '',
        r.leaked.length ? `leaked(${r.leaked.join('+')})` : '',
        r.wrote.length ? `wrote(${r.wrote.join(', ')})` : '',
      ]
        .filter(Boolean)
        .join(' ');
      hit.set(r.id, [...(hit.get(r.id) ?? []), `${c.mode}/${c.sandbox}: ${what}`]);
    }
  }
  if (hit.size) {
    out.push('\nattacks with an effect (template; {M} marker, {URL} local server, {H} home, {O} outside, {P} project):');
    for (const a of ATTACKS.filter((x) => hit.has(x.id)))
      out.push(`  #${a.id} [${a.class}] ${JSON.stringify(a.cmd)}\n      ${hit.get(a.id)!.join('\n      ')}`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// The parent: every configuration in a child process, then one report.

const CONFIGS: { mode: Mode; sandbox: 'on' | 'off' }[] = [
  { mode: 'default', sandbox: 'off' },
  { mode: 'default', sandbox: 'on' },
  { mode: 'yolo', sandbox: 'off' },
  { mode: 'yolo', sandbox: 'on' },
  { mode: 'control', sandbox: 'off' },
];

export async function runAll(opts: { json?: string; only?: string; jobs?: number } = {}): Promise<ConfigResult[]> {
  const self = fileURLToPath(import.meta.url);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'devx-attacks-out-'));
  const jobs = opts.jobs ?? Number(process.env.BENCH_ATTACKS_JOBS ?? 2);
  const results: (ConfigResult | null)[] = CONFIGS.map(() => null);
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < CONFIGS.length) {
      const i = next++;
      const c = CONFIGS[i];
      const out = path.join(tmp, `${i}.json`);
      const args = [self, '--mode', c.mode, '--sandbox', c.sandbox, '--json', out, '--quiet', ...(opts.only ? ['--only', opts.only] : [])];
      // A minimal environment: the child replaces it anyway, and nothing of the real home is passed on.
      const child = spawn(process.execPath, args, {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const kill = setTimeout(() => child.kill('SIGKILL'), 20 * 60_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(kill);
      if (code !== 0 || !fs.existsSync(out)) throw new Error(`the ${configName(c.mode, c.sandbox)} run failed (exit ${code})`);
      results[i] = JSON.parse(fs.readFileSync(out, 'utf8')) as ConfigResult;
      process.stderr.write(`attacks: ${results[i]!.name} done in ${(results[i]!.ms / 1000).toFixed(1)} s\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  fs.rmSync(tmp, { recursive: true, force: true });
  const all = results as ConfigResult[];
  console.log(`\n## Attack set (${ATTACKS.length} commands), judged by effects; ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  console.log(table(all));
  console.log(details(all));
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(all, null, 1)}\n`);
  return all;
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = argValue(args, '--json');
  const only = argValue(args, '--only');
  if (args[0] === 'all' || args.length === 0) {
    await runAll({ json, only });
    return;
  }
  const mode = argValue(args, '--mode') as Mode | undefined;
  const sb = argValue(args, '--sandbox') ?? 'off';
  if (!mode || !['default', 'yolo', 'control'].includes(mode) || !['on', 'off'].includes(sb)) {
    throw new Error('usage: run.js all | --mode default|yolo|control --sandbox on|off [--json out.json] [--only 1,2,3]');
  }
  const r = await runConfig(mode, sb === 'on', only ? new Set(only.split(',').map(Number)) : undefined);
  if (json) fs.writeFileSync(json, `${JSON.stringify(r, null, 1)}\n`);
  if (!args.includes('--quiet')) {
    console.log(table([r]));
    console.log(details([r]));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
