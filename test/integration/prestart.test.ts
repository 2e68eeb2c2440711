// The head start's parts with real child processes: the runner that adopts a running child, and the
// record → start ahead → adopt cycle (the e2e tests drive the same with the real gemini and claude).
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runProcess, runStarted, type StartedChild } from '../../src/util/processRunner.js';
import { prestart, takeReservedRunName } from '../../src/util/prestart.js';
import { startOrAdopt, withPrestarted } from '../../src/util/withPrestarted.js';
import { tempDir } from '../helpers/env.js';
import { isAlive as alive, until } from '../helpers/processes.js';

/** Starts `node -e code` the way util/prestart does: its own group, output collected from the start. */
function startChild(code: string): StartedChild {
  const child = spawn(process.execPath, ['-e', code], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const p: StartedChild = {
    child,
    pid: child.pid!,
    stdout: [],
    stderr: [],
    closed: new Promise((r) => child.once('close', (c, s) => r({ code: c, signal: s }))),
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => p.stdout.push(d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => p.stderr.push(d));
  return p;
}

describe('runStarted: a child that is already running', () => {
  it('gets its stdin, and its output from before and after adoption comes back whole', async () => {
    const p = startChild(
      `process.stdout.write('early\\n'); let i=''; process.stdin.on('data', d => i += d).on('end', () => { process.stdout.write('got ' + i); process.exit(3); });`,
    );
    await until(() => p.stdout.join('').includes('early'), 10_000);
    const seen: string[] = [];
    const r = await runStarted(p, { cwd: '/', input: 'the prompt', onStdout: (c) => seen.push(c) });
    expect(r).toMatchObject({ exitCode: 3, stdout: 'early\ngot the prompt', timedOut: false, cancelled: false });
    expect(seen.join('')).toBe('early\ngot the prompt');
  });

  it('a timeout kills its whole process group', async () => {
    const p = startChild(
      `const c = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' }); console.log(c.pid); setTimeout(() => {}, 60000);`,
    );
    await until(() => p.stdout.join('').trim().length > 0, 10_000);
    const grandchild = Number(p.stdout.join('').trim());
    const r = await runStarted(p, { cwd: '/', timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    await until(() => !alive(grandchild) && !alive(p.pid), 5_000);
  });

  it('an abort cancels it', async () => {
    const p = startChild(`setTimeout(() => {}, 60000)`);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await runStarted(p, { cwd: '/', signal: ac.signal });
    expect(r.cancelled).toBe(true);
    expect(alive(p.pid)).toBe(false);
  });

  it('output past the cap stops it and is cut', async () => {
    const p = startChild(`const s = 'x'.repeat(65536); setInterval(() => process.stdout.write(s), 1);`);
    const r = await runStarted(p, { cwd: '/', maxBuffer: 200_000 });
    expect(r.outputCapped).toBe(true);
    expect(r.stdout.length).toBe(200_000);
  });
});

/** A devx home, a project folder, and a long-lived stand-in CLI running `code`. */
function longLived(code: string): { home: string; cwd: string; script: string } {
  const script = path.join(tempDir('devx-prestart-cli-'), 'server.cjs');
  fs.writeFileSync(script, code);
  return { home: tempDir('devx-prestart-home-'), cwd: tempDir('devx-prestart-cwd-'), script };
}

describe('record, start ahead, adopt', () => {
  // A stand-in CLI: prints when it started, its system prompt file (read only once its stdin is in, as gemini does) and its stdin.
  const cli = (dir: string) => {
    const f = path.join(dir, 'cli.cjs');
    fs.writeFileSync(
      f,
      `let i = ''; process.stdin.on('data', d => i += d).on('end', () => { const fs = require('fs'); if (!fs.existsSync(process.env.SYS)) { process.stderr.write('missing system prompt file'); process.exit(1); } process.stdout.write(JSON.stringify({ started: performance.timeOrigin, sys: fs.readFileSync(process.env.SYS, 'utf8'), input: i, policy: fs.readFileSync(process.argv[2], 'utf8') })); });`,
    );
    return f;
  };
  const call = (home: string, runName: string, script: string, input: string) => {
    const run = path.join(home, 'run', runName);
    const sys = path.join(run, 'p', 'system.md');
    const policy = path.join(run, 'p', 'policy.toml');
    const launch = { dirs: [], files: { [policy]: 'deny all' }, tooEarly: /missing system prompt file/ };
    const cwd = path.join(run, 'p', 'scratch');
    fs.mkdirSync(cwd, { recursive: true });
    fs.writeFileSync(policy, 'deny all');
    fs.writeFileSync(sys, 'the system prompt');
    const t0 = performance.timeOrigin + performance.now();
    return withPrestarted(runProcess)(process.execPath, [script, policy], {
      cwd,
      input,
      env: { ...process.env, SYS: sys } as Record<string, string>,
      launch,
    }).then((r) => ({ r, t0 }));
  };

  it('the second run of a command adopts the process started from the first run’s plan; a different launch does not', async () => {
    const home = tempDir('devx-prestart-home-');
    const cwd = tempDir('devx-prestart-cwd-');
    const script = cli(tempDir('devx-prestart-cli-'));

    prestart(['run', 'first'], cwd, process.env, home);
    const first = await call(home, takeReservedRunName(home)!, script, 'one');
    expect(JSON.parse(first.r.stdout)).toMatchObject({ sys: 'the system prompt', input: 'one' });
    const [planName] = fs.readdirSync(path.join(home, 'run', 'launch-plans'));
    const plan = JSON.parse(fs.readFileSync(path.join(home, 'run', 'launch-plans', planName), 'utf8'));
    expect(plan.env).toEqual({ SYS: '{{DEVX_RUN}}/p/system.md' });
    expect(plan.files).toEqual({ '{{DEVX_RUN}}/p/policy.toml': 'deny all' });

    prestart(['run', 'second'], cwd, process.env, home);
    const name = takeReservedRunName(home)!;
    expect(takeReservedRunName(home)).toBeNull(); // given once: sub-agents get folders of their own
    // The policy file the CLI reads at start-up was written by the head start itself.
    expect(fs.readFileSync(path.join(home, 'run', name, 'p', 'policy.toml'), 'utf8')).toBe('deny all');
    await new Promise((r) => setTimeout(r, 300));
    const second = await call(home, name, script, 'two');
    const out = JSON.parse(second.r.stdout);
    expect(out).toMatchObject({ sys: 'the system prompt', input: 'two', policy: 'deny all' });
    expect(out.started).toBeLessThan(second.t0); // started before the call: adopted

    // Another command shape has no plan yet: its call starts its own process (e2e: a launch that differs is not adopted).
    prestart(['run', '--model', 'x', 'third'], cwd, process.env, home);
    const third = await call(home, takeReservedRunName(home)!, script, 'three');
    expect(JSON.parse(third.r.stdout).started).toBeGreaterThan(third.t0);
  });

  it('a plan that would create files outside the run folder is not used', async () => {
    const home = tempDir('devx-prestart-home-');
    const cwd = tempDir('devx-prestart-cwd-');
    const outside = path.join(tempDir('devx-prestart-out-'), 'written.txt');
    prestart(['run', 'first'], cwd, process.env, home);
    const dir = path.join(home, 'run', 'launch-plans');
    await call(home, takeReservedRunName(home)!, cli(tempDir('devx-prestart-cli-')), 'one');
    const [planName] = fs.readdirSync(dir);
    const plan = JSON.parse(fs.readFileSync(path.join(dir, planName), 'utf8'));
    for (const bad of [
      { files: { [outside]: 'x' } },
      { files: { '{{DEVX_RUN}}/../../escaped.txt': 'x' } },
      { dirs: ['/tmp/devx-prestart-not-mine'] },
      { stdoutFile: outside },
      { stderrFile: outside, protocol: true },
    ]) {
      fs.writeFileSync(path.join(dir, planName), JSON.stringify({ ...plan, ...bad }));
      prestart(['run', 'again'], cwd, process.env, home);
      expect(fs.existsSync(outside)).toBe(false);
      expect(fs.existsSync(path.join(home, 'escaped.txt'))).toBe(false);
      expect(fs.existsSync('/tmp/devx-prestart-not-mine')).toBe(false);
    }
  });

  it('a plan whose program is gone does not crash devx, and is dropped', async () => {
    const home = tempDir('devx-prestart-home-');
    const cwd = tempDir('devx-prestart-cwd-');
    prestart(['run', 'first'], cwd, process.env, home);
    await call(home, takeReservedRunName(home)!, cli(tempDir('devx-prestart-cli-')), 'one');
    const dir = path.join(home, 'run', 'launch-plans');
    const [planName] = fs.readdirSync(dir);
    const plan = JSON.parse(fs.readFileSync(path.join(dir, planName), 'utf8'));
    fs.writeFileSync(path.join(dir, planName), JSON.stringify({ ...plan, file: path.join(cwd, 'no-such-cli') }));
    prestart(['run', 'again'], cwd, process.env, home);
    await new Promise((r) => setTimeout(r, 200)); // the spawn error arrives as an event; unhandled, it would fail this test
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a long-lived process speaking on stdio: recorded once it answered, then started ahead and adopted with its output unread', async () => {
    // Greets at once (before any adopter reads), then echoes each line; its log goes to stderr.
    const { home, cwd, script } = longLived(
      `process.stderr.write('log\\n'); process.stdout.write('hello ' + process.pid + '\\n'); process.stdin.on('data', (d) => process.stdout.write('echo ' + d));`,
    );
    const firstLine = (p: { child: import('node:child_process').ChildProcess }) =>
      new Promise<string>((resolve) => {
        let buf = '';
        p.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
          buf += d;
          if (buf.includes('\n')) resolve(buf);
        });
      });
    const start = (runName: string) => {
      const run = path.join(home, 'run', runName);
      fs.mkdirSync(path.join(run, 'p', 'scratch'), { recursive: true });
      return startOrAdopt(process.execPath, [script], {
        cwd: path.join(run, 'p', 'scratch'),
        env: { MARK: 'x' },
        stderrFile: path.join(run, 'p', 'err.log'),
        launch: { dirs: [path.join(run, 'p')], files: {} },
      });
    };

    prestart(['run', 'first'], cwd, process.env, home);
    const first = start(takeReservedRunName(home)!);
    expect(first.adopted).toBe(false);
    expect(await firstLine(first.proc)).toBe(`hello ${first.proc.pid}\n`);
    expect(fs.existsSync(path.join(home, 'run', 'launch-plans'))).toBe(false); // not before it answered
    first.answered();
    first.proc.kill();
    await first.proc.exited;
    const dir = path.join(home, 'run', 'launch-plans');
    const plan = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]), 'utf8'));
    expect(plan).toMatchObject({ protocol: true, stderrFile: '{{DEVX_RUN}}/p/err.log', env: { MARK: 'x' } });

    prestart(['run', 'second'], cwd, process.env, home);
    const name = takeReservedRunName(home)!;
    await until(
      () => fs.existsSync(path.join(home, 'run', name, 'p', 'err.log')) && fs.readFileSync(path.join(home, 'run', name, 'p', 'err.log'), 'utf8') === 'log\n',
      5000,
    );
    const second = start(name);
    expect(second.adopted).toBe(true);
    // What it wrote before adoption was left in the pipe for its adopter.
    const greeting = firstLine(second.proc);
    expect(await greeting).toBe(`hello ${second.proc.pid}\n`);
    const echoed = new Promise<string>((resolve) => second.proc.child.stdout!.on('data', (d: string) => d.includes('echo') && resolve(d)));
    second.proc.child.stdin!.write('ping\n');
    expect(await echoed).toBe('echo ping\n');
    second.proc.kill();
    await second.proc.exited;
    expect(alive(second.proc.pid!)).toBe(false);
  });

  it('a head start no call adopts does not keep devx alive: the process ends on its own and the head start goes with it', async () => {
    // Waits for its client, as `gemini --acp` does; it says where it runs.
    const { home, cwd, script } = longLived(
      `require('fs').writeFileSync(__filename + '.' + process.pid, ''); process.stdout.write('ready\\n'); process.stdin.on('data', () => {});`,
    );
    const start = (runName: string) => {
      const run = path.join(home, 'run', runName);
      fs.mkdirSync(path.join(run, 'p', 'scratch'), { recursive: true });
      return startOrAdopt(process.execPath, [script], { cwd: path.join(run, 'p', 'scratch'), env: {}, launch: { dirs: [path.join(run, 'p')], files: {} } });
    };
    prestart(['run', 'first'], cwd, process.env, home);
    const first = start(takeReservedRunName(home)!);
    await until(() => fs.readdirSync(path.dirname(script)).length === 2, 10_000);
    first.answered();
    first.proc.kill();
    await first.proc.exited;

    // The next run of the command (the built module, in a process of its own) starts it ahead, works for 2 s, and ends without a call.
    const built = path.resolve('dist/src/util/prestart.js');
    const run = spawn(
      process.execPath,
      [
        '-e',
        `import(${JSON.stringify(built)}).then((m) => m.prestart(['run', 'second'], ${JSON.stringify(cwd)}, process.env, ${JSON.stringify(home)})); setTimeout(() => {}, 2000)`,
      ],
      {
        stdio: 'ignore',
      },
    );
    const ended = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
    await until(() => fs.readdirSync(path.dirname(script)).length === 3, 10_000);
    const headStart = Number(
      fs
        .readdirSync(path.dirname(script))
        .map((f) => f.split('.').pop())
        .find((pid) => pid !== 'cjs' && Number(pid) !== first.proc.pid),
    );
    expect(alive(headStart)).toBe(true);
    // A generous ceiling: without the fix it never ends.
    const code = await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000))]);
    if (code !== 0) for (const pid of [run.pid!, headStart]) process.kill(pid, 'SIGKILL');
    expect(code).toBe(0);
    await until(() => !alive(headStart), 5_000);
  });
});
