// Temp projects, temp homes and a runner for the built devx binary. Tests never see the machine's
// own ~/.gemini or ~/.devx: HOME is always a fresh temp directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeGeminiApi } from './fakeGeminiApi.js';

function findRepoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) || JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name !== 'devx') {
    dir = path.dirname(dir);
  }
  return dir;
}

export const REPO_ROOT = findRepoRoot();
export const GEMINI_BIN = path.join(REPO_ROOT, 'node_modules', '.bin', 'gemini');
/** The shipped binary (package.json "bin"): the bundle `npm run build` writes. */
export const DEVX_BIN = path.join(REPO_ROOT, 'dist', 'bundle', 'devx.cjs');

/** A new directory under this run's temp folder (test/globalSetup.ts; the bench sets its own), else under the system's. */
export function tempDir(prefix = 'devx-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(process.env.DEVX_TEST_TMP ?? os.tmpdir(), prefix)));
}

/**
 * A temp HOME whose gemini settings select API-key auth and turn off telemetry and update checks. It holds
 * devx's code cache for the built bundle (made once per test run by test/globalSetup.ts), as a person's
 * home does after their first run; `codeCache: false` leaves it out (the tests of the cache itself).
 */
export function makeHome(opts: { codeCache?: boolean } = {}): string {
  const home = tempDir('devx-home-');
  const cache = process.env.DEVX_TEST_CODE_CACHE;
  if (cache && opts.codeCache !== false && fs.existsSync(cache)) {
    fs.mkdirSync(path.join(home, '.devx', 'cache'), { recursive: true, mode: 0o700 });
    fs.copyFileSync(cache, path.join(home, '.devx', 'cache', path.basename(cache)));
  }
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    }),
  );
  return home;
}

/** Environment for an in-process run whose model is injected (no model CLI): the temp HOME, no handoff draft, no colour. */
export function inProcessEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, DEVX_HANDOFF: 'off', NO_COLOR: '1', ...extra };
}

/** Environment for a devx (or gemini) process that reaches only the fake API. */
export function fakeEnv(fake: FakeGeminiApi, home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: fake.url,
    GEMINI_API_KEY: 'test-key',
    DEVX_GEMINI_BIN: GEMINI_BIN,
    DEVX_RETRY_BASE_MS: '50',
    DEVX_HANDOFF: 'off',
    NO_COLOR: '1',
    // The real claude keeps a folder per project under its temp folder (os.tmpdir()/claude-<uid> by default):
    // under this run's temp folder, it goes when the run ends instead of piling up in /tmp.
    CLAUDE_CODE_TMPDIR: path.join(process.env.DEVX_TEST_TMP ?? os.tmpdir(), 'claude-tmp'),
    ...extra,
  };
}

export function makeProject(files: Record<string, string>, opts: { git?: boolean } = {}): string {
  const dir = tempDir('devx-proj-');
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  if (opts.git !== false) {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A'], { cwd: dir });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init', '--allow-empty'], { cwd: dir });
  }
  return dir;
}

export interface DevxRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

export function runDevx(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<DevxRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEVX_BIN, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`devx ${args.join(' ')} timed out\nstdout:${stdout}\nstderr:${stderr}`));
    }, opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid: child.pid! });
    });
    // A command that exits without reading its stdin (--version) closes the pipe first: EPIPE is not a failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** PIDs of live processes whose command line mentions `needle` (reads /proc). */
export function processesMatching(needle: string): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // zombies are already dead
      if (cmd.includes(needle)) out.push(Number(entry));
    } catch {
      /* process went away */
    }
  }
  return out;
}
