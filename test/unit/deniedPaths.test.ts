// deniedUnder, which decides whether a recursive read (grep -r, rg) may run unsandboxed, and a name below that
// is not UTF-8: read as text it is a path that does not exist, so nothing under it could be judged.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deniedUnder } from '../../src/policy/deniedPaths.js';
import { makePolicy } from '../helpers/policy.js';
import { tempDir } from '../helpers/env.js';

/** `root/…` as bytes, with a 0xFF byte where `parts` has null. */
const bytesPath = (root: string, ...parts: (string | null)[]) =>
  Buffer.concat([Buffer.from(root + '/'), ...parts.map((p) => (p === null ? Buffer.from([0xff]) : Buffer.from(p)))]);

function project(): { root: string; ctx: Parameters<typeof deniedUnder>[1] } {
  const root = tempDir('devx-denied-');
  const home = tempDir('devx-denied-home-');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'const KEY = 1;\n');
  return { root, ctx: { root, home, devxHome: path.join(home, '.devx') } };
}

describe('deniedUnder and names that are not UTF-8', () => {
  it('a .env in a folder whose name is not UTF-8 makes the tree one it cannot check; the denied paths it can name are still listed', () => {
    const { root, ctx } = project();
    fs.mkdirSync(bytesPath(root, 'cfg-', null));
    fs.writeFileSync(bytesPath(root, 'cfg-', null, '/.env'), 'API_KEY=secret\n');
    fs.writeFileSync(path.join(root, 'src', '.env'), 'API_KEY=secret\n');
    const scan = deniedUnder(root, ctx);
    expect(scan.capped).toBe(true);
    expect(scan.paths).toEqual([path.join(root, 'src', '.env')]);
    expect(scan.undecodable).toEqual([path.join(root, 'cfg-\\xff')]);
  });

  it('a plain tree is checked whole; a hidden name that is not UTF-8 does not count when hidden entries are skipped', () => {
    const { root, ctx } = project();
    expect(deniedUnder(root, ctx)).toEqual({ paths: [], capped: false, undecodable: [] });
    fs.writeFileSync(bytesPath(root, 'src/.x-', null), 'x\n');
    expect(deniedUnder(path.join(root, 'src'), ctx, { hidden: false })).toEqual({ paths: [], capped: false, undecodable: [] });
    expect(deniedUnder(path.join(root, 'src'), ctx, { hidden: true }).capped).toBe(true);
  });

  it('so grep -r over such a tree asks instead of running unsandboxed', async () => {
    const { root } = project();
    const policy = await makePolicy(root);
    expect(policy.decideCommand('grep -r KEY .').decision).toBe('allow');
    const other = project().root;
    fs.mkdirSync(bytesPath(other, 'cfg-', null));
    fs.writeFileSync(bytesPath(other, 'cfg-', null, '/.env'), 'API_KEY=secret\n');
    const d = (await makePolicy(other)).decideCommand('grep -r KEY .');
    expect(d.decision).toBe('ask');
    expect(d.rule).toBe('command:undecodable-name');
    expect(d.reason).toMatch(/holds names that are not UTF-8 \(e.g. cfg-\\xff\)/);
    // Inside the sandbox too: it masks denied paths by name, and no string names these.
    expect((await makePolicy(other, { sandboxed: true })).decideCommand('grep -r KEY .').decision).toBe('ask');
  });
});
