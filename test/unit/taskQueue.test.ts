// The queue's counts: a runner that died under a task is a runner death, not the task's failure;
// a task is given up for them only after MAX_RUNNER_DEATHS that are over two thirds of the queue's (it looks like
// their cause), or after HARD_RUNNER_DEATHS whatever the others do; a lease that expired under a live runner is the task's own
// failure (attempts), given up after MAX_ATTEMPTS. Real task files in a temp project, a movable clock.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject } from '../helpers/env.js';
import { HARD_RUNNER_DEATHS, MAX_ATTEMPTS, MAX_RUNNER_DEATHS, TaskQueue, renderStatusTable } from '../../src/queue/taskQueue.js';

// Above Linux's PID_MAX_LIMIT (2^22): no process has it, as none has a runner's pid after kill -9.
const deadPid = () => 2 ** 22 + 17;

function setup() {
  const root = makeProject({}, { git: false });
  let t = Date.parse('2026-01-01T00:00:00Z');
  const queue = new TaskQueue(root, () => new Date(t));
  return { root, queue, advance: (ms: number) => (t += ms) };
}

/** Makes the running task's runner a dead process, as kill -9 would. */
function killRunner(root: string, id: string): void {
  const file = path.join(root, '.devx', 'agents', 'tasks', `${id}.json`);
  const task = JSON.parse(fs.readFileSync(file, 'utf8'));
  task.owner.pid = deadPid();
  fs.writeFileSync(file, JSON.stringify(task));
}

describe('task queue counts', () => {
  it(`runner deaths are counted apart from attempts; a task whose runners alone die is given up after ${MAX_RUNNER_DEATHS}`, async () => {
    const { root, queue } = setup();
    const { taskId } = await queue.start('worker', 'job');
    for (let i = 1; i <= MAX_RUNNER_DEATHS; i++) {
      const claimed = await queue.claim('r', 60_000);
      expect(claimed).toMatchObject({ taskId, runs: i, status: 'running' });
      killRunner(root, taskId);
      const [t] = await queue.recover();
      if (i < MAX_RUNNER_DEATHS)
        expect(t).toMatchObject({
          status: 'pending',
          attempts: 0,
          runnerDeaths: i,
          error: expect.stringMatching(/^its runner \(pid \d+\) died; queued again$/),
        });
      else
        expect(t).toMatchObject({
          status: 'failed',
          attempts: 0,
          runnerDeaths: MAX_RUNNER_DEATHS,
          error: expect.stringMatching(
            new RegExp(
              `died; gave up after ${MAX_RUNNER_DEATHS} runner deaths, ${MAX_RUNNER_DEATHS} of the ${MAX_RUNNER_DEATHS} in the queue since it first ran: it looks like their cause$`,
            ),
          ),
        });
    }
    expect(renderStatusTable(queue.list())).toMatch(new RegExp(`\\| failed \\|.*\\| 0\\s+\\| ${MAX_RUNNER_DEATHS}\\s+\\| its runner`));
    expect(MAX_RUNNER_DEATHS).toBeGreaterThan(MAX_ATTEMPTS);
  });

  it(`runners that die under every task (someone kills them) give no task up before ${HARD_RUNNER_DEATHS} deaths`, async () => {
    const { root, queue } = setup();
    const a = await queue.start('worker', 'job a');
    const b = await queue.start('worker', 'job b');
    for (let i = 1; i <= HARD_RUNNER_DEATHS; i++) {
      await queue.claim('r1', 60_000);
      await queue.claim('r2', 60_000);
      killRunner(root, a.taskId);
      killRunner(root, b.taskId);
      const after = await queue.recover();
      expect(after.map((t) => t.runnerDeaths)).toEqual([i, i]);
      expect(after.every((t) => t.status === (i < HARD_RUNNER_DEATHS ? 'pending' : 'failed'))).toBe(true);
    }
    expect(queue.read(a.taskId)!.error).toMatch(new RegExp(`gave up after ${HARD_RUNNER_DEATHS} runner deaths$`));
  });

  it(`a lease that expired under a live runner is the task's own failure, given up after ${MAX_ATTEMPTS}`, async () => {
    const { queue, advance } = setup();
    await queue.start('worker', 'job');
    for (let i = 1; i <= MAX_ATTEMPTS; i++) {
      await queue.claim('r', 1_000);
      advance(5_000);
      const [t] = await queue.recover();
      expect(t).toMatchObject({ attempts: i, runnerDeaths: 0, status: i < MAX_ATTEMPTS ? 'pending' : 'failed' });
      if (i === MAX_ATTEMPTS) expect(t.error).toMatch(/lease expired at .*; gave up after 3 failed attempts of its own$/);
    }
  });

  it('finishing counts only its own failures; retry starts both counts afresh', async () => {
    const { queue } = setup();
    const { taskId } = await queue.start('worker', 'job');
    await queue.claim('r', 60_000);
    const done = await queue.finish(taskId, 'r', { status: 'incomplete', error: '1 write did not happen', failedCalls: ['write src/a.ts (denied)'] });
    expect(done).toMatchObject({ status: 'incomplete', attempts: 1, runnerDeaths: 0, failedCalls: ['write src/a.ts (denied)'] });
    const again = await queue.retry(taskId);
    expect(again).toMatchObject({ status: 'pending', attempts: 0, runnerDeaths: 0 });
    expect(again.failedCalls).toBeUndefined();
    await queue.claim('r', 60_000);
    expect(await queue.finish(taskId, 'r', { status: 'complete', summary: 'ok' })).toMatchObject({ status: 'complete', attempts: 0, runs: 2 });
  });
});
