// A registry lock a gemini exited with (providers/gemini/registryLock.ts) is removed from devx's sealed home,
// and only from there: unit cases, then a real per-call run of a stand-in gemini that exits holding it. The
// sealed home's pruning of gone registrations takes the same lock.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { GeminiCliBackend } from '../../src/providers/gemini/geminiCli.js';
import { WarmGeminiBackend } from '../../src/providers/gemini/warmGemini.js';
import { LEFT_LOCK_MS, dropLeftRegistryLock, registryLockOf } from '../../src/providers/gemini/registryLock.js';
import { runProcess } from '../../src/util/processRunner.js';
import { awaitLingering } from '../../src/util/settleOnAnswer.js';
import { tempDir } from '../helpers/env.js';
import { until } from '../helpers/processes.js';

function lockIn(home: string, ageMs = 0): string {
  const lock = registryLockOf(home);
  fs.mkdirSync(lock, { recursive: true });
  const t = new Date(Date.now() - ageMs);
  fs.utimesSync(lock, t, t);
  return lock;
}

/**
 * A stand-in gemini in `dir` that takes the registry lock in its home as it starts and notes that home in
 * `dir/homes`, then does `then` (its JavaScript).
 */
function lockingGemini(dir: string, then: string): string {
  const bin = path.join(dir, 'gemini');
  fs.writeFileSync(
    bin,
    `#!${process.execPath}
const fs = require('fs'), path = require('path');
const home = process.env.GEMINI_CLI_HOME;
fs.mkdirSync(path.join(home, '.gemini', 'projects.json.lock'), { recursive: true });
fs.appendFileSync(${JSON.stringify(path.join(dir, 'homes'))}, home + '\\n');
${then}
`,
    { mode: 0o755 },
  );
  return bin;
}

/** What both backends are given: the stand-in, no retries, temp folders for the work and the home. */
const backendOptions = (bin: string, accounts: ConstructorParameters<typeof GeminiCliBackend>[0]['accounts'] = []) => ({
  bin,
  model: 'm',
  accounts,
  workDir: tempDir('devx-reglock-work-'),
  env: { PATH: process.env.PATH ?? '', HOME: tempDir('devx-reglock-home-') },
  timeoutMs: 30_000,
  maxRetries: 0,
  baseDelayMs: 10,
  maxDelayMs: 10,
  runner: runProcess,
});

describe('dropLeftRegistryLock', () => {
  it('removes a lock made since the call started, or one older than LEFT_LOCK_MS; keeps a fresh one and anything else', () => {
    const home = tempDir('devx-reglock-');
    const started = Date.now() - 50;
    expect(dropLeftRegistryLock(home, { since: started })).toBe(false); // none there
    const lock = lockIn(home);
    expect(dropLeftRegistryLock(home, {})).toBe(false); // fresh, and no call to tie it to: another gemini may hold it
    expect(fs.existsSync(lock)).toBe(true);
    expect(dropLeftRegistryLock(home, { since: started })).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
    lockIn(home, LEFT_LOCK_MS + 2_000);
    expect(dropLeftRegistryLock(home, { since: Date.now() })).toBe(true); // made before the call, but long left
    expect(fs.existsSync(lock)).toBe(false);
    fs.writeFileSync(lock, ''); // not proper-lockfile's folder: not devx's to remove
    fs.utimesSync(lock, new Date(0), new Date(0));
    expect(dropLeftRegistryLock(home, {})).toBe(false);
    expect(fs.existsSync(lock)).toBe(true);
  });
});

describe('a per-call gemini that exits holding the registry lock', () => {
  // Takes the lock in its home, answers, and exits 100 ms later without releasing it (as gemini 0.61 can).
  const standIn = (dir: string) =>
    lockingGemini(
      dir,
      `process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(JSON.stringify({ session_id: 's', response: 'ok', stats: { models: { m: { tokens: { prompt: 1, candidates: 1, total: 2 } } } } }));
  setTimeout(() => process.exit(0), 100);
});`,
    );
  const backend = (dir: string, accounts: ConstructorParameters<typeof GeminiCliBackend>[0]['accounts'] = []) =>
    new GeminiCliBackend(backendOptions(standIn(dir), accounts));
  const req = { prompt: 'PROMPT', systemPrompt: 'SYS' };

  it("in devx's sealed home: the lock is gone once the process has exited, so the next gemini does not wait for it", async () => {
    const dir = tempDir('devx-reglock-bin-');
    const r = await backend(dir).complete(req);
    expect(r.text).toBe('ok');
    await awaitLingering();
    const [home] = fs.readFileSync(path.join(dir, 'homes'), 'utf8').trim().split('\n');
    expect(home).toContain('gemini-home');
    expect(fs.existsSync(registryLockOf(home))).toBe(false);
  });

  it("in the home an account's wrapper command chose: left alone", async () => {
    const dir = tempDir('devx-reglock-bin-');
    const own = tempDir('devx-reglock-own-');
    const wrapper = path.join(dir, 'account.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\nGEMINI_CLI_HOME=${own} exec ${path.join(dir, 'gemini')} "$@"\n`, { mode: 0o755 });
    const b = backend(dir, [{ name: 'own', command: [wrapper] }]);
    expect((await b.complete(req)).text).toBe('ok');
    await awaitLingering();
    expect(fs.existsSync(registryLockOf(own))).toBe(true);
  });
});

describe('a warm gemini killed while it holds the registry lock', () => {
  // Takes the lock in its home as it starts, then waits for its client forever: devx kills it outright.
  it("in devx's sealed home: the lock is gone once the killed process has exited", async () => {
    const dir = tempDir('devx-reglock-bin-');
    const backend = new WarmGeminiBackend(backendOptions(lockingGemini(dir, 'setInterval(() => {}, 1000);')));
    const stop = new AbortController();
    const call = backend.complete({ prompt: 'PROMPT', systemPrompt: 'SYS', signal: stop.signal }).catch((err: Error) => err);
    const homes = path.join(dir, 'homes');
    await until(() => fs.existsSync(homes));
    const home = fs.readFileSync(homes, 'utf8').trim();
    expect(home).toContain('gemini-home');
    expect(fs.existsSync(registryLockOf(home))).toBe(true);
    stop.abort();
    expect(await call).toBeInstanceOf(Error);
    backend.dispose();
    await until(() => !fs.existsSync(registryLockOf(home)), 10_000);
  });
});

describe("pruning the sealed home's registry", () => {
  it('drops the registrations of folders that are gone once there are PRUNE_PROJECTS_AT, never while a gemini holds the registry lock', async () => {
    const work = tempDir('devx-seal-');
    const env = { HOME: tempDir('devx-sealhome-'), PATH: process.env.PATH };
    // A fresh copy of the module each time: it prunes a seal once per process.
    const load = async () => {
      vi.resetModules();
      return import('../../src/providers/gemini/sealedHome.js');
    };
    const { sealedGeminiHome, PRUNE_PROJECTS_AT } = await load();
    const g = path.join(sealedGeminiHome(env, work), '.gemini');
    const gone = Object.fromEntries(Array.from({ length: PRUNE_PROJECTS_AT }, (_, i) => [path.join(work, 'gone', String(i)), `scratch-${i}`]));
    const registry = { projects: { ...gone, [work]: 'live' } };
    fs.writeFileSync(path.join(g, 'projects.json'), JSON.stringify(registry));
    for (const id of [...Object.values(gone), 'live']) fs.mkdirSync(path.join(g, 'tmp', id), { recursive: true });
    const ids = () => fs.readdirSync(path.join(g, 'tmp')).sort();

    // A gemini registering its folder holds the lock: nothing is rewritten under it.
    const lock = lockIn(g.slice(0, -'/.gemini'.length));
    (await load()).sealedGeminiHome(env, work);
    expect(JSON.parse(fs.readFileSync(path.join(g, 'projects.json'), 'utf8'))).toEqual(registry);
    expect(ids()).toHaveLength(PRUNE_PROJECTS_AT + 1);

    fs.rmdirSync(lock);
    (await load()).sealedGeminiHome(env, work);
    expect(JSON.parse(fs.readFileSync(path.join(g, 'projects.json'), 'utf8'))).toEqual({ projects: { [work]: 'live' } });
    expect(ids()).toEqual(['live']);
    expect(fs.existsSync(lock)).toBe(false);
  });
});
