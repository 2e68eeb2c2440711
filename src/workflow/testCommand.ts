// The project's test command, run by devx itself to confirm a developer's "tests_passed": from
// settings (`testCommand`), else detected from package.json, pyproject.toml / pytest, a Makefile or
// Cargo/Go files. Runs inside the bubblewrap sandbox when there is one (no network, home hidden).
import fs from 'node:fs';
import path from 'node:path';
import { runProcess } from '../util/processRunner.js';
import { bashArgs, bashLine } from '../util/bashLine.js';
import { detectBwrap, sandboxCommand } from '../sandbox/bwrap.js';
import { commandEnv } from '../tools/commandEnv.js';
import { movedNote } from '../tools/runContained.js';
import { READ_LIMITS, readTextOrNull } from '../util/readRegularFileSync.js';

export interface TestCommand {
  command: string;
  source: string;
}

export function detectTestCommand(root: string, configured?: string): TestCommand | null {
  if (configured) return { command: configured, source: 'settings "testCommand"' };
  const has = (f: string) => fs.existsSync(path.join(root, f));
  if (has('package.json')) {
    try {
      const pkg = JSON.parse(readTextOrNull(path.join(root, 'package.json'), READ_LIMITS.definition, 'any') ?? '') as { scripts?: Record<string, string> };
      const t = pkg.scripts?.test;
      // npm's placeholder script fails on purpose; it is not a test command.
      if (t && !/no test specified/.test(t)) return { command: 'npm test', source: 'package.json scripts.test' };
    } catch {
      // an unreadable package.json: try the others
    }
  }
  if (has('pyproject.toml') || has('pytest.ini') || has('setup.cfg') || has('tox.ini')) return { command: 'python -m pytest -q', source: 'a Python project' };
  if (has('Makefile') && /^test\s*:/m.test(readTextOrNull(path.join(root, 'Makefile'), READ_LIMITS.definition, 'any') ?? ''))
    return { command: 'make test', source: 'Makefile target "test"' };
  if (has('Cargo.toml')) return { command: 'cargo test', source: 'Cargo.toml' };
  if (has('go.mod')) return { command: 'go test ./...', source: 'go.mod' };
  return null;
}

export interface TestRun {
  passed: boolean;
  exitCode: number | null;
  output: string;
  sandboxed: boolean;
}

export async function runTestCommand(
  root: string,
  cmd: TestCommand,
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; home?: string } = {},
): Promise<TestRun> {
  const env = opts.env ?? process.env;
  const bwrap = detectBwrap(env);
  // A test command is a build: the project writable, .git and other tools' configuration not.
  const sb = bwrap
    ? sandboxCommand({ bin: bwrap, root, home: opts.home ?? env.HOME ?? '', claim: { profile: 'build', writes: [] } }, root, bashLine(cmd.command))
    : null;
  // Its own process group: a timeout stops the whole test run, whatever it started.
  let moved: string[] = [];
  const r = await runProcess(sb?.file ?? 'bash', sb?.args ?? bashArgs(cmd.command), {
    cwd: root,
    env: commandEnv(env, root),
    extendEnv: false,
    all: true,
    timeoutMs: opts.timeoutMs ?? 600_000,
    reapGroup: true,
    passFds: sb?.fds,
  }).finally(() => (moved = sb?.cleanup() ?? []));
  const all = [r.all ?? '', ...movedNote(moved)].join('\n');
  const output = all.length > 8000 ? `...(${all.length - 8000} characters cut)\n${all.slice(-8000)}` : all;
  return { passed: r.exitCode === 0 && !r.timedOut, exitCode: r.exitCode ?? null, output: r.timedOut ? `${output}\n(timed out)` : output, sandboxed: !!bwrap };
}
