// The REPL's slash commands come from one table (src/cli/slashCommands.ts); the runtime, which cannot
// import cli, keeps the same names in BUILTIN_COMMANDS so that a custom command of such a name yields.
import { describe, expect, it } from 'vitest';
import { BUILTIN_COMMANDS } from '../../src/runtime/customCommands.js';
import { SLASH_COMMANDS, findSlash, replHelp, shellHelp, slashNames } from '../../src/cli/slashCommands.js';
import { COMMAND_TABLE } from '../../src/cli/commands/index.js';

describe('the slash command table', () => {
  it('names exactly the commands the runtime keeps as builtin', () => {
    expect([...slashNames()].sort()).toEqual([...BUILTIN_COMMANDS].sort());
    expect(new Set(slashNames()).size).toBe(slashNames().length);
  });

  it('writes /help from the table: every command, with its arguments and summary', () => {
    const help = replHelp();
    for (const c of SLASH_COMMANDS) {
      expect(help).toContain(`/${c.names[0]}${c.args ? ` ${c.args}` : ''}`);
      expect(help).toContain(c.summary);
      for (const f of c.forms ?? []) expect(help).toContain(f.usage);
    }
    expect(help).toMatch(/^Commands:\n  \/help      this help\n/);
    // Its last line names the CLI's commands, from the command table the REPL is given.
    const names = COMMAND_TABLE.map((e) => e.name);
    expect(shellHelp(names)).toBe(`From the shell: devx ${names.join(', ')} (devx help <command> for each)\n`);
    expect(shellHelp(undefined)).toBe('');
  });

  it('finds a command by name, alias or prefix, and leaves the rest to custom commands', () => {
    expect(findSlash('/quit')?.command.names[0]).toBe('exit');
    expect(findSlash('/agent:status')?.command.names[0]).toBe('agent');
    expect(findSlash('/undo 2 --force')?.args).toBe('2 --force');
    expect(findSlash('/review src')).toBeNull();
    expect(findSlash('/drop')).toBeNull(); // taken by the input while a turn runs, not here
    expect(findSlash('/help\nmore')).toBeNull();
    expect(findSlash('/edit first\nsecond')?.args).toBe('first\nsecond');
    expect(findSlash('hello /help')).toBeNull();
  });
});
