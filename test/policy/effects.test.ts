// The differential checker: every command the policy allows, run for real under
// strace in a fresh copy of a fixture project, must do nothing beyond what the policy claimed for it.
// Two variants: unsandboxed (the `sandboxed: false` policy, plain `bash -c`), and sandboxed (the
// `sandboxed: true` policy, bash inside the bwrap command line devx itself builds). Candidates are the
// policy table's commands, their respellings (attached values, abbreviated long options, quoting,
// spacing) and scripts built to hide a command or a write (sed labels and brackets, jq file options,
// find output files, env -C, time -o). A conviction is a policy (or sandbox) bug: fix the policy, never
// this checker.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Parser } from 'web-tree-sitter';
import { ALLOWED } from './cases.js';
import { GTFO_CASES } from './gtfobins.js';
import { makePolicy } from '../helpers/policy.js';
import { tempDir } from '../helpers/env.js';
import {
  buildEffectsFixture,
  claimAllowsWrite,
  commandNames,
  copyFixture,
  diffSnapshots,
  findStrace,
  fixtureAt,
  judgeDisk,
  judgeSandboxed,
  judgeUnsandboxed,
  mountsFromBwrapArgs,
  mutate,
  parseEffects,
  pool,
  probeTracedBwrap,
  programsFor,
  runTraced,
  scriptCandidates,
  snapshot,
  type Candidate,
  type Effect,
  type Fixture,
} from '../helpers/straceEffects.js';
import { loadBashParser } from '../../src/policy/bashParser.js';
import type { PolicyEngine } from '../../src/policy/decide.js';
import type { Decision, SandboxClaim } from '../../src/policy/types.js';
import { probeBwrap, sandboxCommand } from '../../src/sandbox/bwrap.js';
import { commandEnv } from '../../src/tools/commandEnv.js';
import { bashArgs, bashLine } from '../../src/util/bashLine.js';

const STRACE = process.platform === 'linux' ? findStrace() : null;
const BWRAP = sandboxUnderStrace();
if (!STRACE) console.log('EFFECTS skipped: strace is not installed (or cannot trace here); install strace to run the differential checker');
else if (!BWRAP.bin) console.log(`EFFECTS variant=sandboxed skipped: ${BWRAP.why ?? 'no working bubblewrap'}`);

/** A working bwrap that strace can follow into, or why there is none. */
function sandboxUnderStrace(): { bin: string | null; why?: string } {
  if (!STRACE) return { bin: null, why: 'no strace' };
  const probe = probeBwrap(process.env);
  if (!probe.bin) return probe;
  const scratch = tempDir('devx-effects-probe-');
  const why = probeTracedBwrap(STRACE, probe.bin, scratch);
  fs.rmSync(scratch, { recursive: true, force: true });
  return why ? { bin: null, why } : probe;
}

/** Parallel runs (a shared 2-core machine), per-command timeout, and how many respellings to sample. */
const WORKERS = 2;
const TIMEOUT_MS = 10_000;
const MAX_OPTION_MUTATIONS = 240;
const MAX_SPELLING_MUTATIONS = 90;
const READ_ONLY: SandboxClaim = { profile: 'read-only', writes: [] };

/**
 * Lines the checker refuses to run even when the policy allows them: they would change this machine
 * (the test may run as root). Allowing one is itself a conviction.
 */
const UNSAFE =
  /\b(shutdown|reboot|poweroff|halt|mkfs\S*|kill|pkill|killall|swapoff|umount|mount|sysctl|iptables|chown|passwd|useradd|userdel|crontab|systemctl)\b|\bdate\s+(-\w*s|--set)|\bhostname\s+[^-\s]|\brm\s+-\w*[rR]\w*\s+\/(\s|$)|\bfind\s+\/\S*\s.*-delete|\bdd\s/;

type Variant = 'unsandboxed' | 'sandboxed';

interface Outcome {
  cmd: string;
  origin: string;
  base?: string;
  decision: Decision | 'error';
  ran: boolean;
  claim?: SandboxClaim;
  offenses: string[];
  notes: string[];
  ms: number;
}

/** The interpreters named on the #! lines of these programs (npm is run by node). */
function interpreters(programs: Set<string>): string[] {
  const out: string[] = [];
  for (const p of programs) {
    try {
      const fd = fs.openSync(p, 'r');
      const buf = Buffer.alloc(128);
      fs.readSync(fd, buf, 0, 128, 0);
      fs.closeSync(fd);
      const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(buf.toString('latin1'));
      if (m) out.push(path.basename(m[1]), ...(m[2] && path.basename(m[1]) === 'env' ? [m[2]] : []));
    } catch {
      // unreadable: no interpreter known
    }
  }
  return out;
}

const tally = (xs: string[]) => [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())].map(([k, v]) => `${k}:${v}`).join(',');

/** At most n of xs, evenly spread. */
function sample<T>(xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);
}

function candidates(): Candidate[] {
  const base = [...ALLOWED, ...GTFO_CASES].filter((c) => c.kind === 'command').map((c) => c.input);
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const cmd of base) {
    if (seen.has(cmd)) continue;
    seen.add(cmd);
    out.push({ cmd, origin: 'table' });
  }
  // The respellings of every row, sampled evenly (the table's order mixes rules): option rewrites (the
  // likelier way past a rule) and quoting or spacing.
  const all = base.flatMap(mutate).filter((m) => !seen.has(m.cmd) && (seen.add(m.cmd), true));
  const isOption = (m: Candidate) => /^(attached|long)/.test(m.origin);
  out.push(
    ...sample(all.filter(isOption), MAX_OPTION_MUTATIONS),
    ...sample(
      all.filter((m) => !isOption(m)),
      MAX_SPELLING_MUTATIONS,
    ),
  );
  for (const s of scriptCandidates()) if (!out.some((o) => o.cmd === s.cmd)) out.push(s);
  return out;
}

describe.skipIf(!STRACE)('differential effects checker (strace)', () => {
  let work: string;
  let template: Fixture;
  let parser: Parser;
  let gitExecPath: string;
  let cands: Candidate[];

  beforeAll(async () => {
    work = tempDir('devx-effects-');
    template = buildEffectsFixture(path.join(work, 'template'));
    parser = await loadBashParser();
    gitExecPath = execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim();
    cands = candidates();
  }, 60_000);

  afterAll(() => {
    if (work && !process.env.DEVX_KEEP_TEMP) fs.rmSync(work, { recursive: true, force: true });
  });

  /** The slot a worker runs in: always the same path, so one policy engine serves every copy made there. */
  const slotBase = (variant: Variant, w: number) => path.join(work, `${variant}-${w}`);

  /** Policies rooted in each slot (the slot's path is fixed, so one engine serves every copy). */
  async function policies(variant: Variant): Promise<PolicyEngine[]> {
    const out: PolicyEngine[] = [];
    for (let w = 0; w < WORKERS; w++) {
      const fx = copyFixture(template, slotBase(variant, w));
      out.push(await makePolicy(fx.root, { home: fx.home, sandboxed: variant === 'sandboxed' }));
    }
    return out;
  }

  /** Runs one command traced in `fx` and returns what escaped `claim` (sandboxed) or any effect (unsandboxed). */
  async function traceOne(variant: Variant, fx: Fixture, cmd: string, claim: SandboxClaim, policy: PolicyEngine | null, logName: string) {
    const env: Record<string, string> = { ...commandEnv(process.env, fx.root), HOME: fx.home };
    const sb =
      variant === 'sandboxed'
        ? sandboxCommand({ bin: BWRAP.bin!, root: fx.root, home: fx.home, hidden: () => policy?.hiddenPaths() ?? [], claim }, fx.root, bashLine(cmd))
        : null;
    const before = snapshot(fx.base);
    const run = await runTraced({
      strace: STRACE!,
      file: sb?.file ?? 'bash',
      args: sb?.args ?? bashArgs(cmd),
      cwd: fx.root,
      env,
      logFile: path.join(work, logName),
      timeoutMs: TIMEOUT_MS,
      fds: sb?.fds,
    });
    sb?.cleanup();
    const changes = diffSnapshots(fx.base, before, snapshot(fx.base));
    const parsed = parseEffects(run.log, { cwd: fx.root, canaries: fx.canaries });
    const mounts = sb ? mountsFromBwrapArgs(sb.args) : [];
    const names = commandNames(parser, cmd);
    const rules = { programs: programsFor(names, env.PATH ?? ''), helperDirs: names.includes('git') ? [gitExecPath] : [] };
    // Programs the line does not name at all (not even as a wrapper's argument or a script's
    // interpreter): a conviction unsandboxed (by the stricter rule above); inside the sandbox a note.
    const words = cmd.split(/[\s'"|;&()<>=]+/).filter(Boolean);
    const loose = { programs: programsFor([...words, ...interpreters(rules.programs)], env.PATH ?? ''), helperDirs: rules.helperDirs };
    const unnamed = judgeUnsandboxed(
      parsed.effects.filter((e) => e.kind === 'exec'),
      loose,
    );
    const existed = (dir: string) => {
      const rel = path.relative(fx.base, dir);
      return rel === '' || rel.startsWith('..') ? fs.existsSync(dir) : before.get(rel)?.startsWith('dir ') === true;
    };
    // git's read commands refresh the stat cache in .git/index (what any git command would write there next;
    // devx sets GIT_OPTIONAL_LOCKS=0, which stops it for status but not for diff): part of their claim.
    const gitIndex = names.includes('git') ? new Set([path.join(fx.root, '.git', 'index'), path.join(fx.root, '.git', 'index.lock')]) : new Set<string>();
    const notIndex = <T extends { target?: string; path?: string }>(x: T) => !gitIndex.has((x.target ?? x.path) as string);
    const bad = (sb ? judgeSandboxed(parsed.effects, claim, { root: fx.root, mounts, existed }) : judgeUnsandboxed(parsed.effects, rules)).filter(notIndex);
    const disk = judgeDisk(changes, sb ? claim : null, fx.root, existed).filter(notIndex);
    // The copy stays fresh only if nothing in it was written (same bytes, modes and links, same stat data).
    const touched = changes.length > 0 || run.timedOut || parsed.effects.some((e) => e.kind === 'write' && e.target.startsWith(fx.base + path.sep));
    return { run, parsed, bad, disk, changes, mounts, unnamed, touched };
  }

  async function check(variant: Variant): Promise<Outcome[]> {
    const engines = await policies(variant);
    // Each slot holds a fresh copy of the template: a command is decided and run in it; the slot is
    // copied afresh after any run that wrote in it (a refused command, or a run that wrote nothing
    // there, leaves every byte, mode, link and modification time as the copy made them).
    const dirty = new Array<boolean>(WORKERS).fill(false);
    const fixtures = Array.from({ length: WORKERS }, (_, w) => fixtureAt(slotBase(variant, w), template.canary));
    return pool(cands, WORKERS, async (cand, w): Promise<Outcome> => {
      const started = Date.now();
      if (dirty[w]) fixtures[w] = copyFixture(template, slotBase(variant, w));
      dirty[w] = false;
      const fx = fixtures[w];
      const cmd = cand.cmd.replaceAll('@BASE@', fx.base);
      const out: Outcome = { cmd, origin: cand.origin, base: cand.base, decision: 'error', ran: false, offenses: [], notes: [], ms: 0 };
      try {
        const d = engines[w].decideCommand(cmd);
        out.decision = d.decision;
        out.claim = d.claim;
      } catch (err) {
        out.notes.push(`the policy threw: ${(err as Error).message}`);
        return out;
      }
      if (out.decision !== 'allow') return out;
      const claim = out.claim ?? READ_ONLY;
      if (UNSAFE.test(cmd)) {
        out.offenses.push('allowed a command that would change the machine (not run)');
        return out;
      }
      dirty[w] = true;
      const r = await traceOne(variant, fx, cmd, claim, engines[w], `log-${variant}-${w}`);
      dirty[w] = r.touched;
      out.ran = true;
      out.ms = Date.now() - started;
      if (r.parsed.bashExec < 0) out.notes.push(`bash never started: ${r.run.stderr.slice(0, 200)}`);
      if (r.run.timedOut) out.notes.push(`killed after ${TIMEOUT_MS / 1000}s`);
      for (const e of r.parsed.effects) if (e.kind === 'connect-unix') out.notes.push(`connected to a unix socket: ${e.target}`);
      if (variant === 'sandboxed' && claim.profile !== 'build' && r.unnamed.length > 0) {
        out.notes.push(`ran programs the line does not name (contained by the sandbox): ${[...new Set(r.unnamed.map((e) => e.target))].join(', ')}`);
      }
      for (const e of r.bad) out.offenses.push(`strace ${e.kind} ${e.target} [${e.line.slice(0, 240)}]`);
      for (const c of r.disk) out.offenses.push(`disk ${c.change} ${c.path}`);
      return out;
    });
  }

  function report(variant: Variant, outcomes: Outcome[]): string[] {
    const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
    const convicted = outcomes.filter((o) => o.offenses.length > 0);
    const slow = [...outcomes]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3)
      .map((o) => `${JSON.stringify(o.cmd)} ${o.ms}ms`);
    console.log(
      `EFFECTS variant=${variant} candidates=${outcomes.length} allowed=${count((o) => o.decision === 'allow')} ran=${count((o) => o.ran)} convicted=${convicted.length}` +
        ` asked=${count((o) => o.decision === 'ask')} denied=${count((o) => o.decision === 'deny')} errors=${count((o) => o.decision === 'error')}` +
        ` candidates-by-origin=${tally(outcomes.map((o) => o.origin))} ran-by-claim=${tally(outcomes.filter((o) => o.ran).map((o) => (o.claim ?? READ_ONLY).profile))} ran-by-origin=${tally(outcomes.filter((o) => o.ran).map((o) => o.origin))} slowest: ${slow.join(', ')}`,
    );
    for (const o of outcomes) for (const n of o.notes) console.log(`EFFECTS note ${variant} ${JSON.stringify(o.cmd)}: ${n}`);
    // Respellings the policy allows although it refuses the line they respell. Most give the program the
    // same options (an abbreviation, a value attached); gluing a value to a flag that takes none changes
    // the meaning, so these are leads to read, not convictions.
    const decided = new Map(outcomes.filter((o) => o.origin === 'table').map((o) => [o.cmd, o.decision]));
    for (const o of outcomes) {
      const was = o.base === undefined ? undefined : decided.get(o.base);
      if (o.decision === 'allow' && was !== undefined && was !== 'allow')
        console.log(`EFFECTS respelling ${variant} ${JSON.stringify(o.cmd)} (${o.origin}) allowed; ${JSON.stringify(o.base)} is ${was}`);
    }
    const lines = convicted.map((o) => `${JSON.stringify(o.cmd)} (${o.origin}; claim ${JSON.stringify(o.claim)}):\n    ${o.offenses.join('\n    ')}`);
    for (const l of lines) console.log(`EFFECTS convicted ${variant} ${l}`);
    return lines;
  }

  describe('self-test: the checker catches what it claims to', () => {
    const LOG = [
      '100 execve("/usr/bin/bash", ["bash", "-c", "x"], 0x7ffd /* 3 vars */) = 0',
      '100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>',
      '101 execve("/usr/bin/touch", ["touch", "y"], 0x55 /* 3 vars */) = 0',
      '100 <... clone resumed>, child_tidptr=0x7f12) = 101',
      '101 openat(AT_FDCWD</p>, "y", O_WRONLY|O_CREAT|O_NOCTTY|O_NONBLOCK, 0666) = 3</p/y>',
      '101 openat(AT_FDCWD</p>, "/etc/z", O_WRONLY|O_CREAT, 0666) = -1 EACCES (Permission denied)',
      '101 openat(AT_FDCWD</p>, ".env", O_RDONLY) = 3</p/.env>',
      '101 openat(AT_FDCWD</p>, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4</dev/null>',
      '101 mkdir("d", 0777)                  = 0',
      '101 rename("a", "/q/b")                = 0',
      '101 openat(AT_FDCWD</p>, "/tmp/t", O_WRONLY|O_CREAT, 0666) = 5</tmp/t>',
      '101 connect(4<socket:[1]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}, 16) = 0',
      '101 connect(5<socket:[2]>, {sa_family=AF_INET6, sin6_port=htons(80)}, 28) = -1 ECONNREFUSED (Connection refused)',
      '101 connect(6<socket:[3]>, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0',
      '101 unlinkat(AT_FDCWD</p>, "gone", 0 <unfinished ...>',
      '102 openat(AT_FDCWD</p>, "other", O_WRONLY|O_CREAT, 0666) = 3</p/other>',
      '101 <... unlinkat resumed>)            = 0',
      '101 +++ exited with 0 +++',
      '100 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101} ---',
    ].join('\n');

    it('parses a synthetic log: joins unfinished calls, keeps successful ones, follows bash and its children only', () => {
      const { effects } = parseEffects(LOG, { cwd: '/p', canaries: ['/p/.env'], pidsDecoded: true });
      expect(effects.map((e) => `${e.kind} ${e.target}`)).toEqual([
        'exec /usr/bin/bash',
        'exec /usr/bin/touch',
        'write /p/y',
        'read-denied /p/.env',
        'write /dev/null',
        'write /p/d',
        'write /q/b',
        'write /p/a',
        'write /tmp/t',
        'connect-inet {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}',
        'connect-unix {sa_family=AF_UNIX, sun_path="/run/x.sock"}',
        'write /p/gone',
      ]);
      // Without pid translation every process new after bash's exec counts as bash's (stricter, never laxer).
      expect(parseEffects(LOG, { cwd: '/p', canaries: [], pidsDecoded: false }).effects.map((e) => e.target)).toContain('/p/other');
      const bad = (xs: Effect[]) => xs.map((e) => `${e.kind} ${e.target}`);
      expect(bad(judgeUnsandboxed(effects, { programs: new Set(['/usr/bin/bash', '/usr/bin/touch']), helperDirs: [] }))).toEqual([
        'write /p/y',
        'read-denied /p/.env',
        'write /p/d',
        'write /q/b',
        'write /p/a',
        'write /tmp/t',
        'connect-inet {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}',
        'write /p/gone',
      ]);
      expect(bad(judgeUnsandboxed(effects, { programs: new Set(['/usr/bin/bash']), helperDirs: [] }))).toContain('exec /usr/bin/touch');
      expect(bad(judgeUnsandboxed(effects, { programs: new Set(['/usr/bin/bash']), helperDirs: ['/usr/bin'] }))).not.toContain('exec /usr/bin/touch');
      // Sandboxed: /tmp is private, the project is real, /q read-only; a write claim covers its folder only.
      const layout = {
        root: '/p',
        mounts: mountsFromBwrapArgs([
          '--ro-bind',
          '/q',
          '/q',
          '--bind',
          '/p',
          '/p',
          '--tmpfs',
          '/tmp',
          '--ro-bind',
          '/dev/null',
          '/p/.env',
          '--unshare-net',
          '--',
        ]),
      };
      expect(bad(judgeSandboxed(effects, READ_ONLY, layout))).toEqual([
        'write /p/y',
        'read-denied /p/.env',
        'write /p/d',
        'write /q/b',
        'write /p/a',
        'connect-inet {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}',
        'write /p/gone',
      ]);
      expect(bad(judgeSandboxed(effects, { profile: 'build', writes: [] }, layout))).toEqual([
        'read-denied /p/.env',
        'write /q/b',
        'connect-inet {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.1")}',
      ]);
      expect(claimAllowsWrite({ profile: 'build', writes: [] }, '/p', '/p/.git/index')).toBe(false);
      expect(claimAllowsWrite({ profile: 'build', writes: [], git: true }, '/p', '/p/.git/index')).toBe(true);
      expect(claimAllowsWrite({ profile: 'build', writes: [], git: true }, '/p', '/p/.git/hooks/pre-commit')).toBe(false);
      expect(claimAllowsWrite({ profile: 'write', writes: ['/p/src/a.ts'] }, '/p', '/p/src/b.ts', () => true)).toBe(true);
      expect(claimAllowsWrite({ profile: 'write', writes: ['/p/src/a.ts'] }, '/p', '/p/README.md', () => true)).toBe(false);
      // A target in folders still to be made: its nearest existing folder becomes writable, as the sandbox binds it.
      const existed = (d: string) => ['/', '/p', '/p/docs'].includes(d);
      expect(claimAllowsWrite({ profile: 'write', writes: ['/p/docs/new/deep/f.md'] }, '/p', '/p/docs/new', existed)).toBe(true);
      expect(claimAllowsWrite({ profile: 'write', writes: ['/p/docs/new/deep/f.md'] }, '/p', '/p/src/x', existed)).toBe(false);
    });

    it('sees a real write, a secret read, an unnamed program and a connect, unsandboxed', async () => {
      const fx = copyFixture(template, path.join(work, 'self-unsandboxed'));
      const server = net.createServer((s) => s.destroy());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const r = await traceOne(
          'unsandboxed',
          fx,
          `touch x; cat .env >/dev/null; echo hi > /dev/tcp/127.0.0.1/${port}; $(echo id) >/dev/null`,
          READ_ONLY,
          null,
          'log-self-u',
        );
        const bad = r.bad.map((e) => `${e.kind} ${path.relative(fx.base, e.target)}`);
        expect(bad).toContain('write project/x');
        expect(bad).toContain('read-denied project/.env');
        expect(r.bad.some((e) => e.kind === 'connect-inet' && e.target.includes(`htons(${port})`))).toBe(true);
        expect(r.bad.some((e) => e.kind === 'exec' && e.target.endsWith('/id'))).toBe(true);
        expect(r.disk.map((c) => `${c.change} ${path.relative(fx.base, c.path)}`)).toEqual(['added project/x']);
      } finally {
        server.close();
      }
      // The process tree is followed through a subshell and a pipeline; and a clean command shows nothing.
      const clean = await traceOne('unsandboxed', fx, 'cat README.md | (wc -l) >/dev/null', READ_ONLY, null, 'log-self-u');
      expect(clean.bad).toEqual([]);
      expect(
        clean.parsed.effects
          .filter((e) => e.kind === 'exec')
          .map((e) => path.basename(e.target))
          .sort(),
      ).toEqual(['bash', 'cat', 'wc']);
    });

    it.skipIf(!BWRAP.bin)('sees a sandboxed write that the claim covers and one it does not; tmpfs writes stay inside', async () => {
      const fx = copyFixture(template, path.join(work, 'self-sandboxed'));
      const policy = await makePolicy(fx.root, { home: fx.home, sandboxed: true });
      // build: the project is writable, the home and /tmp are private; judged against read-only, the write escapes.
      const build: SandboxClaim = { profile: 'build', writes: [] };
      const r = await traceOne('sandboxed', fx, 'touch x; touch "$HOME/y" /tmp/z; cat .env', build, policy, 'log-self-s');
      expect(r.parsed.bashExec).toBeGreaterThan(0);
      expect(r.bad).toEqual([]);
      expect(r.changes.map((c) => `${c.change} ${path.relative(fx.base, c.path)}`)).toEqual(['added project/x']);
      expect([
        ...new Set(
          judgeSandboxed(r.parsed.effects, READ_ONLY, { root: fx.root, mounts: r.mounts }).map((e) => `${e.kind} ${path.relative(fx.base, e.target)}`),
        ),
      ]).toEqual(['write project/x']);
      expect(judgeDisk(r.changes, READ_ONLY, fx.root).length).toBe(1);
      // read-only: the same write fails inside the sandbox, so nothing escapes and nothing changes.
      const ro = await traceOne('sandboxed', fx, 'touch z', READ_ONLY, policy, 'log-self-s');
      expect(ro.parsed.effects.filter((e) => e.kind === 'write' && e.target.startsWith(fx.root))).toEqual([]);
      expect(ro.changes).toEqual([]);
    });
  });

  it('unsandboxed: every command the sandboxed:false policy allows shows no effect outside its claim', async () => {
    const outcomes = await check('unsandboxed');
    const convicted = report('unsandboxed', outcomes);
    expect(outcomes.filter((o) => o.ran).length).toBeGreaterThan(50);
    // A run in which bash never started observed nothing: the checker, not the policy, is broken.
    expect(outcomes.filter((o) => o.notes.some((n) => n.startsWith('bash never started'))).map((o) => o.cmd)).toEqual([]);
    expect(convicted).toEqual([]);
  }, 300_000);

  it.skipIf(!BWRAP.bin)(
    'sandboxed: every command the sandboxed:true policy allows shows no effect escaping the sandbox',
    async () => {
      const outcomes = await check('sandboxed');
      const convicted = report('sandboxed', outcomes);
      expect(outcomes.filter((o) => o.ran).length).toBeGreaterThan(50);
      expect(outcomes.filter((o) => o.notes.some((n) => n.startsWith('bash never started'))).map((o) => o.cmd)).toEqual([]);
      expect(convicted).toEqual([]);
    },
    300_000,
  );
});
