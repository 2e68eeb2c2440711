// gemini installed but not logged in (no key, no login, a fresh home), in a network namespace of its own
// so nothing leaves the machine: the first prompt says so at once, with the person's own next step, and
// names nothing in devx's private copy of gemini's settings. In the warm default and a process per call.
import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEVX_BIN, GEMINI_BIN, makeHome, makeProject } from '../helpers/env.js';

/** Runs devx with no network at all (unshare -rn: a user and network namespace; this machine's tests run as root or with user namespaces). */
function runOffline(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-rn', process.execPath, DEVX_BIN, ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('gemini installed but not logged in', () => {
  execFileSync('unshare', ['-rn', 'true']);
  it.each(['warm', 'spawn'])('the first prompt says so, once, with the next step (%s)', async (mode) => {
    const home = makeHome();
    const env = { PATH: process.env.PATH, HOME: home, DEVX_GEMINI_BIN: GEMINI_BIN, NO_COLOR: '1', DEVX_HANDOFF: 'off', DEVX_PROVIDER_MODE: mode };
    const r = await runOffline(['run', 'hi'], makeProject({}), env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gemini is not authenticated: run `gemini` once to log in, or set GEMINI_API_KEY/);
    // Found out before any retry or second process; devx's private gemini settings are not named.
    expect(r.stderr).not.toMatch(/retrying|failed twice|one gemini process per call/);
    expect(r.stderr).not.toMatch(/gemini-home/);
  });
});
