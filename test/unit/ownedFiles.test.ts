// Issue #27: devx's own files are written only where they are (never through a link a repository
// planted), and a full disk loses nothing acknowledged and leaves nothing half-written.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { appendOwnedSync, assertOwnedPath, DiskError, OwnedPathError } from '../../src/util/ownedFile.js';
import { writeFileAtomicSync, writeStateSync } from '../../src/util/atomicWrite.js';
import { ensureDevxDir } from '../../src/session/projectFiles.js';
import { appendChained } from '../../src/audit/chainedAppend.js';
import { appendJournal, resetJournal } from '../../src/knowledge/journal.js';
import { tempDir } from '../helpers/env.js';

let base: string;
let root: string;
let victim: string;

beforeEach(() => {
  base = tempDir('devx-owned-');
  root = path.join(base, 'project');
  fs.mkdirSync(root);
  victim = path.join(base, 'bashrc');
  fs.writeFileSync(victim, "# the user's bashrc\n");
});

const victimIntact = () => expect(fs.readFileSync(victim, 'utf8')).toBe("# the user's bashrc\n");

describe("no write of devx's own goes through a link", () => {
  // Every writer devx has for its own files goes through one of these.
  const WRITERS: [string, (file: string) => void][] = [
    ['writeFileAtomicSync (HANDOFF.md, MEMORY.md, settings, task files)', (f) => writeFileAtomicSync(f, 'x $(touch /tmp/pwned)\n')],
    ['writeStateSync (history, sessions, transcripts)', (f) => writeStateSync(f, '{}')],
    ['appendOwnedSync (logs, changelogs)', (f) => appendOwnedSync(f, 'line\n')],
    ['appendChained (the audit log)', (f) => appendChained(f, '{"tool":"x"}')],
  ];
  for (const [name, write] of WRITERS) {
    it(`${name}: a link at the file, or at any folder above it, is refused and nothing lands where it points`, () => {
      // The file itself is a link.
      fs.symlinkSync(victim, path.join(root, 'HANDOFF.md'));
      expect(() => write(path.join(root, 'HANDOFF.md'))).toThrow(OwnedPathError);
      // A folder on the way is a link (.devx -> outside).
      const outDir = path.join(base, 'elsewhere');
      fs.mkdirSync(outDir);
      fs.symlinkSync(outDir, path.join(root, '.devx'));
      expect(() => write(path.join(root, '.devx', 'audit.jsonl'))).toThrow(/symbolic link/);
      expect(() => write(path.join(root, '.devx', 'sessions', 'a', 'b.json'))).toThrow(/symbolic link/);
      expect(fs.readdirSync(outDir)).toEqual([]);
      victimIntact();
      // And a plain path still works.
      write(path.join(root, 'plain.txt'));
      expect(fs.existsSync(path.join(root, 'plain.txt'))).toBe(true);
    });
  }

  it('names the link in the message', () => {
    fs.symlinkSync(victim, path.join(root, 'MEMORY.md'));
    expect(() => assertOwnedPath(path.join(root, 'MEMORY.md'))).toThrow(new RegExp(`${path.join(root, 'MEMORY.md')} is a symbolic link \\(to ${victim}\\)`));
  });

  it('a .devx that is a link or a file stops devx; a real one is made with its .gitignore', () => {
    fs.symlinkSync(path.join(base), path.join(root, '.devx'));
    expect(() => ensureDevxDir(root)).toThrow(/\.devx is a symbolic link/);
    fs.unlinkSync(path.join(root, '.devx'));
    fs.writeFileSync(path.join(root, '.devx'), '');
    expect(() => ensureDevxDir(root)).toThrow(/\.devx is not a folder/);
    fs.unlinkSync(path.join(root, '.devx'));
    ensureDevxDir(root);
    expect(fs.readFileSync(path.join(root, '.devx', '.gitignore'), 'utf8')).toMatch(/history\.json/);
  });
});

// A real small tmpfs (CI runs as root); where the machine does not allow a mount, these say so and skip.
const small = path.join(tempDir('devx-full-'), 'disk');
fs.mkdirSync(small);
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log('ownedFiles: no tmpfs could be mounted here (not root, or no mount rights): the full-disk cases are skipped');
}
afterAll(() => {
  if (mounted) execFileSync('umount', [small]);
});

describe.skipIf(!mounted)('a full disk (a real 256 KB tmpfs)', () => {
  const fill = () => {
    const filler = path.join(small, 'filler');
    fs.rmSync(filler, { force: true });
    try {
      fs.writeFileSync(filler, Buffer.alloc(1024 * 1024));
    } catch {
      // full now
    }
    return filler;
  };

  it('a replaced file keeps its old content whole, and the error names the file', () => {
    const f = path.join(small, 'history.json');
    writeFileAtomicSync(f, JSON.stringify({ messages: ['kept'] }));
    const filler = fill();
    let err: unknown;
    try {
      writeStateSync(f, JSON.stringify({ messages: ['x'.repeat(200_000)] }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DiskError);
    expect((err as Error).message).toBe(`no space left on the device writing ${f}`);
    expect(JSON.parse(fs.readFileSync(f, 'utf8'))).toEqual({ messages: ['kept'] });
    expect(fs.readdirSync(small).sort()).toEqual(['filler', 'history.json']); // no temp file left
    fs.rmSync(filler);
  });

  it('appends are whole or not at all: 500 audit lines and journal ops, none torn, every acknowledged one there', () => {
    const audit = path.join(small, 'audit.jsonl');
    const journal = path.join(small, 'journal.jsonl');
    resetJournal(journal, 'g1');
    const filler = path.join(small, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(150 * 1024));
    let ackAudit = 0;
    let ackJournal = 0;
    let failures = 0;
    for (let i = 0; i < 500; i++) {
      try {
        appendChained(audit, JSON.stringify({ tool: 'write_file', i, pad: 'p'.repeat(200) }));
        ackAudit++;
      } catch (e) {
        expect(e).toBeInstanceOf(DiskError);
        failures++;
      }
      try {
        appendJournal(journal, { op: 'add', id: `n${i}`, doc: { text: 'q'.repeat(300) } } as never);
        ackJournal++;
      } catch (e) {
        expect(e).toBeInstanceOf(DiskError);
        failures++;
      }
    }
    expect(failures).toBeGreaterThan(0); // the disk did fill
    const lines = fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(ackAudit);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const ops = fs.readFileSync(journal, 'utf8').split('\n').filter(Boolean).slice(1);
    expect(ops).toHaveLength(ackJournal);
    for (const l of ops) expect(() => JSON.parse(l)).not.toThrow();
    expect(fs.readFileSync(journal, 'utf8').endsWith('\n')).toBe(true);
    fs.rmSync(filler);
  });
});

describe('the writers that run before the rest of devx loads', () => {
  it('replaceFileSync (launch plans, the code cache) refuses a folder that is a link and never writes through a planted temp name', async () => {
    const { replaceFileSync } = await import('../../src/util/replaceFileSync.js');
    const outDir = path.join(base, 'elsewhere');
    fs.mkdirSync(outDir);
    fs.symlinkSync(outDir, path.join(root, 'cache'));
    expect(() => replaceFileSync(path.join(root, 'cache', 'main.v8'), 'x')).toThrow(/is a symbolic link/);
    expect(fs.readdirSync(outDir)).toEqual([]);
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(victim, path.join(root, 'real', `plan.json.${process.pid}.tmp`));
    replaceFileSync(path.join(root, 'real', 'plan.json'), '{"ok":true}');
    expect(fs.readFileSync(path.join(root, 'real', 'plan.json'), 'utf8')).toBe('{"ok":true}');
    victimIntact();
  });
});
