// What runs without a person's yes runs in a sandbox held to the policy's claim, judged by
// effects (files on disk, markers, what reached the tool result), through the one tool wrapper.
import { plainToolContext } from '../helpers/toolContext.js';
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { builtinTools } from '../../src/tools/registry.js';
import { runToolCall, type ApprovalRequest, type PersonAnswer, type ToolCallDeps } from '../../src/tools/runToolCall.js';
import { detectBwrap, sandboxCommand, type SandboxSpec } from '../../src/sandbox/bwrap.js';
import { approvableByMode } from '../../src/policy/types.js';
import type { ApprovalMode, PolicyEngine } from '../../src/policy/decide.js';
import { makePolicy } from '../helpers/policy.js';
import { makeWriteScope } from '../../src/policy/writeScope.js';
import { tempDir } from '../helpers/env.js';

const BWRAP = detectBwrap(process.env);
let base: string;
let root: string;
let home: string;
let outside: string;

function fixture(): void {
  base = tempDir('devx-contain-');
  root = path.join(base, 'project');
  home = path.join(base, 'home');
  outside = path.join(base, 'outside');
  for (const d of [root, path.join(root, 'src'), path.join(home, '.ssh'), outside]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(root, 'README.md'), 'readme\n');
  fs.writeFileSync(path.join(root, '.env'), 'CANARY-ENV\n');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'node -e ""' } }));
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'CANARY-SSH\n');
  fs.writeFileSync(path.join(home, '.bashrc'), '# bashrc\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'CANARY-OUT\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
}

/** The tool wrapper's deps as an agent builds them: built-in tools, this policy, this approval, this sandbox. */
function toolDeps(policy: PolicyEngine, approve: ToolCallDeps['approve'], sandbox: SandboxSpec | null = null): ToolCallDeps {
  const tools = builtinTools();
  return {
    tools: new Map(tools.map((t) => [t.name, t])),
    ctx: plainToolContext(root),
    decide: (tool, args) => policy.judge(tool, args),
    approve,
    maxOutputChars: 50_000,
    sandbox,
  };
}

/** Runs one run_command call the way an agent would: the policy, the approval (by a person or the mode), the sandbox. */
async function runCmd(cmd: string, o: { mode?: ApprovalMode; sandbox?: boolean; person?: PersonAnswer; scope?: string[] } = {}) {
  const sandboxed = o.sandbox !== false && BWRAP !== null;
  const policy: PolicyEngine = await makePolicy(root, { home, sandboxed, mode: o.mode ?? 'default' });
  if (o.scope) policy.limitWrites(makeWriteScope(root, o.scope, 'task t1'));
  const spec: SandboxSpec | null = sandboxed ? { bin: BWRAP!, root, home, hidden: () => policy.hiddenPaths() } : null;
  const asked: ApprovalRequest[] = [];
  // As createAgent does: authorize() lets the mode approve what it may ('auto'); a person (or nobody) is asked the rest.
  const approve = async (req: ApprovalRequest): Promise<PersonAnswer> => {
    asked.push(req);
    return o.person ?? 'headless';
  };
  const r = await runToolCall({ tool: 'run_command', args: { cmd } }, { ...toolDeps(policy, approve, spec), mode: o.mode ?? 'default' });
  return { ...r, asked };
}

beforeEach(fixture);

describe.skipIf(!BWRAP)('the sandbox holds a command to the claim (bubblewrap)', () => {
  it('a read-only claim: the project and everything else stay unwritten even when a model is wrong', async () => {
    // What an allowed reader does when devx's model of it is wrong (a sed `e` it misread): held read-only.
    const marker = path.join(outside, 'm1');
    const policy = await makePolicy(root, { home, sandboxed: true });
    const sb = sandboxCommand({ bin: BWRAP!, root, home, hidden: () => policy.hiddenPaths(), claim: { profile: 'read-only', writes: [] } }, root, [
      'bash',
      '-c',
      `touch ${marker}; touch src/new.txt; echo x >> README.md; echo x >> ~/.bashrc; cat .env ~/.ssh/id_rsa ../outside/secret.txt; ls /home /root /var 2>&1; echo done`,
    ]);
    const out = execFileSync(sb.file, sb.args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', ...sb.fds] });
    sb.cleanup();
    expect(out).toMatch(/done/);
    expect(out).not.toMatch(/CANARY/);
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(path.join(root, 'src', 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toBe('readme\n');
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# bashrc\n');
    // Through the wrapper: an allowed line runs read-only, and the masked .env shows as a device, never its text.
    const allowed = await runCmd('ls -la && cat README.md');
    expect(allowed.decision?.decision).toBe('allow');
    expect(allowed.decision?.claim?.profile).toBe('read-only');
    expect(allowed.meta?.sandbox).toBe('bwrap:read-only');
    expect(allowed.content).toMatch(/readme/);
    expect(allowed.content).not.toMatch(/CANARY/);
  });

  it('a write claim makes only the folders of the judged targets writable, and only in the mode that approved it', async () => {
    const r = await runCmd('mkdir -p build/out && touch build/out/a.txt', { mode: 'yolo' });
    expect(r.answer).toBe('auto');
    expect(r.meta?.sandbox).toBe('bwrap:write');
    expect(fs.existsSync(path.join(root, 'build', 'out', 'a.txt'))).toBe(true);
    // The same approval cannot reach a folder it did not name.
    fs.mkdirSync(path.join(root, 'other'));
    const tricky = await runCmd(`touch build/b.txt && bash -c 'touch other/x' ; true`, { mode: 'yolo' });
    expect(tricky.decision?.decision).toBe('deny'); // bash -c is refused outright
    expect(fs.existsSync(path.join(root, 'other', 'x'))).toBe(false);
  });

  it("a build claim (a test runner) cannot touch .git, a hooks folder, other tools' configuration, the home or the network", async () => {
    fs.mkdirSync(path.join(root, '.husky'));
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: root });
    fs.mkdirSync(path.join(root, '.zed'));
    fs.writeFileSync(path.join(root, '.zed', 'tasks.json'), '[]\n');
    // Existing ones in a package, and one in an installed package (not held: npm replaces those folders).
    fs.mkdirSync(path.join(root, 'apps', 'api', '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(root, 'apps', 'api', '.vscode', 'tasks.json'), '{}\n');
    fs.writeFileSync(path.join(root, 'apps', 'api', '.mcp.json'), '{}\n');
    fs.mkdirSync(path.join(root, 'node_modules', 'dep', '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', 'dep', '.vscode', 'settings.json'), '{}\n');
    const gitConfig = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const evil = [
      'echo "gitdir" > .git/commondir',
      'echo "[core] fsmonitor = touch ../outside/fsm" >> .git/config',
      'echo x > .git/hooks/pre-commit',
      'echo x > .husky/pre-commit',
      'mkdir -p .vscode && echo "{}" > .vscode/tasks.json',
      'echo "{}" > .mcp.json',
      'echo "[{\\"command\\": \\"id\\"}]" > .zed/tasks.json',
      'echo "repos: []" > .pre-commit-config.yaml',
      'echo "yarnPath: x.cjs" > .yarnrc.yml',
      'mkdir -p .config && echo "[hooks]" > .config/mise.toml',
      'echo "{}" > .lintstagedrc.json',
      'mkdir -p packages/web/.claude && echo "{}" > packages/web/.claude/settings.json',
      'echo "{\\"tasks\\": 1}" > apps/api/.vscode/tasks.json',
      'echo "{\\"mcpServers\\": 1}" > apps/api/.mcp.json',
      'rm -rf node_modules/dep',
      'echo x >> ~/.bashrc',
      'cat ~/.ssh/id_rsa',
      'cat .env',
      "node -e \"require('net').connect(80, '127.0.0.1').on('error', e => console.log('NET', e.code))\"",
      'cat /proc/*/environ | tr "\\0" "\\n" | grep CANARY_API',
      'echo built > dist.txt',
    ];
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: evil.map((e) => `(${e}) 2>/dev/null`).join('; ') } }));
    // A key in another process's environment (as devx's own holds GEMINI_API_KEY): /proc must not show it.
    const other = spawn('sleep', ['60'], { env: { ...process.env, CANARY_API_KEY: 'CANARY-PROC' }, stdio: 'ignore' });
    const r = await runCmd('npm test').finally(() => other.kill());
    expect(r.decision?.decision).toBe('allow');
    expect(r.meta?.sandbox).toBe('bwrap:build');
    expect(fs.readFileSync(path.join(root, 'dist.txt'), 'utf8')).toBe('built\n'); // the project itself is writable
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(gitConfig);
    for (const p of [
      '.git/commondir',
      '.git/hooks/pre-commit',
      '.husky/pre-commit',
      '.vscode',
      '.mcp.json',
      '.pre-commit-config.yaml',
      '.yarnrc.yml',
      '.config/mise.toml',
      '.lintstagedrc.json',
      'packages/web/.claude',
    ])
      expect(fs.existsSync(path.join(root, p)), p).toBe(false);
    expect(fs.readFileSync(path.join(root, '.zed', 'tasks.json'), 'utf8')).toBe('[]\n');
    expect(fs.readFileSync(path.join(root, 'apps', 'api', '.vscode', 'tasks.json'), 'utf8')).toBe('{}\n');
    expect(fs.readFileSync(path.join(root, 'apps', 'api', '.mcp.json'), 'utf8')).toBe('{}\n');
    expect(fs.existsSync(path.join(root, 'node_modules', 'dep'))).toBe(false);
    expect(fs.readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# bashrc\n');
    // (npm echoes the script, which names CANARY_API: only the values count.)
    expect(r.content).not.toMatch(/CANARY-(ENV|SSH|OUT|PROC)/);
    expect(r.content).toMatch(/NET (ENETUNREACH|ECONNREFUSED|EACCES)/);
    expect(r.content).not.toMatch(/NET undefined/);
  });

  it('a build cannot rename or swap the folders above what the sandbox hides or holds read-only', async () => {
    // A build left running (in the background) that could exchange such a folder with another while a new sandbox
    // starts would have that sandbox's mask land on the other folder's file and leave the real one readable. Each
    // is a mount point there, which rename(2) and renameat2(2)'s exchange both refuse (EBUSY).
    fs.mkdirSync(path.join(root, 'apps', 'web'), { recursive: true });
    fs.writeFileSync(path.join(root, 'apps', 'web', '.env'), 'CANARY-WEB\n');
    fs.mkdirSync(path.join(root, 'tools', 'hooks'), { recursive: true });
    execFileSync('git', ['config', 'core.hooksPath', 'tools/hooks'], { cwd: root });
    fs.mkdirSync(path.join(root, 'decoy'));
    fs.writeFileSync(path.join(root, 'decoy', '.env'), 'harmless\n');
    const tries = [
      'mv apps/web apps/web-old',
      'mv apps apps-old',
      'mv tools tools-old',
      'mv tools/hooks tools/hooks-old',
      'mv apps decoy/apps',
      'mv src src-moved',
    ];
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: tries.map((e) => `(${e}) 2>&1`).join('; ') } }));
    const r = await runCmd('npm test');
    expect(r.meta?.sandbox).toBe('bwrap:build');
    expect(fs.readFileSync(path.join(root, 'apps', 'web', '.env'), 'utf8')).toBe('CANARY-WEB\n');
    for (const p of ['apps-old', 'apps/web-old', 'tools-old', 'tools/hooks-old']) expect(fs.existsSync(path.join(root, p)), p).toBe(false);
    expect(fs.readFileSync(path.join(root, 'decoy', '.env'), 'utf8')).toBe('harmless\n');
    // Moved to another folder, mv falls back to copying (EXDEV): the copy never holds the hidden file's text.
    const copies = execFileSync('grep', ['-rl', 'CANARY-WEB', '.'], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    expect(copies).toEqual(['./apps/web/.env']);
    expect(r.content).toMatch(/busy/i);
    // A folder above nothing held stays the build's to move.
    expect(fs.existsSync(path.join(root, 'src-moved'))).toBe(true);
  });

  it("a queued task's build writes its scope and nothing around it", async () => {
    fs.mkdirSync(path.join(root, 'docs'));
    const writes = ['echo a > docs/a.txt', 'echo b > src/b.txt', 'echo c > c.txt', 'mkdir newdir'];
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: writes.map((e) => `(${e}) 2>&1`).join('; ') } }));
    const r = await runCmd('npm test', { mode: 'yolo', scope: ['docs/'] });
    expect(r.meta?.sandbox).toBe('bwrap:write');
    expect(fs.readFileSync(path.join(root, 'docs', 'a.txt'), 'utf8')).toBe('a\n');
    for (const p of ['src/b.txt', 'c.txt', 'newdir']) expect(fs.existsSync(path.join(root, p)), p).toBe(false);
    expect(r.content).toMatch(/Read-only file system/);
  });

  it("a build's own hard links (every name in the project) are not masked; one with a name outside is", async () => {
    // cargo links target/debug/<bin> to deps/<bin>-<hash>; a masked one could not be replaced by the next build.
    const deps = path.join(root, 'target', 'debug', 'deps');
    fs.mkdirSync(deps, { recursive: true });
    fs.writeFileSync(path.join(deps, 'app-1'), 'CANARY-BUILD\n');
    fs.linkSync(path.join(deps, 'app-1'), path.join(root, 'target', 'debug', 'app'));
    // Two names inside and one outside: still a file from outside.
    fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'a.txt'));
    fs.linkSync(path.join(outside, 'secret.txt'), path.join(root, 'src', 'b.txt'));
    const steps = [
      'cat target/debug/app a.txt src/b.txt',
      'echo v2 > target/debug/deps/app-2',
      'rm target/debug/app',
      'ln target/debug/deps/app-2 target/debug/app',
    ];
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: steps.map((e) => `(${e}) 2>&1`).join('; ') } }));
    const r = await runCmd('npm test');
    expect(r.meta?.sandbox).toBe('bwrap:build');
    expect(r.content).toMatch(/CANARY-BUILD/);
    expect(r.content).not.toMatch(/CANARY-OUT/);
    expect(fs.readFileSync(path.join(root, 'target', 'debug', 'app'), 'utf8')).toBe('v2\n');
  });

  it('git add and commit, approved by yolo, write .git but never its config or hooks', async () => {
    execFileSync('git', ['config', 'user.email', 't@t'], { cwd: root });
    execFileSync('git', ['config', 'user.name', 't'], { cwd: root });
    const r = await runCmd('git add README.md && git commit -qm first', { mode: 'yolo' });
    expect(r.answer).toBe('auto');
    expect(r.status).toBe('ok');
    expect(execFileSync('git', ['log', '--oneline'], { cwd: root, encoding: 'utf8' })).toMatch(/first/);
    expect(fs.existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('a sandbox that fails to start asks a person, never runs unsandboxed on its own', async () => {
    const fakeBin = path.join(base, 'bwrap-broken');
    fs.writeFileSync(fakeBin, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
    const policy = await makePolicy(root, { home, sandboxed: true });
    const marker = path.join(root, 'ran.txt');
    const run = (person: PersonAnswer) =>
      runToolCall(
        { tool: 'run_command', args: { cmd: 'ls' } },
        toolDeps(
          policy,
          async (req) => {
            fs.writeFileSync(marker, req.decision.rule);
            return person;
          },
          { bin: fakeBin, root, home },
        ),
      );
    const refused = await run('headless');
    expect(fs.readFileSync(marker, 'utf8')).toBe('sandbox:failed');
    expect(refused.status).toBe('error');
    expect(refused.content).toMatch(/sandbox did not start: setting up uid map/);
    const approved = await run('yes');
    expect(approved.status).toBe('ok');
    expect(approved.content).toMatch(/README\.md/);
  });
});

describe('without a sandbox, only the small list runs unasked', () => {
  it('sed, awk, jq, env, time, find and sort ask; ls, cat, grep and git status run', async () => {
    for (const cmd of [
      'sed -n 1p README.md',
      "awk '{print}' README.md",
      'jq . package.json',
      'env ls',
      'time ls',
      'find . -name x',
      'sort README.md',
      'xargs echo',
      'nice ls',
      'timeout 5 ls',
    ]) {
      const r = await runCmd(cmd, { sandbox: false });
      expect(r.decision?.decision, cmd).toBe('ask');
      expect(r.answer, cmd).toBe('headless');
    }
    for (const cmd of ['ls -la', 'cat README.md', 'head -n 1 README.md', 'grep -n readme README.md', 'git status --short', 'wc -l README.md']) {
      const r = await runCmd(cmd, { sandbox: false });
      expect(r.decision?.decision, cmd).toBe('allow');
    }
  });

  it('yolo refuses what would run project code, an unmodelled command or a modelled write, and says how to get it run', async () => {
    for (const cmd of ['npm test', 'sed -n 1p README.md', 'mytool --x']) {
      const r = await runCmd(cmd, { sandbox: false, mode: 'yolo' });
      expect(r.decision?.decision, cmd).toBe('deny');
      expect(r.content, cmd).toMatch(/yolo approves only what devx knows the whole effect of/);
    }
    // A write its argument model names would be held by nothing but that model: the sandbox holds it, or a person says yes.
    for (const cmd of ['mkdir out', 'touch out.txt', 'echo x > out.md', 'patch --dry-run --output=out.txt README.md']) {
      const r = await runCmd(cmd, { sandbox: false, mode: 'yolo' });
      expect(r.decision?.decision, cmd).toBe('deny');
      expect(r.content, cmd).toMatch(/install bubblewrap so devx can sandbox it/);
    }
    for (const f of ['out', 'out.txt', 'out.md']) expect(fs.existsSync(path.join(root, f)), f).toBe(false);
    // Headless in the default mode, the model is not told that --yes would run it.
    const headless = await runCmd('mkdir out', { sandbox: false });
    expect(headless.content).toMatch(/--yes runs it only in the sandbox, which this machine lacks/);
  });
});

describe('unknown means no in yolo, with or without the sandbox', () => {
  const REFUSED = [
    "perl -we 'print 1'",
    "python3 -Ic 'print(1)'",
    'npm exec -- bash -c id',
    'npx cowsay hi',
    "tclsh <<< 'puts 1'",
    "let 'a[$(id)]=1'",
    'mapfile -C id x < README.md',
    "printf -v x '%s' y",
    'declare x=1',
    'eval id',
    'trap id EXIT',
    'cat ../outside/secret.txt',
    'echo x > .vscode/tasks.json',
    'echo x > .claude/settings.json',
    'env -S"touch x" true',
  ];
  for (const sandbox of [true, false]) {
    it(`refuses every one (sandbox ${sandbox ? 'on' : 'off'}), and nothing ran`, async () => {
      for (const cmd of REFUSED) {
        const r = await runCmd(cmd, { sandbox, mode: 'yolo' });
        expect(r.decision?.decision, cmd).toBe('deny');
      }
      expect(fs.existsSync(path.join(root, '.vscode'))).toBe(false);
      expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
    });
  }

  it("a symbolic link's relative target is judged from the link's folder: one leading out is a person's to make", async () => {
    fs.mkdirSync(path.join(root, 'docs', 'a'), { recursive: true });
    const policy = await makePolicy(root, { home });
    // From docs/a, ../docs is the project's docs; from the link's folder (the top) it is a folder beside the project.
    const out = policy.decideCommand('cd docs/a && ln -s ../docs ../../q');
    expect(out.decision).not.toBe('allow');
    expect(approvableByMode(out, true)).toBe(false);
    const inside = policy.decideCommand('cd docs/a && ln -s docs ../../q');
    expect([inside.decision, approvableByMode(inside, true)]).toEqual(['ask', true]);
  });

  it("a link out of the project is read only with a person's yes; additionalDirectories lets it be read", async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out'));
    const yolo = await runCmd('cat link-out', { mode: 'yolo' });
    expect(yolo.decision?.decision).toBe('deny');
    expect(yolo.content).not.toMatch(/CANARY/);
    const asked = await runCmd('cat link-out');
    expect(asked.decision?.decision).toBe('ask');
    const policy = await makePolicy(root, { home, additionalDirs: [fs.realpathSync(outside)] });
    expect(policy.decideCommand('cat link-out').decision).toBe('allow');
    expect(policy.decidePath(path.join(outside, 'secret.txt'), 'read').decision).toBe('allow');
    expect(policy.decidePath(path.join(outside, 'new.txt'), 'write').rule).toBe('path:additional-dir-write');
    // A write there is an ask a mode may lift; what the wrapper runs after it is still judged whole.
    const timed = policy.decideCommand(`time -o ${path.join(outside, 'out.txt')} sh -c id`);
    expect(timed.decision).not.toBe('allow');
    expect(approvableByMode(timed, true)).toBe(false);
  });

  it.skipIf(!BWRAP)(
    'a hard link under a folder named node_modules/.pnpm is masked like any other in the sandbox; a verified pnpm store link is not',
    async () => {
      // Anyone can name a folder node_modules/.pnpm: the name alone does not make a hard link pnpm's.
      const pkg = path.join(root, 'node_modules', '.pnpm', 'x@1.0.0', 'node_modules', 'x');
      fs.mkdirSync(pkg, { recursive: true });
      fs.linkSync(path.join(outside, 'secret.txt'), path.join(pkg, 'index.js'));
      // A real store file: named by its content's SHA-512 in a store in the home, the same inode as the project's name.
      const pnpmHome = path.join(base, 'pnpm-home');
      const content = 'CANARY-STORE\n';
      const hex = crypto.createHash('sha512').update(content).digest('hex');
      const storeFile = path.join(pnpmHome, 'store', 'v3', 'files', hex.slice(0, 2), hex.slice(2));
      fs.mkdirSync(path.dirname(storeFile), { recursive: true });
      fs.writeFileSync(storeFile, content);
      const realPkg = path.join(root, 'node_modules', '.pnpm', 'y@1.0.0', 'node_modules', 'y');
      fs.mkdirSync(realPkg, { recursive: true });
      fs.linkSync(storeFile, path.join(realPkg, 'index.js'));
      const saved = process.env.PNPM_HOME;
      process.env.PNPM_HOME = pnpmHome;
      try {
        const r = await runCmd('grep -r CANARY node_modules');
        expect(r.decision?.decision).toBe('allow');
        expect(r.content).not.toMatch(/CANARY-OUT/);
        expect(r.content).toMatch(/CANARY-STORE/);
      } finally {
        if (saved === undefined) delete process.env.PNPM_HOME;
        else process.env.PNPM_HOME = saved;
      }
    },
  );

  it("writes to other tools' executable configuration ask in the default mode, saying why, for file tools too", async () => {
    const policy = await makePolicy(root, { home });
    const tools = new Map(builtinTools().map((t) => [t.name, t]));
    execFileSync('git', ['config', 'core.hooksPath', 'tools/hooks'], { cwd: root });
    for (const p of [
      '.vscode/tasks.json',
      '.vscode/settings.json',
      '.claude/settings.local.json',
      '.gemini/settings.json',
      '.husky/pre-commit',
      'tools/hooks/pre-push',
      '.mcp.json',
      '.vscode/mcp.json',
      '.zed/tasks.json',
      '.zed/settings.json',
      '.codex/config.toml',
      '.cursor/mcp.json',
      'opencode.json',
      '.aider.conf.yml',
      '.pre-commit-config.yaml',
      'lefthook.yml',
      '.devcontainer/devcontainer.json',
      '.devcontainer.json',
      'mise.toml',
      '.yarnrc.yml',
      '.pnpmfile.cjs',
      '.config/mise/config.toml',
      '.config/mise.toml',
      'mise.dev.toml',
      'lefthook.toml',
      '.config/lefthook.yml',
      '.lintstagedrc.json',
      '.cargo/config.toml',
      'app.code-workspace',
      '.ZED/tasks.json',
      'packages/web/.claude/settings.json',
      'packages/web/.vscode/tasks.json',
      'packages/web/.mcp.json',
    ]) {
      const d = policy.decideToolCall(tools.get('write_file')!, { path: p, content: 'x' });
      expect(d.decision, p).toBe('ask');
      expect(d.rule, p).toBe('path:exec-config');
      expect(d.reason, p).toMatch(/runs commands from/);
      expect(approvableByMode(d, true), p).toBe(false);
    }
    expect(policy.decideToolCall(tools.get('write_file')!, { path: '.vscode/extensions.json', content: 'x' }).rule).toBe('tool:write');
  });
});

describe('placeholders for missing protected names', () => {
  it.skipIf(!BWRAP)('are removed when the command ends, and after a kill -9 at the next start', async () => {
    const policy = await makePolicy(root, { home, sandboxed: true });
    const journalDir = path.join(home, '.devx', 'sandbox');
    const sb = sandboxCommand({ bin: BWRAP!, root, home, hidden: () => policy.hiddenPaths(), journalDir, claim: { profile: 'build', writes: [] } }, root, [
      'bash',
      '-c',
      'mkdir .vscode 2>&1; ls -la',
    ]);
    const out = execFileSync(sb.file, sb.args, { cwd: root, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe', ...sb.fds] });
    expect(out).toMatch(/cannot create directory .\.vscode./);
    // While it ran, the placeholders stood in the project and in the journal; a killed devx never calls cleanup().
    expect(fs.statSync(path.join(root, '.vscode')).size).toBe(0);
    expect(fs.readdirSync(journalDir)).toHaveLength(1);
    fs.writeFileSync(path.join(root, '.claude'), 'the user made this\n'); // not a placeholder: kept
    const { sweepPlaceholders } = await import('../../src/sandbox/bwrap.js');
    const journal = path.join(journalDir, fs.readdirSync(journalDir)[0]);
    fs.renameSync(journal, journal.replace(/placeholders-\d+-/, 'placeholders-999999-')); // as left by a dead devx
    sweepPlaceholders(journalDir);
    for (const n of ['.vscode', '.gemini']) expect(fs.existsSync(path.join(root, n)), n).toBe(false);
    expect(fs.readFileSync(path.join(root, '.claude'), 'utf8')).toBe('the user made this\n');
    expect(fs.readdirSync(journalDir)).toEqual([]);
  });
});

describe('files keep their permissions', () => {
  it('write_file, edit_file and append_file refuse a read-only file, say so in the confirmation, and leave it as it was', async () => {
    const f = path.join(root, 'locked.txt');
    fs.writeFileSync(f, 'keep me\n');
    fs.chmodSync(f, 0o444);
    const policy = await makePolicy(root, { home });
    const previews: string[] = [];
    const deps = toolDeps(policy, async (req) => {
      previews.push(req.preview ?? '');
      return 'yes';
    });
    const calls: { tool: string; args: Record<string, string> }[] = [
      { tool: 'write_file', args: { path: 'locked.txt', content: 'changed\n' } },
      { tool: 'edit_file', args: { path: 'locked.txt', old_text: 'keep', new_text: 'lose' } },
      { tool: 'append_file', args: { path: 'locked.txt', content: 'more\n' } },
    ];
    for (const c of calls) {
      const r = await runToolCall(c, deps);
      expect(r.status, c.tool).toBe('error');
      expect(r.content, c.tool).toMatch(/locked\.txt is read-only \(mode 0444\); devx does not change permissions/);
    }
    expect(previews[0]).toMatch(/note: locked\.txt is read-only/);
    expect(previews[1]).toMatch(/note: locked\.txt is read-only/);
    expect(fs.readFileSync(f, 'utf8')).toBe('keep me\n');
    expect(fs.statSync(f).mode & 0o777).toBe(0o444);
  });
});
