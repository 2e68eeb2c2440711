// A stopped process group whose leader exits at SIGTERM while another member ignores it: devx exiting
// before the follow-up SIGKILL must not leave that member running, and "exit at once" (the REPL's second
// Ctrl-C) waits until every group is empty before it says no process is left. Judged by the member's pid.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/env.js';
import { isAlive, until } from '../helpers/processes.js';
import { startProcess } from '../../src/util/processRunner.js';
import { killAllGroups, stopGroup } from '../../src/util/processGroups.js';

/** A leader that exits at SIGTERM, with a member in its group that ignores SIGTERM and writes its pid. */
function stubbornGroupArgs(pidFile: string): [string, string[]] {
  const member = path.join(path.dirname(pidFile), 'member.sh');
  fs.writeFileSync(member, `trap '' TERM\necho $$ > '${pidFile}'\nwhile :; do sleep 1; done\n`);
  return ['sh', ['-c', `sh '${member}' & wait`]];
}

async function memberPid(pidFile: string): Promise<number> {
  await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 10_000);
  return Number(fs.readFileSync(pidFile, 'utf8').trim());
}

describe('process groups devx stops', () => {
  it('a member that ignores SIGTERM is killed when devx exits before the follow-up SIGKILL', async () => {
    const dir = tempDir('devx-groups-');
    const pidFile = path.join(dir, 'member.pid');
    const [file, args] = stubbornGroupArgs(pidFile);
    // A devx-like process (the built module): stop the group, see the leader exit, exit at once.
    const script = `
      import { startProcess } from ${JSON.stringify(path.join(REPO_ROOT, 'dist/src/util/processRunner.js'))};
      import { stopGroup } from ${JSON.stringify(path.join(REPO_ROOT, 'dist/src/util/processGroups.js'))};
      import fs from 'node:fs';
      const p = startProcess(${JSON.stringify(file)}, ${JSON.stringify(args)}, { cwd: ${JSON.stringify(dir)}, env: {} });
      while (!fs.existsSync(${JSON.stringify(pidFile)}) || !fs.readFileSync(${JSON.stringify(pidFile)}, 'utf8').trim()) await new Promise((r) => setTimeout(r, 20));
      stopGroup(p.pid);
      await p.exited;
      process.exit(0);
    `;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });
    const member = await memberPid(pidFile);
    await until(() => !isAlive(member), 2000).catch(() => undefined);
    const alive = isAlive(member);
    if (alive) process.kill(member, 'SIGKILL');
    expect(alive).toBe(false);
  }, 30_000);

  it('killAllGroups kills every group and returns only once none has a process left', async () => {
    const dir = tempDir('devx-groups-');
    const pidFile = path.join(dir, 'member.pid');
    const [file, args] = stubbornGroupArgs(pidFile);
    const p = startProcess(file, args, { cwd: dir, env: {} });
    const member = await memberPid(pidFile);
    stopGroup(p.pid); // SIGTERM: the leader goes, the member stays
    await p.exited;
    expect(isAlive(member)).toBe(true);
    expect(await killAllGroups(5000)).toEqual([]);
    // The member is dead when it returns (a zombie at most, left for whoever reaps it): "no process is left" holds.
    expect(isAlive(member)).toBe(false);
  }, 30_000);
});
