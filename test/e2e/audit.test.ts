// The audit log: concurrent writers, tamper detection, and the devx audit commands.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEVX_BIN, REPO_ROOT, makeProject, tempDir } from '../helpers/env.js';
import { verifyChain } from '../../src/audit/chainedAppend.js';

const WRITER = `
import { createAuditLogger } from ${JSON.stringify(path.join(REPO_ROOT, 'dist/src/audit/auditLog.js'))};
const [file, id, n] = process.argv.slice(2);
const log = createAuditLogger(file, 'writer-' + id);
for (let i = 0; i < Number(n); i++) log.info({ tool: 'read_file', args: { path: 'f' + i, pad: 'x'.repeat(i % 7 * 300) }, writer: Number(id), seq: i }, 'tool_call');
`;

function runWriters(file: string, writers: number, each: number): Promise<void[]> {
  const script = path.join(tempDir(), 'writer.mjs');
  fs.writeFileSync(script, WRITER);
  return Promise.all(
    Array.from(
      { length: writers },
      (_, id) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, [script, file, String(id), String(each)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let err = '';
          child.stderr.on('data', (d) => (err += d));
          child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(err))));
        }),
    ),
  );
}

describe('audit log', () => {
  it('concurrent processes append without losing or interleaving lines, and the chain holds', async () => {
    const file = path.join(tempDir(), '.devx', 'audit.jsonl');
    await runWriters(file, 6, 150);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(900);
    const seen = new Set<string>();
    for (const l of lines) {
      const e = JSON.parse(l);
      expect(e.event).toBe('tool_call');
      seen.add(`${e.writer}:${e.seq}`);
    }
    expect(seen.size).toBe(900);
    expect(verifyChain(file)).toEqual({ ok: true, entries: 900 });
  }, 60_000);

  it('devx audit verify detects an edited line and a deleted line', async () => {
    const root = makeProject({});
    const file = path.join(root, '.devx', 'audit.jsonl');
    await runWriters(file, 1, 10);
    const verify = () =>
      spawnSync(process.execPath, [DEVX_BIN, 'audit', 'verify'], { cwd: root, env: { PATH: process.env.PATH, HOME: tempDir() }, encoding: 'utf8' });
    expect(verify().status).toBe(0);
    expect(verify().stdout).toMatch(/OK: 10 entries/);
    const original = fs.readFileSync(file, 'utf8');
    const lines = original.trimEnd().split('\n');

    fs.writeFileSync(file, [...lines.slice(0, 4), lines[4].replace('"f4"', '"f4-edited"'), ...lines.slice(5)].join('\n') + '\n');
    let r = verify();
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/BROKEN at line 5: hash does not match/);

    fs.writeFileSync(file, [...lines.slice(0, 6), ...lines.slice(7)].join('\n') + '\n');
    r = verify();
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/BROKEN at line 7: prevHash does not match/);

    fs.writeFileSync(file, original);
    const tail = spawnSync(process.execPath, [DEVX_BIN, 'audit', 'tail', '-n', '3'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: tempDir() },
      encoding: 'utf8',
    });
    expect(tail.stdout.trim().split('\n')).toHaveLength(3);
    expect(tail.stdout).toContain('path=f9');
    const grep = spawnSync(process.execPath, [DEVX_BIN, 'audit', 'grep', '"f3"', '--json'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: tempDir() },
      encoding: 'utf8',
    });
    expect(grep.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(grep.stdout).args.path).toBe('f3');
  }, 60_000);
});
