// Every writer of devx's own files, walked with a link planted at each component of
// the path it writes (the file, and every folder between it and the project or ~/.devx). Each must refuse,
// and nothing may land where the link points. A second test keeps new writers honest: a raw write call in
// src/ outside the owned-file helpers fails it unless it is listed below with the reason it is safe.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveHistory } from '../../src/session/history.js';
import { saveRecord, saveTranscript } from '../../src/session/sessionRecord.js';
import { appendChained } from '../../src/audit/chainedAppend.js';
import { auditFile } from '../../src/audit/auditLog.js';
import { acquireLock, SessionLock } from '../../src/session/sessionLock.js';
import { writeHandoff } from '../../src/session/handoff.js';
import { remember } from '../../src/session/memoryFile.js';
import { spillOutput } from '../../src/tools/limitOutput.js';
import { writeState, type WorkflowState } from '../../src/workflow/state.js';
import { TaskQueue } from '../../src/queue/taskQueue.js';
import { createTask } from '../../src/clarify/taskFiles.js';
import { ensureDevxDir } from '../../src/session/projectFiles.js';
import { ownerId } from '../../src/session/ownerId.js';
import { setTrusted } from '../../src/config/trust.js';
import { replaceFileSync } from '../../src/util/replaceFileSync.js';
import { appendJournal, resetJournal } from '../../src/knowledge/journal.js';
import { mkdirOwnedSync, openOwnedForWriteSync } from '../../src/util/ownedFile.js';
import { checkDevxHome, devxHome } from '../../src/util/devxHome.js';
import { tempDir } from '../helpers/env.js';

interface Ctx {
  root: string;
  home: string;
}
interface Writer {
  name: string;
  anchor: 'root' | 'home';
  /** The path written, relative to its anchor; a trailing '/' means only its folders are walked (the file name varies). */
  rel: string;
  /** The write; it must throw, or return what `refused` accepts. */
  write: (c: Ctx) => unknown | Promise<unknown>;
  refused?: (result: unknown) => boolean;
}

const NOW = new Date('2026-11-25T12:00:00Z');
const msg = { role: 'user' as const, content: 'hello', at: NOW.toISOString() };
const state = (id: string) =>
  ({
    version: 1,
    id,
    workflow: 'w',
    definitionFile: 'w.yaml',
    definitionHash: 'h',
    request: 'r',
    slug: 's',
    status: 'running',
    current: 'a',
    feedback: {},
    loops: {},
    gates: [],
    git: { merge: 'none' },
    steps: [],
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  }) as WorkflowState;

const WRITERS: Writer[] = [
  { name: 'the .devx folder and its .gitignore', anchor: 'root', rel: '.devx/.gitignore', write: (c) => ensureDevxDir(c.root) },
  { name: 'history', anchor: 'root', rel: '.devx/history.json', write: (c) => saveHistory(path.join(c.root, '.devx', 'history.json'), [msg]) },
  {
    name: 'session record',
    anchor: 'root',
    rel: '.devx/sessions/s1.json',
    write: (c) =>
      saveRecord(c.root, {
        id: 's1',
        pid: 1,
        startedAt: NOW.toISOString(),
        status: 'live',
        turns: 0,
        checkpoint: { todos: [], updatedAt: NOW.toISOString() },
        filesTouched: [],
        storeIds: [],
      }),
  },
  { name: 'session transcript', anchor: 'root', rel: '.devx/sessions/s1.transcript.json', write: (c) => saveTranscript(c.root, 's1', [msg]) },
  { name: 'audit log', anchor: 'root', rel: '.devx/audit.jsonl', write: (c) => appendChained(auditFile(c.root), '{"tool":"x","arg":"$(touch /tmp/pwned)"}') },
  { name: 'session lock', anchor: 'root', rel: '.devx/session.lock', write: (c) => acquireLock(c.root, 's1', NOW) },
  {
    name: 'session lock rewrite (children recorded)',
    anchor: 'root',
    rel: '.devx/session.lock',
    write: (c) => {
      mkdirOwnedSync(path.join(c.root, '.devx'));
      new SessionLock(c.root, { session: 's1', startedAt: NOW.toISOString() }).childStarted(12345);
    },
  },
  {
    name: 'HANDOFF.md',
    anchor: 'root',
    rel: 'HANDOFF.md',
    write: (c) => writeHandoff(c.root, { turn: 'CLAUDE_TURN', session: 's1', now: NOW, sections: { Summary: 'x' } }),
  },
  {
    name: 'the handoff archive',
    anchor: 'root',
    rel: '.devx/handoffs/',
    write: (c) => {
      fs.writeFileSync(path.join(c.root, 'HANDOFF.md'), '# Handoff\n\n## Summary\nold\n');
      return writeHandoff(c.root, { turn: 'CLAUDE_TURN', session: 's1', now: NOW, sections: { Summary: 'new' } });
    },
  },
  {
    name: 'MEMORY.md',
    anchor: 'root',
    rel: 'MEMORY.md',
    write: (c) => remember(c.root, 'a fact', NOW),
    refused: (r) => (r as { added: boolean }).added === false,
  },
  {
    name: 'spilled tool output',
    anchor: 'root',
    rel: '.devx/tool-output/',
    write: (c) => spillOutput(c.root, 'run_command', 'x'.repeat(100)),
    refused: (r) => r === null,
  },
  { name: 'workflow state', anchor: 'root', rel: '.devx/workflows/wf1/state.json', write: (c) => writeState(c.root, state('wf1')) },
  { name: 'task queue', anchor: 'root', rel: '.devx/agents/tasks/', write: (c) => new TaskQueue(c.root, () => NOW).start('coder', 'do it') },
  { name: 'task folder description', anchor: 'root', rel: 'work/t1/task_description.md', write: (c) => createTask(c.root, 'work/t1', 'describe', c.root) },
  { name: 'owner id', anchor: 'home', rel: 'owner-id', write: (c) => ownerId({ DEVX_HOME: c.home }), refused: (r) => r === null },
  { name: 'trust list', anchor: 'home', rel: 'trusted-projects.json', write: (c) => setTrusted(c.home, c.root, true, NOW) },
  {
    name: 'knowledge journal',
    anchor: 'home',
    rel: 'knowledge/devx.journal',
    write: (c) => {
      const f = path.join(c.home, 'knowledge', 'devx.journal');
      mkdirOwnedSync(path.dirname(f));
      resetJournal(f, 'g');
      return appendJournal(f, { op: 'del', ids: ['x'] });
    },
  },
  {
    name: 'launch plans and the code cache',
    anchor: 'home',
    rel: 'run/launch-plans/p.json',
    write: (c) => {
      // as prestart records a plan
      mkdirOwnedSync(path.join(c.home, 'run', 'launch-plans'), 0o700);
      replaceFileSync(path.join(c.home, 'run', 'launch-plans', 'p.json'), '{}');
    },
  },
  { name: 'run folders', anchor: 'home', rel: 'run/123-ab/gemini/', write: (c) => mkdirOwnedSync(path.join(c.home, 'run', '123-ab', 'gemini'), 0o700) },
  {
    name: 'a warm process log',
    anchor: 'home',
    rel: 'run/123-ab/system.md.stderr.log',
    write: (c) => {
      const f = path.join(c.home, 'run', '123-ab', 'system.md.stderr.log');
      mkdirOwnedSync(path.dirname(f));
      fs.closeSync(openOwnedForWriteSync(f));
    },
  },
];

/** Each prefix of `rel`'s components: where a link is planted. The last is the file unless `rel` ends in '/'. */
function plantPoints(rel: string): { at: string; isFile: boolean }[] {
  const parts = rel.replace(/\/$/, '').split('/');
  return parts.map((_, i) => ({ at: parts.slice(0, i + 1).join('/'), isFile: i === parts.length - 1 && !rel.endsWith('/') }));
}

function fresh(): Ctx & { outside: string; victim: string } {
  const base = tempDir('devx-writers-');
  const c = {
    root: path.join(base, 'project'),
    home: path.join(base, 'home', '.devx'),
    outside: path.join(base, 'outside'),
    victim: path.join(base, 'bashrc'),
  };
  fs.mkdirSync(c.root, { recursive: true });
  fs.mkdirSync(c.home, { recursive: true });
  fs.mkdirSync(c.outside);
  fs.writeFileSync(c.victim, '# bashrc\n');
  return c;
}

describe("every writer of devx's own files refuses a link at any component of its path", () => {
  for (const w of WRITERS) {
    it(`${w.name} (${w.anchor === 'root' ? '<project>' : '~/.devx'}/${w.rel})`, async () => {
      const points = plantPoints(w.rel);
      for (const p of points) {
        const c = fresh();
        const anchor = w.anchor === 'root' ? c.root : c.home;
        const link = path.join(anchor, p.at);
        fs.mkdirSync(path.dirname(link), { recursive: true });
        fs.symlinkSync(p.isFile ? c.victim : c.outside, link);
        let threw: unknown = null;
        let result: unknown;
        try {
          result = await w.write(c);
        } catch (err) {
          threw = err;
        }
        const where = `${w.name}, link at ${p.at}`;
        if (threw) expect(String((threw as Error).message), where).toMatch(/symbolic link|not a regular file|refus/);
        else if (!w.refused?.(result)) {
          // Not refused: then the write replaced the link itself (a rename over it), never followed it.
          expect(fs.lstatSync(link).isSymbolicLink(), `${where}: it neither refused nor replaced the link`).toBe(false);
        }
        // Nothing landed where the link points.
        expect(fs.readdirSync(c.outside), where).toEqual([]);
        expect(fs.readFileSync(c.victim, 'utf8'), where).toBe('# bashrc\n');
      }
      // Control: without a link the same write succeeds, so the refusals above are the links' doing.
      const c = fresh();
      const result = await w.write(c);
      if (w.refused) expect(w.refused(result), `${w.name}: a plain write was refused`).toBe(false);
      const anchor = w.anchor === 'root' ? c.root : c.home;
      expect(fs.existsSync(path.join(anchor, w.rel.replace(/\/$/, ''))), `${w.name}: the control write made nothing`).toBe(true);
    });
  }

  it('~/.devx itself as a link (or not a folder) stops devx with the reason; DEVX_HOME names a real folder', () => {
    const c = fresh();
    const home = path.dirname(c.home);
    fs.rmSync(c.home, { recursive: true });
    fs.symlinkSync(c.outside, c.home);
    expect(() => checkDevxHome({ HOME: home })).toThrow(/\.devx is a symbolic link \(to .*outside\).*DEVX_HOME/);
    fs.unlinkSync(c.home);
    fs.writeFileSync(c.home, '');
    expect(() => checkDevxHome({ HOME: home })).toThrow(/not a folder/);
    // DEVX_HOME through a link the user named is resolved once: writes land in the real folder.
    const named = path.join(home, 'named');
    fs.symlinkSync(c.outside, named);
    expect(devxHome({ DEVX_HOME: named })).toBe(fs.realpathSync(c.outside));
    expect(() => checkDevxHome({ DEVX_HOME: named })).not.toThrow();
  });
});

// A raw write to a path in src/ is a writer that skipped the helper. Each allowed one says why it is safe.
const ALLOWED: Record<string, string> = {
  'src/util/ownedFile.ts': 'the helper itself',
  'src/util/atomicWrite.ts': 'the helper: after assertOwnedPath, an O_EXCL|O_NOFOLLOW temp file written whole, then renamed',
  'src/util/replaceFileSync.ts': 'after assertOwnedPath, an O_EXCL|O_NOFOLLOW temp file written by descriptor',
  'src/util/guardedPath.ts': 'mkdir -p folder by folder, each made in the one before it as opened without a link (its callers check the path first)',
  'src/knowledge/embeddedStore.ts': 'the snapshot: an O_NOFOLLOW temp file written by descriptor in a folder made by mkdirOwnedSync',
  'src/cli/replInput.ts': "/edit's message file in a fresh mkdtemp folder",
  'src/providers/gemini/sealedHome.ts': "the auth links gemini needs, made in devx's own gemini home",
  'src/session/sessionLock.ts': 'linkSync/renameSync of a temp file written by writeNewOwnedSync',
  'src/session/ownerId.ts': 'linkSync/renameSync of a temp file written by writeNewOwnedSync in a folder made by mkdirOwnedSync',
  'src/session/history.ts': 'renames an unreadable history aside (rename does not follow a link)',
  'src/queue/taskQueue.ts': 'renames a queue lock that came with the project aside, in .devx/agents (rename does not follow a link)',
  'src/sandbox/creationGuard.ts':
    'renames what a sandboxed command made into .devx/quarantine, a folder made by mkdirOwnedSync (rename does not follow a link)',
  'src/session/undoState.ts':
    'undo: writeDurable is assertOwnedPath then an O_EXCL|O_NOFOLLOW temp file renamed over; putBack recreates a link the project had, after assertOwnedPath',
  'src/knowledge/journal.ts': 'appends after assertOwnedPath, opened O_NOFOLLOW without O_CREAT (resetJournal makes it)',
  'src/extensions/copyTree.ts':
    "copies a checked bundle into a new folder in devx's home (mkdirSync fails if it exists), each file O_EXCL|O_NOFOLLOW; links recreated as checked (inside the copy)",
  'src/extensions/install.ts': "renames the finished copy into devx's home, ~/.devx/extensions/<name> (rename does not follow a link)",
  'src/extensions/marketplaces.ts': "renames a cloned marketplace into devx's home, ~/.devx/marketplaces/<name> (rename does not follow a link)",
};
const RAW =
  /\b(?:writeFileSync|appendFileSync|mkdirSync|createWriteStream|copyFileSync|cpSync|symlinkSync|linkSync|truncateSync|renameSync)\(|\bfs\.promises\.(?:writeFile|appendFile|mkdir)\(|\bopenSync\([^)]*(?:'w|'a|O_WRONLY|O_RDWR|O_CREAT)/;

describe('no raw write outside the helpers', () => {
  it('every write call in src/ goes through util/ownedFile.ts, util/atomicWrite.ts or util/replaceFileSync.ts', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) {
          const rel = path.relative(process.cwd(), p).split(path.sep).join('/');
          if (ALLOWED[rel]) continue;
          fs.readFileSync(p, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (RAW.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
            });
        }
      }
    };
    walk(path.join(process.cwd(), 'src'));
    expect(offenders).toEqual([]);
  });
});
