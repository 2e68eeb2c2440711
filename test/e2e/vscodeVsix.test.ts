// `npm run vsix` packages the VS Code extension (editors/vscode): a .vsix (a zip) holding the manifest
// with the commands and the bundled extension, and nothing else of the source tree.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/env.js';

/** The entries of a zip file, by name (stored or deflated). */
function readZip(file: string): Map<string, Buffer> {
  const buf = fs.readFileSync(file);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error(`${file} is not a zip`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLen = buf.readUInt16LE(at + 28);
    const extraLen = buf.readUInt16LE(at + 30);
    const commentLen = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLen);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    out.set(name, method === 8 ? zlib.inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

describe('npm run vsix', () => {
  it('packages the extension: manifest with the commands, the bundled extension.js, no sources', () => {
    const vsix = path.join(REPO_ROOT, 'editors', 'vscode', 'devx-vscode.vsix');
    fs.rmSync(vsix, { force: true });
    execFileSync('npm', ['run', 'vsix'], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
    const entries = readZip(vsix);
    const manifest = JSON.parse(entries.get('extension/package.json')!.toString('utf8'));
    expect(manifest.main).toBe('./out/extension.js');
    expect(manifest.engines.vscode).toMatch(/^\^1\./);
    expect(manifest.contributes.commands.map((c: { title: string; category: string }) => `${c.category}: ${c.title}`)).toEqual(
      expect.arrayContaining([
        'devx: Start session in terminal',
        'devx: Ask about selection',
        'devx: Run agent…',
        'devx: Run workflow…',
        'devx: Show audit log',
      ]),
    );
    expect(manifest.contributes.configuration.properties['devx.path']).toBeDefined();
    const js = entries.get('extension/out/extension.js')!.toString('utf8');
    expect(js).toMatch(/require\("vscode"\)/);
    expect(js).toContain('session/request_permission'); // the ACP SDK is bundled in
    expect([...entries.keys()].filter((n) => /\.ts$|node_modules|tsconfig|build\.mjs/.test(n))).toEqual([]);
  }, 120_000);
});
