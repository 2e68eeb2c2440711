// One command table feeds `devx --help`, `devx help` and shell completion (src/cli/commands/index.ts).
// The scripts are run by bash and zsh themselves in test/integration/commandTable.test.ts.
import { describe, expect, it } from 'vitest';
import { COMMAND_TABLE, findCommand, loadAllCommands } from '../../src/cli/commands/index.js';
import { renderMainHelp } from '../../src/cli/command.js';
import { HELP_FOOTER } from '../../src/cli/help.js';
import { buildCompletionSpec } from '../../src/cli/buildCompletionSpec.js';
import { renderBashCompletion, renderZshCompletion } from '../../src/cli/renderBashCompletion.js';
import { renderFishCompletion } from '../../src/cli/renderFishCompletion.js';
import { providerIds } from '../../src/providers/registry.js';
import { APPROVAL_MODES } from '../../src/policy/decide.js';

const commands = await loadAllCommands();
const spec = buildCompletionSpec(commands, { providers: providerIds(), approvalModes: APPROVAL_MODES });
const bashScript = renderBashCompletion(spec);

describe('the command table', () => {
  it('each entry loads the command of its name, and every name and alias is found', () => {
    expect(commands.map((c) => c.name)).toEqual(COMMAND_TABLE.map((e) => e.name));
    for (const e of COMMAND_TABLE) for (const w of [e.name, ...(e.aliases ?? [])]) expect(findCommand(w)?.name).toBe(e.name);
    expect(findCommand('session')?.name).toBe('sessions');
    expect(findCommand('frobnicate')).toBeUndefined();
  });

  it('devx --help names every entry, with its summary and aliases', () => {
    const help = renderMainHelp(
      commands,
      commands.find((c) => c.name === 'repl')!,
      HELP_FOOTER,
    );
    for (const c of commands) {
      const line = help.split('\n').find((l) => l.startsWith(`  ${c.name} `));
      expect(line, c.name).toContain(c.summary);
      for (const a of c.aliases ?? []) expect(line).toContain(a);
    }
  });

  it('every completion script names every command, alias and subcommand', () => {
    for (const script of [bashScript, renderZshCompletion(spec), renderFishCompletion(spec)])
      for (const c of commands) {
        expect(script).toMatch(new RegExp(`\\b${c.name}\\b`));
        for (const a of c.aliases ?? []) expect(script).toMatch(new RegExp(`\\b${a}\\b`));
        for (const s of c.subcommands ?? []) expect(script).toMatch(new RegExp(`\\b${s.name}\\b`));
      }
  });
});
