// devx's children end with devx, even when devx is killed with -9 and no exit hook runs: the warm gemini
// waiting on a hung API, and a command a person approved. Measured from /proc: the processes carrying
// devx's owner marker are gone right after the kill (the time is printed), without waiting for the next devx start.
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApiAndChildren } from '../helpers/useFakeApi.js';
import { REPO_ROOT, fakeEnv, makeProject } from '../helpers/env.js';
import { startDevx, until } from '../helpers/processes.js';
import { startInPty, type PtySession } from '../helpers/pty.js';
import { OWNER_ENV } from '../../src/util/reapGroups.js';

let fake: FakeGeminiApi;
let home: string;
const children: ChildProcess[] = useFakeApiAndChildren((f, h) => {
  fake = f;
  home = h;
});
const sessions: PtySession[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill();
});

/** Live processes whose environment names `owner` as the devx that started them. */
function startedBy(owner: number): number[] {
  const marker = `${OWNER_ENV}=${owner}`;
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return !/\) [ZX] /.test(fs.readFileSync(`/proc/${e}/stat`, 'utf8')) && fs.readFileSync(`/proc/${e}/environ`, 'utf8').split('\0').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

// Each figure is printed; the bound tells devx's watch from none (a child that lives on until the next devx
// start) on a loaded machine too.
const GONE_MS = 5000;

/** kill -9 of `devx`, then how long (ms) its marked children outlive it; at most `limit` ms is waited. */
async function outlivedAfterKill(devx: number, limit = 10_000): Promise<number> {
  const killed = Date.now();
  process.kill(devx, 'SIGKILL');
  await until(() => startedBy(devx).length === 0, limit).catch(() => undefined);
  return Date.now() - killed;
}

/** A process's command line ('' once it is gone: it can end between listing /proc and reading it). */
function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The devx process under the pty's script(1) (whose own command line names the binary too): node running it in `cwd`. */
function devxIn(cwd: string): number {
  const pid = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .find((e) => {
      try {
        return fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0')[1]?.endsWith('devx.cjs') && fs.readlinkSync(`/proc/${e}/cwd`) === cwd;
      } catch {
        return false;
      }
    });
  if (!pid) throw new Error(`no devx running in ${cwd}`);
  return Number(pid);
}

describe('kill -9 of devx', () => {
  it('its warm gemini, waiting on a hung API, is gone without waiting for the next devx start', async () => {
    fake.fallback = { hang: true };
    const project = makeProject({});
    const { child } = startDevx(['run', 'hello'], project, fakeEnv(fake, home), children);
    await until(() => fake.modelCalls.length === 1);
    expect(startedBy(child.pid!).length).toBeGreaterThan(0);
    const ms = await outlivedAfterKill(child.pid!);
    console.log(`a gemini child outlived kill -9 of devx by ${ms} ms`);
    expect(startedBy(child.pid!)).toEqual([]);
    expect(ms).toBeLessThan(GONE_MS);
  }, 60_000);

  it('a command a person approved (its whole process group) is gone without waiting for the next devx start', async () => {
    fake.push({ text: 'TOOL_CALL: run_command | cmd=./wait.sh' }, { text: 'never sent' });
    const project = makeProject({ 'wait.sh': '#!/bin/sh\nsleep 60 &\nsleep 60\n' });
    fs.chmodSync(`${project}/wait.sh`, 0o755);
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('wait a minute\r');
    await s.waitFor(/Allow\? \[y\]es|running run_command/);
    if (/Allow\? \[y\]es/.test(s.screen())) s.type('y\r');
    const devx = devxIn(project);
    // The shell and both sleeps, in the command's own group.
    await until(() => startedBy(devx).filter((p) => cmdlineOf(p).startsWith('sleep')).length === 2);
    const ms = await outlivedAfterKill(devx);
    console.log(`a command's processes outlived kill -9 of devx by ${ms} ms`);
    expect(startedBy(devx)).toEqual([]);
    expect(ms).toBeLessThan(GONE_MS);
  }, 60_000);
});

describe("a background command's process that left its group (setsid)", () => {
  const DEV = "#!/bin/sh\n(setsid sh -c 'sleep 61' &)\nsleep 62\n";
  /** A REPL in `project` that ran ./dev.sh in the background with a person's yes, once both sleeps run. */
  async function startedInBackground(): Promise<{ s: PtySession; devx: number }> {
    fake.push({ text: 'TOOL_CALL: run_command | cmd=./dev.sh | background=true' }, { text: 'Started it.' });
    const project = makeProject({ 'dev.sh': DEV });
    fs.chmodSync(`${project}/dev.sh`, 0o755);
    const s = startInPty([], project, fakeEnv(fake, home));
    sessions.push(s);
    await s.waitFor(/Type a task/);
    s.type('start the dev server\r');
    await s.waitFor(/Allow\? \[y\]es/);
    s.type('y\r');
    await s.waitFor(/Started it\./);
    const devx = devxIn(project);
    await until(() => startedBy(devx).filter((p) => cmdlineOf(p).startsWith('sleep')).length === 2);
    return { s, devx };
  }

  it('is gone after kill -9 of devx', async () => {
    const { devx } = await startedInBackground();
    const ms = await outlivedAfterKill(devx);
    console.log(`a setsid child of a background command outlived kill -9 of devx by ${ms} ms`);
    expect(startedBy(devx)).toEqual([]);
    expect(ms).toBeLessThan(GONE_MS);
  }, 60_000);

  it('is gone after /exit', async () => {
    const { s, devx } = await startedInBackground();
    s.type('/exit\r');
    await until(() => !fs.existsSync(`/proc/${devx}`) || /\) [ZX] /.test(fs.readFileSync(`/proc/${devx}/stat`, 'utf8')), 20_000).catch((e) => {
      throw new Error(`${e.message}\n${s.screen()}`);
    });
    expect(startedBy(devx)).toEqual([]);
  }, 60_000);
});

describe('kill -9 of devx with an MCP server running', () => {
  it('a server that ignores the end of its input, and the child it started, are gone without waiting for the next devx start', async () => {
    const server = path.join(REPO_ROOT, 'test', 'fixtures', 'flakyMcpServer.mjs');
    fs.mkdirSync(path.join(home, '.devx'), { recursive: true });
    const settings = { mcpServers: { stay: { command: process.execPath, args: [server], env: { FLAKY_STAY: '1' }, trust: true } } };
    fs.writeFileSync(path.join(home, '.devx', 'settings.json'), JSON.stringify(settings));
    fake.fallback = { hang: true };
    const project = makeProject({});
    // A one-shot run outside a terminal: no hangup from a closing terminal stops the server for devx.
    const { child } = startDevx(['run', 'hello'], project, fakeEnv(fake, home), children);
    const devx = child.pid!;
    // The server and its child, both carrying devx's marker (the SDK starts the server in devx's own group).
    await until(() => startedBy(devx).filter((p) => /flakyMcpServer|flaky-child/.test(cmdlineOf(p))).length === 2);
    const ms = await outlivedAfterKill(devx);
    console.log(`an MCP server's processes outlived kill -9 of devx by ${ms} ms`);
    expect(startedBy(devx)).toEqual([]);
    expect(ms).toBeLessThan(GONE_MS);
  }, 60_000);
});

describe('kill -9 of devx with a background command running', () => {
  it('the background server (its whole process group) is gone without waiting for the next devx start', async () => {
    fs.mkdirSync(`${home}/.devx`, { recursive: true });
    fs.writeFileSync(`${home}/.devx/settings.json`, JSON.stringify({ permissions: { allow: ['Bash(node:*)'] } }));
    const project = makeProject({ 'serve.js': "require('node:child_process').spawn('sleep', ['60']);\nsetInterval(() => {}, 1000);\n" });
    fake.push({ text: 'TOOL_CALL: run_command | cmd=node serve.js | background=true' }, { hang: true });
    const { child } = startDevx(['run', 'serve'], project, fakeEnv(fake, home), children);
    // The server and the child it started, in the command's own group.
    await until(() => startedBy(child.pid!).filter((p) => /^(sleep|node\0serve\.js)/.test(cmdlineOf(p))).length === 2);
    await until(() => fake.modelCalls.length === 2);
    const ms = await outlivedAfterKill(child.pid!);
    console.log(`a background command's processes outlived kill -9 of devx by ${ms} ms`);
    expect(startedBy(child.pid!)).toEqual([]);
    expect(ms).toBeLessThan(GONE_MS);
  }, 60_000);
});
