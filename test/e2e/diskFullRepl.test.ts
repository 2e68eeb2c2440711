// A full disk in a REPL session, in a real terminal with the real gemini: ~/.devx full, then the project's
// disk full. Either way the failed turn says which file could not be written and why, and the REPL is back at
// its prompt (it does not exit, and does not hang), ready for the next message once there is room.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import { fakeEnv, makeHome, makeProject, tempDir } from '../helpers/env.js';
import { startInPty } from '../helpers/pty.js';

let fake: FakeGeminiApi;
useFakeApi((f) => (fake = f));

const mounts: string[] = [];
/** A small tmpfs of its own, or null where none can be mounted (not root, no mount rights). */
function smallDisk(): string | null {
  const dir = tempDir('devx-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  mounts.push(dir);
  return dir;
}
const fill = (dir: string) => {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'ballast')}`, 'bs=1M', 'count=100'], { stdio: 'ignore' });
  } catch {
    // dd ends with "no space left": the disk is full, as meant
  }
};
afterAll(() => {
  for (const m of mounts) execFileSync('umount', ['-l', m]);
});
const disk = smallDisk();
if (!disk) console.log('diskFullRepl: no tmpfs could be mounted here (not root, or no mount rights): skipped');

describe.runIf(disk)('a full disk in the REPL', () => {
  it.each(['home', 'project'] as const)('the %s disk full: the turn names the file and the REPL is back at its prompt', async (where) => {
    const dir = smallDisk()!;
    let home = makeHome();
    let project = makeProject({ 'a.txt': 'x\n' });
    if (where === 'home') fs.cpSync(home, (home = path.join(dir, 'home')), { recursive: true });
    else fs.cpSync(project, (project = path.join(dir, 'project')), { recursive: true });
    fake.push({ text: 'first answer' });
    const s = startInPty([], project, fakeEnv(fake, home));
    try {
      await s.waitFor(/Type a task/);
      s.type('first\r');
      await s.waitFor(/first answer[\s\S]*devx> $/);
      fill(dir);
      // The turn stops before its model call (devx cannot save the message): nothing is queued for it.
      s.type('second\r');
      await s.waitFor(/✗ no space left on the device writing \S+[^\n]*\n+devx> $/, 120_000);
      expect(s.screen()).toContain(where === 'home' ? path.join(dir, 'home') : path.join(dir, 'project'));
      // Room again: the next message works.
      fs.rmSync(path.join(dir, 'ballast'));
      fake.push({ text: 'third answer' });
      s.type('third\r');
      await s.waitFor(/third answer[\s\S]*devx> $/);
    } finally {
      s.kill();
    }
  });
});
