// Measured: 500 whole devx operations with the project on a real small tmpfs, and
// 500 with ~/.devx on one. The disk fills, space comes back now and then (ballast removed, as a user
// would), and the runs go on. Judged at the end: every acknowledged write is there whole, every state
// file parses (history, sessions, workflow-free queue, the audit chain), and nothing crashed: each
// failure is a DiskError naming the file or a failed tool result, never another exception.
// One summary line per side: DISKFULL side=… ops=500 acknowledged=… lost=0 unparseable=0 crashes=0.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { endSession, startSession } from '../../src/runtime/startSession.js';
import { DiskError, OwnedPathError } from '../../src/util/ownedFile.js';
import { verifyChain } from '../../src/audit/chainedAppend.js';
import { loadHistory } from '../../src/session/history.js';
import { listRecords, sessionsDir } from '../../src/session/sessionRecord.js';
import { openStore } from '../../src/knowledge/openStore.js';
import { SessionBusyError } from '../../src/session/session.js';
import { tempDir } from '../helpers/env.js';

const base = tempDir('devx-diskfull-');
const mounts: string[] = [];
/** A fresh tmpfs of `size` for one test. */
function mountSmall(size: string): string {
  const dir = fs.mkdtempSync(path.join(base, 'small-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  mounts.push(dir);
  return dir;
}
let mounted = false;
try {
  mountSmall('64k');
  mounted = true;
} catch {
  console.log('diskFull: no tmpfs could be mounted here (not root, or no mount rights): skipped');
}
afterAll(() => {
  for (const m of mounts) execFileSync('umount', ['-l', m]);
});
// How often the user frees 16 KB: often enough that work goes on, rarely enough that the disk keeps filling.
const FREE_EVERY = { project: 4, home: 40 };

const clean = (e: unknown) => e instanceof DiskError || e instanceof OwnedPathError || e instanceof SessionBusyError;

/** Fills `dir` with ballast files of 16 KB until the disk is full; returns them, to free one at a time. */
function fillWithBallast(dir: string): string[] {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const f = path.join(dir, `ballast-${i}`);
    try {
      fs.writeFileSync(f, Buffer.alloc(16 * 1024, 1));
      out.push(f);
    } catch {
      fs.rmSync(f, { force: true });
      return out;
    }
  }
}

let prevEnv: NodeJS.ProcessEnv;
beforeAll(() => {
  prevEnv = { ...process.env };
});
afterAll(() => {
  process.env = prevEnv;
});

describe.skipIf(!mounted)('a full disk loses nothing acknowledged (500 operations each side, real tmpfs)', () => {
  it('the project on a full disk: 500 turns that write files, with history, sessions, audit and handoffs', async () => {
    const small = mountSmall('2m');
    const root = path.join(small, 'project');
    fs.mkdirSync(path.join(root, '.devx'), { recursive: true });
    const home = tempDir('devx-diskfull-home-');
    process.env.HOME = home;
    delete process.env.DEVX_HOME;
    const env = { PATH: process.env.PATH, HOME: home, DEVX_HANDOFF: 'plain' };
    // Take most of the disk, leaving room for a few dozen turns; the rest fills as the turns go.
    const ballast = fillWithBallast(small);
    for (const f of ballast.splice(-2)) fs.rmSync(f);
    const acknowledged = new Map<string, string>();
    let ops = 0;
    let failed = 0;
    const crashes: string[] = [];
    for (let s = 0; ops < 500; s++) {
      const PER_SESSION = 50;
      // Every FREE_EVERY operations a ballast file goes: the user freed some space.
      let started;
      try {
        started = await startSession({
          cwd: root,
          env,
          yes: true,
          backend: new ScriptedBackend(
            Array.from({ length: PER_SESSION }, (_, i) => {
              const n = s * PER_SESSION + i;
              return [`TOOL_CALL: write_file | path=out/f${n}.txt | content=${`line ${n} `.repeat(40)}`, 'Done.'];
            }).flat(),
          ),
        });
      } catch (e) {
        ops++;
        failed++;
        if (!clean(e)) crashes.push(`start: ${(e as Error).stack}`);
        if (ops % FREE_EVERY.project === 0 && ballast.length) fs.rmSync(ballast.pop()!);
        continue;
      }
      for (let i = 0; i < PER_SESSION && ops < 500; i++, ops++) {
        const n = s * PER_SESSION + i;
        const events: { type: string; outcome?: { status: string; content: string; args: Record<string, string> } }[] = [];
        const off = started.run.subscribe((e) => events.push(e as never));
        try {
          const r = await started.run.prompt(`write out/f${n}.txt`);
          const done = events.find((e) => e.type === 'tool_end')?.outcome;
          // Acknowledged: the turn answered and the write's result said it was done (the scripted replies can drift
          // after a failed turn, so the call's own arguments say which file and what content).
          if (r.status === 'answered' && done?.status === 'ok') acknowledged.set(path.join(root, done.args.path), done.args.content);
          else failed++;
        } catch (e) {
          failed++;
          if (!clean(e)) crashes.push(`turn ${n}: ${(e as Error).stack}`);
        } finally {
          off();
        }
        if (ops % FREE_EVERY.project === 0 && ballast.length) fs.rmSync(ballast.pop()!);
      }
      try {
        await endSession(started, { draft: 'plain' });
      } catch (e) {
        if (!clean(e)) crashes.push(`end: ${(e as Error).stack}`);
        started.session.abandon();
      }
    }
    // Room again, then judge what is on the disk.
    for (const f of ballast) fs.rmSync(f);
    const lost = [...acknowledged].filter(([f, text]) => {
      try {
        return fs.readFileSync(f, 'utf8') !== text.trimEnd(); // the protocol trims a value's trailing space
      } catch {
        return true;
      }
    });
    const unparseable: string[] = [];
    const h = loadHistory(path.join(root, '.devx', 'history.json'));
    if (h.warning) unparseable.push(`history: ${h.warning}`);
    for (const n of fs.readdirSync(sessionsDir(root))) {
      try {
        JSON.parse(fs.readFileSync(path.join(sessionsDir(root), n), 'utf8'));
      } catch {
        unparseable.push(n);
      }
    }
    const chain = verifyChain(path.join(root, '.devx', 'audit.jsonl'));
    if (!chain.ok) unparseable.push(`audit: ${JSON.stringify(chain)}`);
    // No temp file of an atomic write is left behind.
    const leftovers = fs
      .readdirSync(path.join(root, '.devx'), { recursive: true })
      .map(String)
      .filter((n) => /\.tmp$|\.w\d+\./.test(n));
    console.log(
      `DISKFULL side=project ops=${ops} acknowledged=${acknowledged.size} failed=${failed} lost=${lost.length} unparseable=${unparseable.length} crashes=${crashes.length}`,
    );
    expect(failed, 'the disk never filled: the test proves nothing').toBeGreaterThan(20);
    expect(acknowledged.size, 'nothing succeeded: the test proves nothing').toBeGreaterThan(20);
    expect({ lost: lost.map(([f]) => f), unparseable, crashes, leftovers }).toEqual({ lost: [], unparseable: [], crashes: [], leftovers: [] });
    expect(listRecords(root).length).toBeGreaterThan(0);
    fs.rmSync(root, { recursive: true, force: true });
  }, 600_000);

  it('~/.devx on a full disk: 500 `memory add`s, each acknowledged note is stored', async () => {
    const small = mountSmall('512k');
    const devx = path.join(small, 'devx-home');
    fs.mkdirSync(devx);
    const env = { DEVX_HOME: devx, PATH: process.env.PATH };
    const ballast = fillWithBallast(small);
    for (const f of ballast.splice(-2)) fs.rmSync(f);
    const acknowledged = new Map<string, string>();
    let failed = 0;
    const crashes: string[] = [];
    for (let i = 0; i < 500; i++) {
      // A fresh store each time, as each `devx memory add` is a process of its own.
      const store = openStore({ env, devxHome: devx, cwd: base });
      const content = `note ${i}: ${'the build needs node 20 '.repeat(8)}`;
      try {
        const [id] = await store.add([{ content, metadata: { agent: 'user', timestamp: new Date(0).toISOString(), project: 'p', type: 'note', tags: [] } }]);
        acknowledged.set(id, content);
      } catch (e) {
        failed++;
        if (!clean(e)) crashes.push(`add ${i}: ${(e as Error).stack}`);
      }
      if (i % FREE_EVERY.home === FREE_EVERY.home - 1 && ballast.length) fs.rmSync(ballast.pop()!);
    }
    for (const f of ballast) fs.rmSync(f);
    const store = openStore({ env, devxHome: devx, cwd: base });
    let unparseable = 0;
    const lost: string[] = [];
    try {
      for (const [id, content] of acknowledged) if ((await store.get(id))?.content !== content) lost.push(id);
    } catch (e) {
      unparseable++;
      crashes.push(`reopen: ${(e as Error).stack}`);
    }
    console.log(
      `DISKFULL side=devx-home ops=500 acknowledged=${acknowledged.size} failed=${failed} lost=${lost.length} unparseable=${unparseable} crashes=${crashes.length}`,
    );
    expect(failed, 'the disk never filled: the test proves nothing').toBeGreaterThan(20);
    expect(acknowledged.size, 'nothing succeeded: the test proves nothing').toBeGreaterThan(20);
    expect({ lost, unparseable, crashes }).toEqual({ lost: [], unparseable: 0, crashes: [] });
  }, 600_000);
});
