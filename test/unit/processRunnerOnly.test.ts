// Every child process devx starts goes through the process runner (util/processRunner.ts, and
// its synchronous door util/runSync.ts), so that timeouts, process groups, the owner marker and the exit
// hook hold for all of them. A new import of child_process or execa anywhere else fails here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import fg from 'fast-glob';
import { REPO_ROOT } from '../helpers/env.js';

// Each file allowed to start processes itself, and why.
const ALLOWED: Record<string, string> = {
  'src/util/processRunner.ts': 'the process runner',
  'src/util/runSync.ts': "the process runner's synchronous door",
  'src/util/prestart.ts':
    "runs in the small devx binary before the main bundle (and the runner) has loaded, to start a one-shot run's model CLI ahead; its child is handed to the runner (runStarted)",
};
const SPAWNS =
  /(?:^|\n)\s*import\s+(?!type\b)[^;]*?from\s+['"](?:node:)?child_process['"]|from\s+['"]execa['"]|(?<!typeof )import\(\s*['"](?:node:)?child_process['"]\s*\)|(?<!typeof )import\(\s*['"]execa['"]\s*\)|builtin\(\s*['"]node:child_process['"]\s*\)/;

describe('one process runner', () => {
  it('no file outside the runner imports child_process or execa', async () => {
    const files = await fg('src/**/*.ts', { cwd: REPO_ROOT });
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => !ALLOWED[f] && SPAWNS.test(fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the check sees the forms it forbids (and lets type imports through)', () => {
    expect(SPAWNS.test("import { spawn } from 'node:child_process';")).toBe(true);
    expect(SPAWNS.test("import cp from 'child_process';")).toBe(true);
    expect(SPAWNS.test("import { execa } from 'execa';")).toBe(true);
    expect(SPAWNS.test("const { spawn } = await import('node:child_process');")).toBe(true);
    expect(SPAWNS.test("const cp = builtin('node:child_process');")).toBe(true);
    expect(SPAWNS.test("import type { ChildProcess } from 'node:child_process';")).toBe(false);
    expect(SPAWNS.test("type T = typeof import('node:child_process');")).toBe(false);
  });

  it('every allowed file still starts processes (a stale entry is removed)', () => {
    for (const f of Object.keys(ALLOWED)) expect(SPAWNS.test(fs.readFileSync(path.join(REPO_ROOT, f), 'utf8')), f).toBe(true);
  });
});
