// Runs every case of the policy table through the real CLI: `devx policy check --json`.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED, CWD_CASES, DENIED_OR_ASKED, NEEDS_SANDBOX, UNSANDBOXED_ALLOWED, type Case } from './cases.js';
import { GTFO_CASES, YOLO_REFUSED, type SbCase } from './gtfobins.js';
import { detectBwrap } from '../../src/sandbox/bwrap.js';
import { DEVX_BIN, tempDir } from '../helpers/env.js';

/** Tests pass DEVX_SANDBOX through so the table can be measured with and without bubblewrap. */
const ENV = () => ({ PATH: process.env.PATH, HOME: home, ...(process.env.DEVX_SANDBOX ? { DEVX_SANDBOX: process.env.DEVX_SANDBOX } : {}) });
let base: string;
let root: string;
let home: string;

function write(rel: string, content = 'x\n'): void {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

/** A project with secrets, symlinks in and out, chains, loops, a hardlink and a prefix-sharing sibling. */
function buildFixture(): void {
  base = tempDir('devx-policy-');
  root = path.join(base, 'project');
  home = path.join(base, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'KEY');
  execFileSync('git', ['init', '-q'], { cwd: root });
  for (const f of [
    'README.md',
    'package.json',
    'tsconfig.json',
    'src/main.ts',
    'src/util.ts',
    'src/environment.ts',
    'docs/env.md',
    'config/keys.ts',
    '.gitignore',
    'scripts/x.sh',
    'script.sh',
    'env.sh',
    'scripts/build.js',
    'script.py',
    'node_modules/.bin/tsc',
    'node_modules/.bin/vitest',
    '.devx/history.json',
  ])
    write(f);
  for (const f of [
    '.env',
    '.env.local',
    '.env.production',
    'config/.env',
    'secrets/server.pem',
    'secrets/tls.KEY',
    'id_rsa',
    '.ssh/config',
    '.npmrc',
    '.netrc',
    '.git-credentials',
    'credentials.json',
    '.aws/credentials',
    '.kube/config',
    '.docker/config.json',
    'oauth_creds.json',
  ])
    write(f, 'SECRET=1\n');
  write('.env.example', 'SECRET=\n');
  write('.env.sample', 'SECRET=\n');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'outside\n');
  fs.writeFileSync(path.join(base, 'outside-hard.txt'), 'hard\n');
  fs.mkdirSync(path.join(base, 'project-evil'));
  fs.writeFileSync(path.join(base, 'project-evil', 'secret.txt'), 'evil\n');
  const link = (target: string, name: string) => fs.symlinkSync(target, path.join(root, name));
  link('main.ts', 'src/link-inside.ts');
  link('src', 'src-link');
  link('.env', 'link-env');
  link(path.join(root, '.env'), 'notes-env');
  link('README.md', '.env-link');
  link(path.join(base, 'outside.txt'), 'link-file');
  link('/etc', 'link-out');
  link('chain-b', 'chain-a');
  link(path.join(base, 'outside.txt'), 'chain-b');
  link('loop-b', 'loop-a');
  link('loop-a', 'loop-b');
  link(path.join(base, 'not-there', 'x'), 'dangling');
  fs.linkSync(path.join(base, 'outside-hard.txt'), path.join(root, 'hardlink.txt'));
  fs.symlinkSync(root, path.join(base, 'root-link'));
}

interface Result {
  decision: string;
  reason: string;
  rule: string;
}

/** One case as its own `devx policy check --json --command|--read|... VALUE` process. */
function check(c: Case): Promise<Result> {
  const cwd = cwdOf(c);
  const flag = c.kind === 'command' ? '--command' : `--${c.kind}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEVX_BIN, 'policy', 'check', '--json', flag, c.input], {
      cwd,
      env: ENV(),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`exit ${code} for ${JSON.stringify(c.input)}: ${err}`));
      try {
        resolve(JSON.parse(out) as Result);
      } catch {
        reject(new Error(`unparseable output for ${JSON.stringify(c.input)}: ${out} ${err}`));
      }
    });
  });
}

function cwdOf(c: Case): string {
  return c.cwd === 'root-link' ? path.join(base, 'root-link') : c.cwd === 'src' ? path.join(root, 'src') : root;
}

/** One `devx policy check --batch` with `input` on stdin: its stdout, or a rejection naming its exit and stderr. */
function runBatch(args: string[], cwd: string, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: ENV() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`devx policy check --batch exited ${code}: ${err}`))));
    child.stdin.end(input);
  });
}

/** The whole table through `devx policy check --json --batch`, one process per working directory. */
async function runAll(cases: Case[], extra: string[] = []): Promise<Result[]> {
  const results: Result[] = new Array(cases.length);
  const groups = new Map<string, number[]>();
  cases.forEach((c, i) => groups.set(cwdOf(c), [...(groups.get(cwdOf(c)) ?? []), i]));
  for (const [cwd, idx] of groups) {
    const input = idx.map((i) => JSON.stringify({ kind: cases[i].kind, input: cases[i].input })).join('\n') + '\n';
    // Not execFileSync: a worker blocked for a minute on a loaded machine misses vitest's own messages.
    const out = await runBatch([DEVX_BIN, 'policy', 'check', '--json', '--batch', ...extra], cwd, input);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(idx.length);
    idx.forEach((i, k) => (results[i] = JSON.parse(lines[k])));
  }
  return results;
}

const SANDBOXED = detectBwrap(process.env) !== null;
/** The documented decision on this machine: rows marked both() differ with and without bubblewrap. */
// Without it, an allowed command asks unless it is on the small list (UNSANDBOXED_ALLOWED).
const expected = (c: Case) =>
  SANDBOXED
    ? c.expect
    : ((c as SbCase).withoutSandbox ??
      (c.kind === 'command' && (NEEDS_SANDBOX.has(c.input) || (c.expect === 'allow' && !c.cwd && !UNSANDBOXED_ALLOWED.has(c.input))) ? 'ask' : c.expect));
const RAW: Case[] = [...ALLOWED, ...DENIED_OR_ASKED, ...CWD_CASES, ...GTFO_CASES];
const ALL: Case[] = RAW.map((c) => ({ ...c, expect: expected(c) }));

describe('policy table through `devx policy check`', () => {
  let results: Result[];
  beforeAll(async () => {
    buildFixture();
    results = await runAll(ALL);
  }, 240_000);

  it('has at least 250 cases, a third of them ordinary work that stays allowed', () => {
    // Counted on the table's rows as written (with bubblewrap); without it the measure test reports the share.
    const allowed = RAW.filter((c) => c.expect === 'allow').length;
    expect(ALL.length).toBeGreaterThanOrEqual(250);
    expect(allowed * 3).toBeGreaterThanOrEqual(ALL.length);
  });

  it('measures the benign share: allow rows that are allowed', () => {
    const rows = RAW.map((c, i) => ({ c, r: results[i] })).filter(({ c }) => c.expect === 'allow');
    const allowed = rows.filter(({ r }) => r.decision === 'allow').length;
    console.log(`BENIGN-SHARE ${allowed}/${rows.length} allowed (sandbox ${process.env.DEVX_SANDBOX === 'off' ? 'off' : 'auto'})`);
    expect(rows.length).toBeGreaterThan(0);
  });

  it('a deny stays a deny in yolo mode, and yolo refuses asks whose effect is unknown', async () => {
    const denied = ALL.filter((c) => c.expect === 'deny' && !c.cwd && !c.input.includes('\u0000'));
    const yolo = await runAll(denied, ['--approval-mode', 'yolo']);
    const wrong = denied
      .map((c, i) => ({ c, r: yolo[i] }))
      .filter(({ r }) => r.decision !== 'deny')
      .map(({ c, r }) => `${JSON.stringify(c.input)}: ${r.decision} [${r.rule}]`);
    expect(wrong).toEqual([]);
    const unverifiable = await runAll(
      [
        { kind: 'command', input: 'cat "$FILE"', expect: 'deny' },
        { kind: 'command', input: 'cat --frobnicate README.md', expect: 'deny' },
      ],
      ['--approval-mode', 'yolo'],
    );
    expect(unverifiable.map((r) => r.decision)).toEqual(['deny', 'deny']);
    // Archives, diffs and wrappers name what they touch themselves; a recursive copy or archive of a tree with denied files reads them.
    const refused = YOLO_REFUSED.filter((x) => !SANDBOXED || !/^(tar -czf|zip -r|cp -r)/.test(x));
    const got = await runAll(
      refused.map((input) => ({ kind: 'command', input, expect: 'deny' })),
      ['--approval-mode', 'yolo'],
    );
    expect(refused.map((x, i) => `${x}: ${got[i].decision} [${got[i].rule}]`)).toEqual(refused.map((x, i) => `${x}: deny [${got[i].rule}]`));
  }, 120_000);

  it('decides every case as expected', () => {
    const wrong = ALL.map((c, i) => ({ c, r: results[i] }))
      .filter(({ c, r }) => r.decision !== c.expect)
      .map(
        ({ c, r }) => `${c.kind} ${JSON.stringify(c.input)}${c.cwd ? ` (cwd ${c.cwd})` : ''}: expected ${c.expect}, got ${r.decision} [${r.rule}] ${r.reason}`,
      );
    expect(wrong).toEqual([]);
  });

  it('every decision carries a reason and a rule', () => {
    for (const r of results) {
      expect(r.reason.length).toBeGreaterThan(0);
      expect(r.rule).toMatch(/^[a-z-]+:/);
    }
  });

  it('single invocations give the same answers as the batch (a sample of every kind)', async () => {
    // Every 40th row, and the first of each kind and working directory not among them (each is a whole devx
    // start; the batch covers every row).
    const rows = ALL.map((c, i) => ({ c, i })).filter(({ c }) => !c.input.includes('\u0000'));
    const kindOf = ({ c }: { c: Case }) => `${c.kind}:${c.cwd ?? ''}`;
    const sample = rows.filter((r, k) => r.i % 40 === 0 || rows.findIndex((x) => kindOf(x) === kindOf(r)) === k);
    expect(new Set(sample.map(kindOf))).toEqual(new Set(rows.map(kindOf)));
    expect(sample.length).toBeGreaterThan(15);
    for (let k = 0; k < sample.length; k += 4) {
      const batch = sample.slice(k, k + 4);
      const got = await Promise.all(batch.map(({ c }) => check(c)));
      batch.forEach(({ i }, j) => expect(got[j], JSON.stringify(ALL[i].input)).toEqual(results[i]));
    }
    // ~30 devx starts: a ceiling for a loaded 2-core machine, not a timing claim.
  }, 360_000);

  it('exits 2 on bad usage', () => {
    let code = 0;
    try {
      execFileSync(process.execPath, [DEVX_BIN, 'policy', 'check', '--json'], { cwd: root, env: { PATH: process.env.PATH, HOME: home }, stdio: 'pipe' });
    } catch (err) {
      code = (err as { status: number }).status;
    }
    expect(code).toBe(2);
  });
});
