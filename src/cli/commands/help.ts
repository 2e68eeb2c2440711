// `devx help [<command> [<subcommand>]]`: the same text as `devx --help` and `devx <command> --help`,
// written from the command table.
import { defineCommand, renderCommandHelp, renderMainHelp } from '../command.js';
import { HELP_FOOTER } from '../help.js';
import { EXIT, UsageError } from '../shared.js';

export const helpCommand = defineCommand({
  name: 'help',
  summary: 'every command, or one command and its subcommands (= devx <command> --help)',
  usage: ['help', 'help <command> [<subcommand>]'],
  flags: {},
  async run({ positionals }, cli) {
    const [word, sub, ...extra] = positionals;
    if (extra.length) throw new UsageError('usage: devx help [<command> [<subcommand>]]');
    const all = await cli!.loadAll();
    if (!word) {
      const repl = all.find((c) => c.name === 'repl')!;
      process.stdout.write(renderMainHelp(all, repl, HELP_FOOTER));
      return EXIT.ok;
    }
    const command = all.find((c) => c.name === word || c.aliases?.includes(word));
    if (!command) throw new UsageError(`unknown command "${word}". See devx help.`);
    if (sub && !command.subcommands?.some((s) => s.name === sub))
      throw new UsageError(`devx ${command.name} has no subcommand "${sub}". See devx help ${command.name}.`);
    process.stdout.write(renderCommandHelp(command, sub));
    return EXIT.ok;
  },
});
