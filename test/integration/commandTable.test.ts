// The completion scripts of the command table (test/unit/commandTable.test.ts), run by the shells:
// `bash -n`, then sourced and its function called with COMP_WORDS; the zsh script under zsh when installed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAllCommands } from '../../src/cli/commands/index.js';
import { buildCompletionSpec } from '../../src/cli/buildCompletionSpec.js';
import { renderBashCompletion, renderZshCompletion } from '../../src/cli/renderBashCompletion.js';
import { providerIds } from '../../src/providers/registry.js';
import { APPROVAL_MODES } from '../../src/policy/decide.js';
import { runProcess } from '../../src/util/processRunner.js';

const commands = await loadAllCommands();
const spec = buildCompletionSpec(commands, { providers: providerIds(), approvalModes: APPROVAL_MODES });
const bashScript = renderBashCompletion(spec);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devx-completion-'));
const scriptFile = path.join(dir, 'devx.bash');
fs.writeFileSync(scriptFile, bashScript);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function bash(script: string, cwd = dir): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runProcess('bash', ['--norc', '--noprofile', '-c', script], { cwd, env: { PATH: process.env.PATH, HOME: dir } });
  return { code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

/** What the completion function offers for a command line whose last word is being completed. */
async function complete(words: string[], cwd = dir): Promise<string[]> {
  const q = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;
  const r = await bash(
    `source ${q(scriptFile)}; COMP_WORDS=(${words.map(q).join(' ')}); COMP_CWORD=${words.length - 1}; _devx; printf '%s\\n' "\${COMPREPLY[@]}"`,
    cwd,
  );
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('bash completion, run by bash', () => {
  it('bash -n accepts the script', async () => {
    const r = await runProcess('bash', ['-n', scriptFile], { cwd: dir, env: { PATH: process.env.PATH } });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
  });

  it('completes the commands, then their subcommands and flags', async () => {
    expect(await complete(['devx', ''])).toEqual(commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]).sort());
    expect(await complete(['devx', 'se'])).toEqual(['session', 'sessions']);
    const agent = commands.find((c) => c.name === 'agent')!;
    expect(await complete(['devx', 'agent', ''])).toEqual(agent.subcommands!.map((s) => s.name).sort());
    expect(await complete(['devx', 'workflow', 'st'])).toEqual(['status']);
    // After the subcommand, no more subcommands; flags go on.
    expect(await complete(['devx', 'workflow', 'status', ''])).toEqual([]);
    expect(await complete(['devx', 'agent', 'run', '--dr'])).toEqual(['--dry-run']);
    expect(await complete(['devx', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
    expect(await complete(['devx', 'help', 'wo'])).toEqual(['workflow']);
  });

  it('completes the values of --provider, --approval-mode and --agent, also before the command word', async () => {
    expect(await complete(['devx', 'run', '--provider', ''])).toEqual([...providerIds()].sort());
    expect(await complete(['devx', '--approval-mode', 'a'])).toEqual(['auto-edit']);
    // A flag's value is not taken for the command word.
    expect(await complete(['devx', '--model', 'x', 'ag'])).toEqual(['agent']);
    expect(await complete(['devx', '-m', 'x', 'agent', 'li'])).toEqual(['list']);
    const project = fs.mkdtempSync(path.join(dir, 'project-'));
    fs.mkdirSync(path.join(project, '.devx', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(project, '.devx', 'agents', 'reviewer.md'), '---\nname: reviewer\n---\n');
    expect(await complete(['devx', '--agent', 'rev'], project)).toEqual(['reviewer']);
    expect(await complete(['devx', 'session', '--'])).toEqual(['--help', '--json', '--remove-set-aside']);
  });
});

describe('zsh completion (bashcompinit), when zsh is installed', () => {
  const zsh = (process.env.PATH ?? '').split(path.delimiter).some((d) => fs.existsSync(path.join(d, 'zsh')));
  it.skipIf(!zsh)('the same function runs under zsh, arrays counted from 0 as in bash', async () => {
    const file = path.join(dir, 'devx.zsh');
    fs.writeFileSync(file, renderZshCompletion(spec));
    // bashcompinit's compgen leaves the prefix match to zsh's compadd: the words are all the candidates.
    const r = await runProcess(
      'zsh',
      [
        '-f',
        '-c',
        `source ${file}; COMP_WORDS=(devx -m x workflow st); COMP_CWORD=4; _devx; print -- $COMPREPLY; COMP_WORDS=(devx --provider ''); COMP_CWORD=2; _devx; print -- $COMPREPLY`,
      ],
      { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } },
    );
    const workflow = commands.find((c) => c.name === 'workflow')!;
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([0, '', `${workflow.subcommands!.map((s) => s.name).join(' ')}\n${providerIds().join(' ')}\n`]);
  });
});
