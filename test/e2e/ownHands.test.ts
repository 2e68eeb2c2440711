// What devx does itself with an untrusted repository (its own git, its in-process readers, its own files,
// what a sandboxed build leaves behind for later), judged only by effects: markers a program writes
// outside the project, canaries that reach the model, changes to a temp HOME, and what the user's own
// later `git status` / `git diff` in the project runs. Each scenario runs through the real loop
// (runHeadless with a scripted model, the real tools, policy, git and bubblewrap) in default mode and
// in yolo, with the sandbox and without it. One summary line: OWNHANDS runs=N effects=N.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { runHeadless } from '../../src/runtime/runHeadless.js';
import { ScriptedBackend } from '../../src/providers/scripted.js';
import { detectBwrap } from '../../src/sandbox/bwrap.js';
import { fakeEnv, makeHome, makeProject, runDevx, tempDir } from '../helpers/env.js';
import { useFakeApi } from '../helpers/useFakeApi.js';
import type { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { SECOND_PASS } from '../helpers/scope.js';
import { runScripted } from '../helpers/runCliHere.js';

const BWRAP = detectBwrap(process.env) !== null;

interface World {
  project: string;
  home: string;
  outside: string;
  canary: string;
}

interface Scenario {
  name: string;
  setup(w: World): void;
  /** The obedient model's tool calls, one reply each. */
  calls(w: World): string[];
  /** Only meaningful with the sandbox (a build that plants something), or only without it. */
  only?: 'sandbox' | 'no-sandbox';
  /** Folders (relative) where the user runs `git status` and `git diff` afterwards; their markers count. */
  userGit?: string[];
  /** Files in the project that must not exist afterwards (what a build must not leave). */
  absent?: string[];
  /** devx may refuse to run at all, with a message matching this (a state file it will not write). */
  refusal?: string;
  /** Extra environment for devx (DEVX_RG=none for the search without ripgrep). */
  env?: Record<string, string>;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });
const put = (file: string, text: string, mode?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  if (mode) fs.chmodSync(file, mode);
};
/** A shell line that leaves a marker outside the project (and passes its input through, as a filter would). */
const mark = (w: World, name: string) => `touch ${w.outside}/marker-${name}; cat`;
const addConfig = (w: World, text: string, dir = '.git') => fs.appendFileSync(path.join(w.project, dir, 'config'), text);
const commitAll = (cwd: string) => {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-qm', 'ship', '--allow-empty');
};
const rc = (line: string) => `TOOL_CALL: run_command | cmd=${line}`;
/** A submodule at `sub` (a real one: .gitmodules, a gitlink, .git/modules/sub). */
function addSubmodule(w: World, name = 'sub'): void {
  const src = tempDir('devx-subsrc-');
  git(src, 'init', '-q');
  put(path.join(src, 'lib.txt'), 'lib\n');
  commitAll(src);
  git(w.project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', src, name);
  git(w.project, 'commit', '-qm', 'sub');
}
/** A build (package.json test script) that runs `script` with bash. */
const build = (w: World, script: string) => {
  put(path.join(w.project, 'build.sh'), script, 0o755);
  put(path.join(w.project, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'bash build.sh' } }));
  commitAll(w.project);
};
/** An fsmonitor config a planted git directory carries. */
const fsmonitorConfig = (w: World, name: string) => `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${w.outside}/marker-${name}\n`;

const SCENARIOS: Scenario[] = [
  // The repository's git configuration, met by git devx runs (for the model, and for itself).
  {
    name: 'core.fsmonitor in .git/config, git status',
    setup: (w) => addConfig(w, `[core]\n\tfsmonitor = touch ${w.outside}/marker-fsmonitor\n`),
    calls: () => [rc('git status'), rc('git diff'), rc('git log -1 --stat')],
  },
  {
    name: 'a clean filter chosen by .gitattributes, git status and git diff on a changed file',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.txt filter=evil\n');
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      addConfig(w, `[filter "evil"]\n\tclean = ${mark(w, 'clean')}\n\tsmudge = ${mark(w, 'smudge')}\n`);
      put(path.join(w.project, 'a.txt'), 'two\n');
    },
    calls: () => [rc('git status'), rc('git diff'), rc('git diff --stat')],
  },
  {
    name: 'a process filter (filter.<x>.process) and required=true',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.txt filter=proc\n');
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      addConfig(w, `[filter "proc"]\n\tprocess = touch ${w.outside}/marker-process\n\trequired = true\n`);
      put(path.join(w.project, 'a.txt'), 'two\n');
    },
    calls: () => [rc('git status'), rc('git diff')],
  },
  {
    name: 'a textconv driver, git diff and git log -p',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.txt diff=tc\n');
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      put(path.join(w.project, 'a.txt'), 'two\n');
      commitAll(w.project);
      addConfig(w, `[diff "tc"]\n\ttextconv = ${mark(w, 'textconv')}\n`);
      put(path.join(w.project, 'a.txt'), 'three\n');
    },
    calls: () => [rc('git diff'), rc('git log -p -2'), rc('git show')],
  },
  {
    name: 'diff.external, git diff and git show',
    setup: (w) => {
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      addConfig(w, `[diff]\n\texternal = touch ${w.outside}/marker-external\n`);
      put(path.join(w.project, 'a.txt'), 'two\n');
    },
    calls: () => [rc('git diff'), rc('git show'), rc('git log -p -1')],
  },
  {
    name: 'a diff driver command chosen by .gitattributes',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.txt diff=cmd\n');
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      addConfig(w, `[diff "cmd"]\n\tcommand = touch ${w.outside}/marker-diffcmd\n`);
      put(path.join(w.project, 'a.txt'), 'two\n');
    },
    calls: () => [rc('git diff'), rc('git log -p -1')],
  },
  {
    name: 'core.pager and pager.log',
    setup: (w) => addConfig(w, `[core]\n\tpager = touch ${w.outside}/marker-pager\n[pager]\n\tlog = touch ${w.outside}/marker-pagerlog\n`),
    calls: () => [rc('git log -1'), rc('git --no-pager log -1')],
  },
  {
    name: 'a .git/config too large to list (over 32 MB) with a clean filter chosen by .gitattributes',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.txt filter=big\n');
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      addConfig(w, `[big]\n\tpad = ${'x'.repeat(33 * 1024 * 1024)}\n[filter "big"]\n\tclean = ${mark(w, 'bigconfig')}\n`);
      put(path.join(w.project, 'a.txt'), 'ONE\n');
    },
    calls: () => [rc('git status'), rc('git diff')],
  },
  {
    name: 'core.worktree pointing at a folder outside the project, git status and git diff',
    setup: (w) => {
      // A folder of its own (every file in w.outside counts as a marker), holding the canary.
      const elsewhere = tempDir('devx-elsewhere-');
      put(path.join(elsewhere, 'README.md'), `${w.canary}\n`);
      put(path.join(elsewhere, 'notes.txt'), `${w.canary}\n`);
      addConfig(w, `[core]\n\tworktree = ${elsewhere}\n`);
    },
    calls: () => [rc('git status'), rc('git diff'), rc('git diff --stat'), rc('git log -1 --stat')],
  },
  {
    name: 'a config include (inside the project) naming an fsmonitor',
    setup: (w) => {
      put(path.join(w.project, 'tools', 'git.inc'), `[core]\n\tfsmonitor = touch ${w.outside}/marker-include\n`);
      commitAll(w.project);
      addConfig(w, `[include]\n\tpath = ../tools/git.inc\n`);
    },
    calls: () => [rc('git status'), rc('git diff')],
  },
  {
    name: 'a conditional include (includeIf gitdir) naming a textconv',
    setup: (w) => {
      put(path.join(w.project, '.gitattributes'), '*.md diff=inc\n');
      put(path.join(w.project, 'doc.md'), 'a\n');
      commitAll(w.project);
      put(path.join(w.project, 'tools', 'cond.inc'), `[diff "inc"]\n\ttextconv = ${mark(w, 'includeif')}\n`);
      addConfig(w, `[includeIf "gitdir:${w.project}/"]\n\tpath = ${w.project}/tools/cond.inc\n`);
      put(path.join(w.project, 'doc.md'), 'b\n');
    },
    calls: () => [rc('git diff'), rc('git status')],
  },
  {
    name: 'worktree config (extensions.worktreeConfig) naming an fsmonitor',
    setup: (w) => {
      addConfig(w, '[extensions]\n\tworktreeConfig = true\n');
      put(path.join(w.project, '.git', 'config.worktree'), `[core]\n\tfsmonitor = touch ${w.outside}/marker-worktreeconfig\n`);
    },
    calls: () => [rc('git status')],
  },
  {
    name: 'a .git file pointing at a git directory elsewhere in the project with an fsmonitor',
    setup: (w) => {
      fs.renameSync(path.join(w.project, '.git'), path.join(w.project, '.store'));
      put(path.join(w.project, '.git'), 'gitdir: .store\n');
      fs.appendFileSync(path.join(w.project, '.store', 'config'), `[core]\n\tfsmonitor = touch ${w.outside}/marker-gitfile\n`);
    },
    calls: () => [rc('git status'), rc('git log -1')],
  },
  {
    name: 'a nested repository (untracked) with an fsmonitor, git status inside it',
    setup: (w) => {
      const n = path.join(w.project, 'vendor', 'lib');
      fs.mkdirSync(n, { recursive: true });
      git(n, 'init', '-q');
      put(path.join(n, 'x.txt'), 'x\n');
      commitAll(n);
      fs.appendFileSync(path.join(n, '.git', 'config'), `[core]\n\tfsmonitor = touch ${w.outside}/marker-nested\n`);
    },
    calls: () => [rc('cd vendor/lib && git status'), rc('git -C vendor/lib status'), rc('git status')],
  },
  {
    name: 'a submodule whose module config has an fsmonitor, git status at the top',
    setup: (w) => {
      addSubmodule(w);
      fs.appendFileSync(path.join(w.project, '.git', 'modules', 'sub', 'config'), `[core]\n\tfsmonitor = touch ${w.outside}/marker-submodule\n`);
      put(path.join(w.project, 'sub', 'lib.txt'), 'changed\n');
    },
    calls: () => [rc('git status'), rc('git diff'), rc('cd sub && git status')],
  },
  {
    name: 'hooks in .git/hooks and core.hooksPath, a git change in yolo',
    setup: (w) => {
      for (const h of ['pre-commit', 'post-commit', 'reference-transaction', 'post-checkout', 'prepare-commit-msg', 'post-index-change'])
        put(path.join(w.project, '.git', 'hooks', h), `#!/bin/sh\ntouch ${w.outside}/marker-hook-${h}\n`, 0o755);
      put(path.join(w.project, 'a.txt'), 'one\n');
    },
    calls: () => [rc('git add a.txt'), rc('git commit -m change'), rc('git checkout -b side'), rc('git status')],
  },
  {
    name: 'gpg.program with a signed commit, git log --format=%GG',
    setup: (w) => {
      const tree = execFileSync('git', ['write-tree'], { cwd: w.project, encoding: 'utf8' }).trim();
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: w.project, encoding: 'utf8' }).trim();
      const body = `tree ${tree}\nparent ${head}\nauthor t <t@t> 1700000000 +0000\ncommitter t <t@t> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n`;
      const sha = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: w.project, input: body, encoding: 'utf8' }).trim();
      git(w.project, 'update-ref', 'HEAD', sha);
      addConfig(w, `[gpg]\n\tprogram = touch ${w.outside}/marker-gpg\n[log]\n\tshowSignature = true\n`);
    },
    calls: () => [rc('git log --format=%GG -1'), rc('git log -1'), rc('git show --stat')],
  },
  {
    name: 'GIT_EXTERNAL_DIFF as a command prefix (yolo)',
    setup: (w) => {
      put(path.join(w.project, 'hook.sh'), `#!/bin/sh\ntouch ${w.outside}/marker-envdiff\n`, 0o755);
      put(path.join(w.project, 'a.txt'), 'one\n');
      commitAll(w.project);
      put(path.join(w.project, 'a.txt'), 'two\n');
    },
    calls: () => [rc('GIT_EXTERNAL_DIFF=./hook.sh git diff'), rc('GIT_PAGER=./hook.sh git log -1')],
  },
  {
    name: 'TAR_OPTIONS running a checkpoint action (yolo approves env prefixes)',
    setup: (w) => {
      put(path.join(w.project, 'hook.sh'), `#!/bin/sh\ntouch ${w.outside}/marker-taroptions\n`, 0o755);
      put(path.join(w.project, 'data', 'f.txt'), 'x\n');
      execFileSync('tar', ['-cf', 'bundle.tar', 'data'], { cwd: w.project });
    },
    calls: () => [
      rc("TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=./hook.sh' tar -tf bundle.tar"),
      rc("env TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=./hook.sh' tar -tf bundle.tar"),
      rc("timeout 5 env TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=./hook.sh' tar -tf bundle.tar"),
      rc('tar --checkpoint=1 --checkpoint-action=exec=./hook.sh -tf bundle.tar'),
    ],
  },
  {
    name: 'a committed .env.production printed by git format-patch, show and log -p',
    setup: (w) => {
      put(path.join(w.project, '.env.production'), `SECRET=${w.canary}\n`);
      git(w.project, 'add', '-f', '.env.production');
      git(w.project, 'commit', '-qm', 'env');
    },
    calls: () => [
      rc('git format-patch --stdout -1 HEAD'),
      rc('git format-patch -1 HEAD -o patches'),
      rc('cat patches/*.patch'),
      rc('git log -p -1'),
      rc('git show HEAD'),
      rc('git diff HEAD~1 HEAD'),
      rc('git cat-file -p HEAD:.env.production'),
      rc('git grep SECRET HEAD'),
      rc('git stash show -p'),
    ],
  },
  // A sandboxed build that leaves something behind for the user's own later git, or another tool.
  {
    name: "a build replaces a submodule's git directory with one naming an fsmonitor",
    only: 'sandbox',
    setup: (w) => {
      addSubmodule(w, 'sub2');
      build(
        w,
        `mv sub2/.git sub2/.git-old 2>/dev/null; rm -rf sub2/.git; mkdir -p sub2/.git && cp -r .git/modules/sub2/. sub2/.git/ 2>/dev/null; printf '${fsmonitorConfig(w, 'plant-sub').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' >> sub2/.git/config; echo ok`,
      );
    },
    calls: () => [rc('npm test')],
    userGit: ['.', 'sub2'],
  },
  {
    name: 'a build moves a submodule folder away and makes a new one with a git directory',
    only: 'sandbox',
    setup: (w) => {
      addSubmodule(w, 'sub3');
      build(
        w,
        `mv sub3 sub3-old; mkdir -p sub3/.git/objects sub3/.git/refs; echo 'ref: refs/heads/master' > sub3/.git/HEAD; printf '${fsmonitorConfig(w, 'plant-move').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > sub3/.git/config; echo ok`,
      );
    },
    calls: () => [rc('npm test')],
    userGit: ['.', 'sub3'],
  },
  {
    name: 'a build makes a new nested repository with an fsmonitor',
    only: 'sandbox',
    setup: (w) =>
      build(
        w,
        `mkdir -p gen/.git/objects gen/.git/refs; echo 'ref: refs/heads/master' > gen/.git/HEAD; printf '${fsmonitorConfig(w, 'plant-new').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > gen/.git/config; echo ok`,
      ),
    calls: () => [rc('npm test')],
    userGit: ['gen'],
  },
  {
    name: 'a build writes a `gitdir:` file pointing at a git directory it made',
    only: 'sandbox',
    setup: (w) =>
      build(
        w,
        `mkdir -p out/store/objects out/store/refs out/pkg; echo 'ref: refs/heads/master' > out/store/HEAD; printf '${fsmonitorConfig(w, 'plant-gitfile').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > out/store/config; echo 'gitdir: ../store' > out/pkg/.git; echo ok`,
      ),
    calls: () => [rc('npm test')],
    userGit: ['out/pkg'],
  },
  {
    name: 'a build writes a nested repository’s config',
    only: 'sandbox',
    setup: (w) => {
      const n = path.join(w.project, 'lib');
      fs.mkdirSync(n);
      git(n, 'init', '-q');
      put(path.join(n, 'x.txt'), 'x\n');
      commitAll(n);
      build(w, `printf '[core]\\n\\tfsmonitor = touch ${w.outside}/marker-plant-nestedcfg\\n' >> lib/.git/config; echo ok`);
    },
    calls: () => [rc('npm test')],
    userGit: ['lib'],
  },
  {
    name: 'a build creates .mcp.json, .envrc, .idea and .husky at the top',
    only: 'sandbox',
    setup: (w) =>
      build(
        w,
        `echo '{"mcpServers":{"x":{"command":"touch","args":["${w.outside}/marker-mcp"]}}}' > .mcp.json; echo 'touch ${w.outside}/marker-envrc' > .envrc; mkdir -p .idea .husky; echo ok`,
      ),
    calls: () => [rc('npm test')],
    absent: ['.mcp.json', '.envrc', '.idea', '.husky'],
  },
  {
    name: 'a build makes the project a git repository (none was there) with an fsmonitor',
    only: 'sandbox',
    setup: (w) => {
      fs.rmSync(path.join(w.project, '.git'), { recursive: true, force: true });
      put(
        path.join(w.project, 'build.sh'),
        `mkdir -p .git/objects .git/refs; echo 'ref: refs/heads/master' > .git/HEAD; printf '${fsmonitorConfig(w, 'plant-top').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > .git/config; echo ok`,
        0o755,
      );
      put(path.join(w.project, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'bash build.sh' } }));
    },
    calls: () => [rc('npm test')],
    userGit: ['.'],
  },
  {
    name: "a build creates other tools' settings: .claude, .gemini, .vscode tasks",
    only: 'sandbox',
    setup: (w) =>
      build(
        w,
        `mkdir -p .claude .gemini .vscode; echo '{"hooks":{}}' > .claude/settings.json; echo '{}' > .gemini/settings.json; echo '{"tasks":[]}' > .vscode/tasks.json; echo ok`,
      ),
    calls: () => [rc('npm test')],
    absent: ['.claude/settings.json', '.gemini/settings.json', '.vscode/tasks.json'],
  },
  // Hard links and special files met by devx's own readers, and by sandboxed readers.
  {
    name: 'search_code over a hard link to ~/.aws/credentials (ripgrep)',
    setup: (w) => fs.linkSync(path.join(w.home, '.aws', 'credentials'), path.join(w.project, 'hl.txt')),
    calls: () => ['TOOL_CALL: search_code | pattern=CANARY', 'TOOL_CALL: search_code | pattern=CANARY | path=hl.txt'],
  },
  {
    name: 'search_code over a hard link to ~/.aws/credentials (no ripgrep)',
    setup: (w) => fs.linkSync(path.join(w.home, '.aws', 'credentials'), path.join(w.project, 'docs.txt')),
    calls: () => ['TOOL_CALL: search_code | pattern=CANARY'],
    env: { DEVX_RG: 'none' },
  },
  {
    name: 'grep -r and cat over a hard link in a subfolder',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, 'src'));
      fs.linkSync(path.join(w.home, '.aws', 'credentials'), path.join(w.project, 'src', 'notes.txt'));
    },
    calls: () => [
      rc('grep -r CANARY .'),
      rc('grep -d recurse CANARY .'),
      rc('cat src/notes.txt'),
      rc('head src/*.txt'),
      'TOOL_CALL: read_file | path=src/notes.txt',
    ],
  },
  {
    name: 'glob and list_directory beside a FIFO and a hard link',
    setup: (w) => {
      execFileSync('mkfifo', [path.join(w.project, 'pipe.txt')]);
      fs.linkSync(path.join(w.home, '.ssh', 'id_rsa'), path.join(w.project, 'key.txt'));
    },
    calls: () => [
      'TOOL_CALL: glob | pattern=*.txt',
      'TOOL_CALL: list_directory | path=.',
      'TOOL_CALL: search_code | pattern=CANARY',
      'TOOL_CALL: read_file | path=pipe.txt',
    ],
    env: { DEVX_RG: 'none' },
  },
  {
    name: 'MEMORY.md hard-linked to ~/.ssh/id_rsa',
    setup: (w) => fs.linkSync(path.join(w.home, '.ssh', 'id_rsa'), path.join(w.project, 'MEMORY.md')),
    calls: () => [],
  },
  {
    name: 'HANDOFF.md hard-linked to ~/.aws/credentials',
    setup: (w) => fs.linkSync(path.join(w.home, '.aws', 'credentials'), path.join(w.project, 'HANDOFF.md')),
    calls: () => [],
  },
  {
    name: '.devx/audit.jsonl hard-linked to ~/.bashrc',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, '.devx'), { recursive: true });
      fs.linkSync(path.join(w.home, '.bashrc'), path.join(w.project, '.devx', 'audit.jsonl'));
    },
    calls: () => [rc('echo "$(touch /tmp/x)"'), 'TOOL_CALL: read_file | path=README.md'],
    refusal: 'audit.jsonl has 2 hard links',
  },
  {
    name: 'an agent file hard-linked to ~/.ssh/id_rsa',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, '.devx', 'agents'), { recursive: true });
      fs.linkSync(path.join(w.home, '.ssh', 'id_rsa'), path.join(w.project, '.devx', 'agents', 'helper.md'));
    },
    calls: () => [],
  },
  // Names that are not UTF-8: read as text they turn into paths that do not exist, and a check on those checks nothing.
  {
    name: 'a glob matching a link to ~/.aws/credentials whose name is not UTF-8 (cat, head, tail)',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, 'docs'));
      fs.symlinkSync(path.join(w.home, '.aws', 'credentials'), nonUtf8(w.project, 'docs/b-', '.md'));
      commitAll(w.project);
    },
    calls: () => [rc('cat docs/*'), rc('head docs/*.md'), rc('tail docs/b-*')],
  },
  {
    name: 'a redirection through a glob matching a link to ~/.bashrc whose name is not UTF-8',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, 'logs'));
      fs.symlinkSync(path.join(w.home, '.bashrc'), nonUtf8(w.project, 'logs/build-', '.log'));
      commitAll(w.project);
    },
    calls: (w) => [rc(`echo 'touch ${w.outside}/marker-bashrc' >> logs/build-*.log`), rc(`printf 'x\\n' > logs/*`)],
  },
  {
    name: 'a hard link to ~/.aws/credentials whose name is not UTF-8 (grep -r, cat, search_code)',
    setup: (w) => {
      fs.mkdirSync(path.join(w.project, 'src'));
      fs.linkSync(path.join(w.home, '.aws', 'credentials'), nonUtf8(w.project, 'src/notes-', '.txt'));
    },
    calls: () => [rc('grep -r aws_secret src'), rc('grep -r CANARY .'), rc('cat src/*'), 'TOOL_CALL: search_code | pattern=CANARY'],
  },
  {
    name: 'search_code without ripgrep over a hard link whose name is not UTF-8',
    setup: (w) => fs.linkSync(path.join(w.home, '.aws', 'credentials'), nonUtf8(w.project, 'notes-', '.txt')),
    calls: () => ['TOOL_CALL: search_code | pattern=CANARY'],
    env: { DEVX_RG: 'none' },
  },
  {
    name: 'a build makes a nested repository with an fsmonitor in a folder whose name is not UTF-8',
    setup: (w) =>
      build(
        w,
        `d=$'gen-\\xff'; mkdir -p "$d/.git/objects" "$d/.git/refs"; echo 'ref: refs/heads/master' > "$d/.git/HEAD"; printf '${fsmonitorConfig(w, 'new-unnamed').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}' > "$d/.git/config"`,
      ),
    calls: () => [rc('npm test')],
    only: 'sandbox',
    userGit: ['gen-\\xff'],
  },
  {
    name: 'a nested repository in a folder whose name is not UTF-8; a build adds an fsmonitor to its config',
    setup: (w) => {
      fs.mkdirSync(nonUtf8(w.project, 'vendor-', ''));
      execFileSync('bash', ['-c', `cd $'vendor-\\xff' && git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x`], {
        cwd: w.project,
      });
      build(w, `printf '[core]\\n\\tfsmonitor = touch ${w.outside}/marker-existing-unnamed\\n' >> $'vendor-\\xff'/.git/config`);
    },
    calls: () => [rc('npm test')],
    only: 'sandbox',
    userGit: ['vendor-\\xff'],
  },
  {
    name: 'a nested repository whose `.git` file names a git folder whose name is not UTF-8; a build adds an fsmonitor there',
    setup: (w) => {
      execFileSync(
        'bash',
        ['-c', `git init -q --separate-git-dir=$'gd-\\xff' sub && git -C sub -c user.email=t@t -c user.name=t commit -q --allow-empty -m x`],
        {
          cwd: w.project,
        },
      );
      build(w, `printf '[core]\\n\\tfsmonitor = touch ${w.outside}/marker-gitdir-unnamed\\n' >> $'gd-\\xff'/config`);
    },
    calls: () => [rc('npm test')],
    only: 'sandbox',
    userGit: ['sub'],
  },
  {
    name: "a nested repository whose commondir names a folder of the project; a build adds an fsmonitor to that folder's config",
    setup: (w) => {
      // sub's own .git holds only HEAD and commondir; its config, refs and objects are in common/.
      git(w.project, 'init', '-q', 'sub');
      git(path.join(w.project, 'sub'), 'commit', '-q', '--allow-empty', '-m', 'x');
      fs.renameSync(path.join(w.project, 'sub', '.git'), path.join(w.project, 'common'));
      put(path.join(w.project, 'sub', '.git', 'commondir'), '../../common\n');
      fs.copyFileSync(path.join(w.project, 'common', 'HEAD'), path.join(w.project, 'sub', '.git', 'HEAD'));
      build(w, `printf '[core]\\n\\tfsmonitor = touch ${w.outside}/marker-commondir\\n' >> common/config`);
    },
    calls: () => [rc('npm test')],
    only: 'sandbox',
    userGit: ['sub'],
  },
  {
    name: "a nested repository's gitdir reaching the home through a link in the project (the sandbox would bind it)",
    setup: (w) => {
      fs.symlinkSync(path.relative(w.project, w.home), path.join(w.project, 'y'));
      put(path.join(w.project, 'node_modules', 's', '.git'), 'gitdir: ../../y/.ssh\n');
    },
    calls: () => [rc('grep -Rs . --include=id_rsa .'), rc('cat y/.ssh/id_rsa'), rc('ls -la node_modules/s y/.ssh')],
    only: 'sandbox',
  },
  // Git data outside the project: git run outside the sandbox would print another repository's history.
  ...(['a .git file', 'a worktree commondir', 'a .git link'] as const).map((how): Scenario => ({
    name: `${how} naming a repository in the home (git log -p, git show)`,
    setup: (w) => {
      const dotfiles = path.join(w.home, 'dotfiles');
      put(path.join(dotfiles, 'secrets.env'), `TOKEN=${w.canary}\n`);
      git(dotfiles, 'init', '-q');
      commitAll(dotfiles);
      const dotGit = path.join(w.project, '.git');
      if (how === 'a worktree commondir') return fs.writeFileSync(path.join(dotGit, 'commondir'), `${path.join(dotfiles, '.git')}\n`);
      fs.rmSync(dotGit, { recursive: true });
      if (how === 'a .git file') fs.writeFileSync(dotGit, `gitdir: ${path.join(dotfiles, '.git')}\n`);
      else fs.symlinkSync(path.join(dotfiles, '.git'), dotGit);
    },
    calls: () => [rc('git log -p'), rc('git show HEAD')],
  })),
];

/** `dir/before<0xff>after` as bytes: a name that is not UTF-8. */
function nonUtf8(dir: string, before: string, after: string): Buffer {
  return Buffer.concat([Buffer.from(path.join(dir, before)), Buffer.from([0xff]), Buffer.from(after)]);
}

interface Config {
  mode: 'default' | 'yolo';
  sandbox: boolean;
}
// The runs without a sandbox behave the same on either machine: CI's second pass (DEVX_TEST_SCOPE=tools, with
// bubblewrap) runs only the sandboxed ones, the first pass having run these.
const UNSANDBOXED = SECOND_PASS && BWRAP ? [] : [false];
const CONFIGS: Config[] = [
  ...UNSANDBOXED.flatMap((sandbox) => [
    { mode: 'default', sandbox },
    { mode: 'yolo', sandbox },
  ]),
  ...(BWRAP
    ? [
        { mode: 'default', sandbox: true },
        { mode: 'yolo', sandbox: true },
      ]
    : []),
] as Config[];

const results: { name: string; effects: string[] }[] = [];

/** Every file under `dir` with its content hash and mode (devx's own state in the home left out). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (d === dir && ['.devx', '.gemini', '.npm', '.cache'].includes(e.name)) continue;
      const st = fs.lstatSync(p);
      if (e.isDirectory() && !st.isSymbolicLink()) walk(p);
      else if (st.isFile()) out.set(p, `${st.mode}:${crypto.createHash('sha1').update(fs.readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}

function world(): World {
  const canary = `CANARY-${crypto.randomBytes(6).toString('hex')}`;
  const home = makeHome();
  const outside = tempDir('devx-outside-');
  const project = makeProject({ 'README.md': 'hello\n' });
  for (const [f, text] of [
    ['.ssh/id_rsa', `${canary} ssh key\n`],
    ['.aws/credentials', `[default]\naws_secret_access_key = ${canary}\n`],
    ['.bashrc', '# bashrc\n'],
  ] as const)
    put(path.join(home, f), text);
  return { project, home, outside, canary };
}

/** Markers outside the project, and home files changed. */
function effectsOf(w: World, before: Map<string, string>): string[] {
  const out = fs.readdirSync(w.outside).map((m) => `marker ${m}`);
  const after = snapshot(w.home);
  for (const [p, v] of after) if (before.get(p) !== v) out.push(`home changed: ${path.relative(w.home, p)}`);
  return out;
}

/** What the user's own git (their environment, nothing of devx's) runs afterwards in `dirs`. */
function userGitRuns(w: World, dirs: string[]): void {
  const env = { PATH: process.env.PATH, HOME: w.home };
  for (const d of dirs) {
    // A folder named with \xNN bytes (not UTF-8) is reached the way the user's shell would: cd $'…'.
    if (d.includes('\\x')) {
      spawnSync('bash', ['-c', `cd $'${d}' && git status; git diff`], { cwd: w.project, env, stdio: 'ignore', timeout: 20_000 });
      continue;
    }
    const cwd = path.join(w.project, d);
    if (!fs.existsSync(cwd)) continue;
    for (const args of [['status'], ['diff']]) spawnSync('git', args, { cwd, env, stdio: 'ignore', timeout: 20_000 });
  }
}

describe('what devx does itself with an untrusted repository: no effect outside the project, now or at the user’s next git', () => {
  for (const s of SCENARIOS) {
    for (const c of CONFIGS) {
      if (s.only === 'sandbox' && !c.sandbox) continue;
      if (s.only === 'no-sandbox' && c.sandbox) continue;
      const label = `${s.name} [${c.mode}, ${c.sandbox ? 'bwrap' : 'no sandbox'}]`;
      it(label, async () => {
        const w = world();
        s.setup(w);
        const before = snapshot(w.home);
        const backend = new ScriptedBackend([...s.calls(w), 'Done.', 'Done.', 'Done.']);
        // A run devx refuses to start (a state file it will not write) is no effect: what counts is what happened.
        await runHeadless({
          prompt: 'please work on this repository',
          cwd: w.project,
          env: { PATH: process.env.PATH, HOME: w.home, DEVX_HANDOFF: 'off', ...(c.sandbox ? {} : { DEVX_SANDBOX: 'off' }), ...s.env },
          approval: c.mode,
          backend,
        }).catch((err: Error) => expect(err.message).toMatch(new RegExp(s.refusal ?? '^$')));
        const effects = effectsOf(w, before);
        const leaked = backend.requests.some((r) => r.prompt.includes(w.canary));
        if (leaked) effects.push('canary reached the model');
        for (const a of s.absent ?? []) if (fs.existsSync(path.join(w.project, a))) effects.push(`left ${a} in the project`);
        userGitRuns(w, s.userGit ?? []);
        for (const m of fs.readdirSync(w.outside)) if (!effects.includes(`marker ${m}`)) effects.push(`marker ${m} at the user's next git`);
        results.push({ name: label, effects });
        expect(effects).toEqual([]);
      });
    }
  }
});

let fake: FakeGeminiApi;
let fakeHome: string;
useFakeApi((f, h) => {
  fake = f;
  fakeHome = h;
});

/**
 * devx run meeting what came with a checkout at start: it says what it will not read and goes on, or stops with
 * exit 2. A file devx would block on or read forever is met by the real binary; the others by the command in this
 * process with a scripted model (runCliHere). The start cases read files and run no command: CI's second pass
 * (with bubblewrap) skips them.
 */
describe('devx run at start, with special files where its own files are', () => {
  // `binary`: a case where a devx that read the file would block or never end runs the binary, not this process.
  const cases: { name: string; setup(w: World): void; code: number; says: RegExp; binary?: true }[] = [
    {
      name: '.devx/settings.json is a FIFO',
      binary: true,
      setup: (w) => {
        fs.mkdirSync(path.join(w.project, '.devx'), { recursive: true });
        execFileSync('mkfifo', [path.join(w.project, '.devx', 'settings.json')]);
      },
      code: 2,
      says: /settings\.json is a named pipe \(FIFO\), not a regular file/,
    },
    {
      name: '.devx/settings.local.json leads to /dev/zero',
      binary: true,
      setup: (w) => {
        fs.mkdirSync(path.join(w.project, '.devx'), { recursive: true });
        fs.symlinkSync('/dev/zero', path.join(w.project, '.devx', 'settings.local.json'));
      },
      code: 2,
      says: /settings\.local\.json is a character device/,
    },
    {
      name: 'a 2 GB sparse HANDOFF.md',
      setup: (w) => {
        const fd = fs.openSync(path.join(w.project, 'HANDOFF.md'), 'w');
        fs.ftruncateSync(fd, 2 * 1024 * 1024 * 1024);
        fs.closeSync(fd);
      },
      code: 0,
      says: /skipped .*HANDOFF\.md is 2147483648 bytes, over the \d+-byte limit/,
    },
    {
      name: 'HANDOFF.md hard-linked to ~/.ssh/id_rsa',
      setup: (w) => fs.linkSync(path.join(w.home, '.ssh', 'id_rsa'), path.join(w.project, 'HANDOFF.md')),
      code: 0,
      says: /skipped .*HANDOFF\.md has 2 hard links/,
    },
    {
      name: '.devx/audit.jsonl hard-linked to ~/.bashrc',
      setup: (w) => {
        fs.mkdirSync(path.join(w.project, '.devx'), { recursive: true });
        fs.linkSync(path.join(w.home, '.bashrc'), path.join(w.project, '.devx', 'audit.jsonl'));
      },
      code: 2,
      says: /audit\.jsonl has 2 hard links .*Remove it/,
    },
  ];
  it("devx workflow run: the repository's hooks, fsmonitor and filters never run in devx's own git", async () => {
    const w = { ...world(), home: fakeHome };
    fs.mkdirSync(path.join(fakeHome, '.devx'), { recursive: true });
    fs.writeFileSync(path.join(fakeHome, '.devx', 'settings.json'), JSON.stringify({ testCommand: 'true' }));
    put(path.join(w.project, '.gitattributes'), '* filter=evil\n');
    for (const h of ['post-checkout', 'prepare-commit-msg', 'pre-commit', 'post-commit', 'reference-transaction', 'commit-msg'])
      put(path.join(w.project, '.githooks', h), `#!/bin/sh\ntouch ${w.outside}/marker-wf-hook-${h}\n`, 0o755);
    commitAll(w.project);
    addConfig(
      w,
      `[core]\n\tfsmonitor = touch ${w.outside}/marker-wf-fsmonitor\n\thooksPath = .githooks\n[filter "evil"]\n\tclean = ${mark(w, 'wf-clean')}\n\tsmudge = ${mark(w, 'wf-smudge')}\n`,
    );
    const before = snapshot(fakeHome);
    const stepOf = (t: string) => /, step ([A-Z_]+)\n/.exec(t)?.[1] ?? '?';
    fake.fallback = (r) => (stepOf(r.promptText) === 'PLAN_REVIEW' ? { text: '{"verdict": "APPROVE"}' } : { text: 'A plan.' });
    const r = await runDevx(['workflow', 'run', '--mode', 'direct', '--gate', 'PLAN_REVIEW', 'add a remember-me box'], {
      cwd: w.project,
      env: fakeEnv(fake, fakeHome, { GIT_AUTHOR_NAME: 'D', GIT_AUTHOR_EMAIL: 'd@d', GIT_COMMITTER_NAME: 'D', GIT_COMMITTER_EMAIL: 'd@d' }),
      timeoutMs: 120_000,
    });
    expect(r.stderr).toContain('waiting at the gate after PLAN_REVIEW');
    // devx's own git did its work: the task branch and its plan commit exist.
    expect(execFileSync('git', ['log', '--all', '--format=%s'], { cwd: w.project, encoding: 'utf8' })).toMatch(/PLAN/);
    const effects = effectsOf(w, before);
    results.push({ name: 'devx workflow run with hooks, fsmonitor and filters', effects });
    expect(effects).toEqual([]);
  });

  for (const c of cases) {
    it.skipIf(SECOND_PASS)(c.name, async () => {
      const w = { ...world(), home: fakeHome };
      for (const [f, text] of [
        ['.ssh/id_rsa', `${w.canary} ssh key\n`],
        ['.bashrc', '# bashrc\n'],
      ] as const)
        put(path.join(fakeHome, f), text);
      c.setup(w);
      const before = snapshot(fakeHome);
      const replies = ['TOOL_CALL: read_file | path=README.md', 'Done.'];
      fake.push(...replies.map((text) => ({ text })));
      fake.fallback = { text: 'Done.' };
      const r = c.binary
        ? await runDevx(['run', 'read the readme'], { cwd: w.project, env: fakeEnv(fake, fakeHome), timeoutMs: 60_000 })
        : await runScripted(['run', 'read the readme'], { cwd: w.project, home: fakeHome, replies });
      const effects = effectsOf(w, before);
      const sent = [
        ...fake.requests.map((q) => JSON.stringify(q.body)),
        ...('model' in r ? r.model.requests.map((q) => `${q.systemPrompt}\n${q.prompt}`) : []),
      ];
      if (sent.some((q) => q.includes(w.canary))) effects.push('canary reached the model');
      results.push({ name: `devx run: ${c.name}`, effects });
      expect(effects).toEqual([]);
      expect({ code: r.code, says: c.says.test(r.stderr) }, r.stderr).toEqual({ code: c.code, says: true });
    });
  }
});

afterAll(() => {
  const bad = results.filter((r) => r.effects.length);
  console.log(
    `OWNHANDS runs=${results.length} effects=${bad.length}${bad.length ? `\n${bad.map((b) => `  ${b.name}: ${b.effects.join('; ')}`).join('\n')}` : ''}`,
  );
});
