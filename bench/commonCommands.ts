// Forty commands a developer runs every day, judged by the policy with and without bubblewrap: the share
// that runs without a question. Without the sandbox only commands whose whole argument model is small run
// unasked (the argument model would be the only guard there); the rest ask.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { makePolicy } from '../test/helpers/policy.js';
import { makeHome, makeProject } from '../test/helpers/env.js';

export const COMMON_COMMANDS = [
  'ls -la',
  'ls src',
  'pwd',
  'cat README.md',
  'head -n 20 src/main.ts',
  'tail -n 50 README.md',
  'wc -l src/main.ts',
  'git status',
  'git log --oneline -20',
  'git diff',
  'git diff --stat',
  'git show HEAD',
  'git blame src/main.ts',
  'git branch -a',
  'git log -p -3 src/main.ts',
  'grep -rn TODO src',
  'rg TODO',
  'find . -name "*.ts"',
  'find src -type f',
  'npm test',
  'npm run build',
  'npm run lint',
  'npx tsc --noEmit',
  'npx vitest run',
  'npx eslint src',
  'npx prettier --check src',
  'sed -n 1,20p src/main.ts',
  'jq .a x.json',
  "awk -F, '{print $1}' data.csv",
  'sort data.csv',
  'uniq data.csv',
  'cut -d, -f1 data.csv',
  'diff README.md src/main.ts',
  'tree src',
  'du -sh src',
  'echo hello',
  'which node',
  'node --version',
  'file src/main.ts',
  'stat README.md',
];

export async function benchCommonCommands(): Promise<void> {
  const root = makeProject({
    'package.json': JSON.stringify({ name: 'x', scripts: { test: 'node -e 1', build: 'node -e 1', lint: 'node -e 1' } }),
    'src/main.ts': 'export {};\n',
    'README.md': '# x\n',
    'data.csv': 'a,b\n',
    'x.json': '{"a":1}\n',
  });
  for (const bin of ['tsc', 'vitest', 'eslint', 'prettier']) {
    fs.mkdirSync(path.join(root, 'node_modules', '.bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', '.bin', bin), '');
  }
  execFileSync('git', ['add', '-A'], { cwd: root });
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@x', 'commit', '-qm', 'x'], { cwd: root });
  const home = makeHome();
  for (const sandboxed of [true, false]) {
    const policy = await makePolicy(root, { home, sandboxed });
    const asked = COMMON_COMMANDS.filter((c) => policy.decideCommand(c).decision !== 'allow');
    const ran = COMMON_COMMANDS.length - asked.length;
    console.log(
      `common commands ${sandboxed ? 'with' : 'without'} bubblewrap: ${ran}/${COMMON_COMMANDS.length} (${((ran / COMMON_COMMANDS.length) * 100).toFixed(1)}%) run unasked${asked.length ? `; asking: ${asked.join(', ')}` : ''}`,
    );
  }
}
