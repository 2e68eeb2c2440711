// Every command and subcommand answers --help from the command table, and `devx --help` lists them all.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS as LOADERS, loadAllCommands } from '../../src/cli/commands/index.js';
import path from 'node:path';
import { DEVX_BIN, REPO_ROOT, makeHome, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { runScripted } from '../helpers/runCliHere.js';

// The table names each command by the name its module gives it.
const COMMANDS = await loadAllCommands();

describe('help', () => {
  it('each command loads under its own name', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(Object.keys(LOADERS));
  });

  const home = makeHome();
  const project = makeProject({});
  const env = { HOME: home, PATH: process.env.PATH };

  it('the tests run the binary package.json names, and it answers --version', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(path.join(REPO_ROOT, pkg.bin.devx)).toBe(DEVX_BIN);
    const r = await runDevx(['--version'], { cwd: project, env });
    expect(r.stdout).toBe(`devx ${pkg.version}\n`);
  });

  it('devx --help lists every command of the table', async () => {
    const r = await runDevx(['--help'], { cwd: project, env });
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c.name} +${c.summary.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
    expect(COMMANDS.map((c) => c.name)).toEqual(
      expect.arrayContaining(['run', 'agent', 'handoff', 'memory', 'sessions', 'policy', 'audit', 'trust', 'protocol']),
    );
  });

  it('every command and subcommand has --help (exit 0, its usage, its options)', async () => {
    const asks: string[][] = COMMANDS.flatMap((c) => [[c.name, '--help'], ...(c.subcommands ?? []).map((s) => [c.name, s.name, '--help'])]);
    expect(asks.length).toBeGreaterThan(25);
    // In this process (the dispatcher answers --help from the command table before any command runs); the binary's
    // own --help paths are the cases around this one.
    for (const args of asks) {
      const r = await runScripted(args, { cwd: project, home: env.HOME! });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^devx ${args.slice(0, -1).join(' ')}: \\S`));
      expect(r.stdout).toMatch(/\nUsage:\n {2}devx /);
      expect(r.stdout).toMatch(/-h, --help +this help/);
      expect(r.model.requests).toEqual([]);
    }
  });

  it('devx help is devx --help, devx help <command> [<subcommand>] its --help, and an alias runs its command', async () => {
    const [a, b] = await Promise.all([runDevx(['help'], { cwd: project, env }), runDevx(['--help'], { cwd: project, env })]);
    expect([a.code, a.stdout]).toEqual([0, b.stdout]);
    const [c, d] = await Promise.all([runDevx(['help', 'agent', 'run'], { cwd: project, env }), runDevx(['agent', 'run', '--help'], { cwd: project, env })]);
    expect([c.code, c.stdout]).toEqual([0, d.stdout]);
    const e = await runDevx(['help', 'frobnicate'], { cwd: project, env });
    expect([e.code, e.stderr]).toEqual([2, 'devx: unknown command "frobnicate". See devx help.\n']);
    const f = await runDevx(['session', '--json'], { cwd: project, env });
    expect([f.code, f.stdout]).toEqual([0, '[]\n']);
  });

  it('an unknown command or flag is a usage error naming it (exit 2)', async () => {
    const a = await runDevx(['frobnicate'], { cwd: project, env });
    expect([a.code, a.stderr]).toEqual([2, 'devx: unknown command "frobnicate". See devx --help.\n']);
    const b = await runDevx(['agent', 'list', '--frob'], { cwd: project, env });
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--frob/);
  });

  it('devx agent status outside a project says so and creates nothing', async () => {
    const dir = tempDir('devx-not-a-project-');
    const r = await runDevx(['agent', 'status'], { cwd: dir, env });
    expect([r.code, r.stdout]).toEqual([0, 'No agent tasks.\n']);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
