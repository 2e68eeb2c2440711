// search_code and file names that are not UTF-8. Node reads such a name as text with U+FFFD in it, a path
// that does not exist, so the hard-link and denied-path checks made on it would check nothing while ripgrep
// (or the fallback) reads the real file. Judged by effects: real files, real links, ripgrep when installed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runToolCall } from '../../src/tools/runToolCall.js';
import { makePolicy } from '../helpers/policy.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import { tempDir } from '../helpers/env.js';
import { toolDeps } from '../helpers/toolDeps.js';
import { findExecutable } from '../../src/util/findExecutable.js';

const RG = findExecutable('rg', process.env);

/** `root/…` as bytes, with a 0xFF byte where `parts` has null. */
const bytesPath = (root: string, ...parts: (string | null)[]) =>
  Buffer.concat([Buffer.from(root + '/'), ...parts.map((p) => (p === null ? Buffer.from([0xff]) : Buffer.from(p)))]);

let root: string;
let policy: PolicyEngine;
let canary: string;
let secret: string;

beforeEach(async () => {
  root = tempDir('devx-names-');
  policy = await makePolicy(root);
  canary = `CANARY-${crypto.randomBytes(6).toString('hex')}`;
  secret = path.join(tempDir('devx-names-outside-'), 'credentials');
  fs.writeFileSync(secret, `[default]\naws_secret_access_key = ${canary}\n`);
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), 'const CANARY_NAME = 1;\n');
});

const searches: [string, string | null][] = [
  ['ripgrep', RG],
  ['the JS fallback', null],
];

describe.each(searches)('search_code with %s', (_name, rgPath) => {
  const search = () => runToolCall({ tool: 'search_code', args: { pattern: 'CANARY' } }, toolDeps(root, policy, { rgPath }));

  it.skipIf(_name === 'ripgrep' && !RG)(
    'a hard link named with a byte that is not UTF-8 does not show the file it links to, and says it was left out',
    async () => {
      const link = bytesPath(root, 'notes-', null, '.txt');
      fs.linkSync(secret, link);
      // The link is there to be read: without the fix the search showed its line.
      expect(fs.readFileSync(link, 'utf8')).toContain(canary);
      const r = await search();
      expect(r.status).toBe('ok');
      expect(r.content).not.toContain(canary);
      expect(r.content).toContain('src/main.ts:1: const CANARY_NAME = 1;');
      expect(r.content).toContain('[left out 1 file(s) or folder(s) whose names are not UTF-8 (notes-\\xff.txt)');
      expect(r.content).toMatch(/rename them to search them\]$/);
    },
  );

  it.skipIf(_name === 'ripgrep' && !RG)('a hard link inside a folder whose name is not UTF-8 is left out the same way', async () => {
    fs.mkdirSync(bytesPath(root, 'cfg-', null));
    fs.linkSync(secret, bytesPath(root, 'cfg-', null, '/creds.txt'));
    const r = await search();
    expect(r.content).not.toContain(canary);
    expect(r.content).toContain('src/main.ts:1: const CANARY_NAME = 1;');
    // ripgrep names the file it matched; the fallback, which never enters the folder, names the folder.
    expect(r.content).toContain(`whose names are not UTF-8 (${rgPath ? 'cfg-\\xff/creds.txt' : 'cfg-\\xff'})`);
  });

  it.skipIf(_name === 'ripgrep' && !RG)('a name that is not UTF-8 where the search does not look (a hidden folder, an ignored one) gets no note', async () => {
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    for (const dir of ['.cache', 'build']) {
      fs.mkdirSync(path.join(root, dir));
      fs.linkSync(secret, bytesPath(root, `${dir}/x-`, null));
    }
    const r = await search();
    expect(r.content).toBe('src/main.ts:1: const CANARY_NAME = 1;');
  });
});
