// A model call settles on the answer in stdout while its CLI is still shutting down, and devx still
// owns that process: it is waited for (awaitLingering), reported when it ends, and stopped if it stays.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runProcess, runStarted, type StartedChild } from '../../src/util/processRunner.js';
import { awaitLingering, type AnswerCheck } from '../../src/util/settleOnAnswer.js';
import { ClaudeCliBackend } from '../../src/providers/claude/claudeCli.js';
import { BackendError } from '../../src/providers/types.js';
import { tempDir } from '../helpers/env.js';
import { isAlive, until } from '../helpers/processes.js';

// Answers with {"ok":true}; anything else is not an answer.
const okLine: AnswerCheck = {
  marker: /\}\s*$/,
  test: (out) => {
    try {
      return (JSON.parse(out.trim()) as { ok?: boolean }).ok === true;
    } catch {
      return false;
    }
  },
};

/** A child that prints `line` in two writes (once its stdin has ended), then stays `stayMs` before exiting with `code`. */
const answerThenStay = (line: string, stayMs: number, code = 0) =>
  `process.stdin.resume().on('end', () => { const s = ${JSON.stringify(line)}; process.stdout.write(s.slice(0, 5)); setTimeout(() => { process.stdout.write(s.slice(5) + '\\n'); setTimeout(() => process.exit(${code}), ${stayMs}); }, 20); });`;

function observer() {
  const events: string[] = [];
  let pid = 0;
  return {
    events,
    pid: () => pid,
    observer: { started: (g: number) => ((pid = g), events.push('started')), ended: () => events.push('ended') },
  };
}

describe('runProcess settles on the answer', () => {
  it('returns while the child is still exiting; the child is reported ended and gone after awaitLingering', async () => {
    const o = observer();
    const r = await runProcess(process.execPath, ['-e', answerThenStay('{"ok":true}', 600)], { cwd: '/', answered: okLine, observer: o.observer });
    expect(r).toMatchObject({ answered: true, exitCode: null, stdout: '{"ok":true}\n', timedOut: false, cancelled: false });
    expect(isAlive(o.pid())).toBe(true);
    expect(o.events).toEqual(['started']);
    await awaitLingering();
    expect(isAlive(o.pid())).toBe(false);
    expect(o.events).toEqual(['started', 'ended']);
  });

  it('output that is not a successful answer waits for the exit and keeps its exit code', async () => {
    const r = await runProcess(process.execPath, ['-e', answerThenStay('{"ok":false}', 100, 3)], { cwd: '/', answered: okLine });
    expect(r.answered).toBeUndefined();
    expect(r).toMatchObject({ exitCode: 3, stdout: '{"ok":false}\n' });
  });

  it('a child that answers and then does not exit is stopped after the linger time', async () => {
    const o = observer();
    const r = await runProcess(process.execPath, ['-e', answerThenStay('{"ok":true}', 60_000)], {
      cwd: '/',
      answered: { ...okLine, lingerMs: 300 },
      observer: o.observer,
    });
    expect(r.answered).toBe(true);
    await awaitLingering();
    expect(isAlive(o.pid())).toBe(false);
    expect(o.events).toEqual(['started', 'ended']);
  });
});

describe('runStarted settles on the answer', () => {
  it('counts output from before the adoption, and the child is waited for', async () => {
    const code = `process.stdout.write('{"ok"'); process.stdin.resume().on('end', () => { process.stdout.write(':true}\\n'); setTimeout(() => {}, 500); });`;
    const child = spawn(process.execPath, ['-e', code], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const p: StartedChild = {
      child,
      pid: child.pid!,
      stdout: [],
      stderr: [],
      closed: new Promise((res) => child.once('close', (c, s) => res({ code: c, signal: s }))),
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => p.stdout.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => p.stderr.push(d));
    await until(() => p.stdout.join('').length > 0, 10_000);
    const r = await runStarted(p, { cwd: '/', input: 'go', answered: okLine });
    expect(r).toMatchObject({ answered: true, stdout: '{"ok":true}\n' });
    expect(isAlive(p.pid)).toBe(true);
    await awaitLingering();
    expect(isAlive(p.pid)).toBe(false);
  });
});

describe('a CLI provider settles on its answer', () => {
  // A stand-in claude: prints the result JSON it is given, then takes 500 ms to exit with the given code.
  const standIn = (dir: string, result: object, code: number) => {
    const f = path.join(dir, 'claude');
    fs.writeFileSync(f, `#!${process.execPath}\n${answerThenStay(JSON.stringify(result), 500, code)}\n`, { mode: 0o755 });
    return f;
  };
  const backend = (bin: string, dir: string) =>
    new ClaudeCliBackend({
      bin,
      workDir: dir,
      runner: runProcess,
      model: 'sonnet',
      accounts: [],
      timeoutMs: 30_000,
      maxRetries: 0,
      baseDelayMs: 10,
      maxDelayMs: 10,
    });

  it('a successful result is the reply before claude has exited', async () => {
    const dir = tempDir('devx-answer-');
    const bin = standIn(dir, { type: 'result', is_error: false, result: 'pong', usage: { input_tokens: 3, output_tokens: 1 } }, 0);
    const reply = await backend(bin, dir).complete({ prompt: 'ping', systemPrompt: 'sys' });
    expect(reply.text).toBe('pong');
    const running = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e) && isAlive(Number(e)) && safeCmdline(e).includes(bin));
    expect(running.length).toBe(1);
    await awaitLingering();
    expect(running.filter((e) => isAlive(Number(e)))).toEqual([]);
  });

  it('what the CLI left running in its process group is stopped once it has exited (codex runs lsb_release as it ends)', async () => {
    const dir = tempDir('devx-answer-');
    const pidFile = path.join(dir, 'background.pid');
    const result = JSON.stringify({ type: 'result', is_error: false, result: 'pong', usage: { input_tokens: 3, output_tokens: 1 } });
    const bin = path.join(dir, 'claude');
    // Answers, leaves a child running in its own group (not detached), and exits 100 ms later.
    const script = `process.stdin.resume().on('end', () => { const c = require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' }); require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); c.unref(); process.stdout.write(${JSON.stringify(result)} + '\\n'); setTimeout(() => process.exit(0), 100); });`;
    fs.writeFileSync(bin, `#!${process.execPath}\n${script}\n`, { mode: 0o755 });
    const reply = await backend(bin, dir).complete({ prompt: 'ping', systemPrompt: 'sys' });
    expect(reply.text).toBe('pong');
    await awaitLingering();
    const left = Number(fs.readFileSync(pidFile, 'utf8'));
    try {
      // SIGKILL is delivered at once; the kernel ends the process a moment later.
      await until(() => !isAlive(left), 5000).catch(() => undefined);
      expect(isAlive(left)).toBe(false);
    } finally {
      if (isAlive(left)) process.kill(left, 'SIGKILL');
    }
  });

  it('an error result is classified after the exit, as before', async () => {
    const dir = tempDir('devx-answer-');
    const bin = standIn(dir, { type: 'result', is_error: true, api_error_status: 429, result: 'rate limited' }, 1);
    const err = await backend(bin, dir)
      .complete({ prompt: 'ping', systemPrompt: 'sys' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect(err).toMatchObject({ kind: 'quota', exitCode: 1 });
  });
});

function safeCmdline(pid: string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
