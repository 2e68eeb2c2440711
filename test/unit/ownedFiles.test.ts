// Devx's own files are written only where they are (never through a link a repository
// planted). A full disk (a real tmpfs, mounted) is in test/integration/ownedFiles.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendOwnedSync, assertOwnedPath, OwnedPathError } from '../../src/util/ownedFile.js';
import { writeFileAtomicSync, writeStateSync } from '../../src/util/atomicWrite.js';
import { ensureDevxDir } from '../../src/session/projectFiles.js';
import { appendChained } from '../../src/audit/chainedAppend.js';
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
