// The dispatcher: finds the command in the table (by name or alias), answers --help for it and its subcommands,
// parses its flags, runs it, and turns usage and settings errors into exit code 2.
import { ConfigError } from '../config/settings.js';
import { DiskError, OwnedPathError } from '../util/ownedFile.js';
import { checkDevxHome } from '../util/devxHome.js';
import { parseFlags, processIo, renderCommandHelp, renderMainHelp, type CliIo } from './command.js';
import { EXIT, UsageError, normalizeResume } from './shared.js';
import { HELP_FOOTER } from './help.js';
import { escapeControls } from '../util/terminalText.js';

/** Runs one command line; `io` is where it runs and writes (the process's own unless given). Returns its exit code. */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  try {
    const { COMMAND_TABLE, COMMANDS, DEFAULT_COMMAND, findCommand, loadAllCommands } = await import('./commands/index.js');
    const cli = { table: COMMAND_TABLE, loadAll: loadAllCommands, io };
    argv = normalizeResume(argv);
    const named = findCommand(argv[0]);
    const command = await (named?.load ?? COMMANDS[DEFAULT_COMMAND])();
    const rest = named ? argv.slice(1) : argv;
    if (!named && (rest[0] === '--help' || rest[0] === '-h')) {
      io.stdout.write(renderMainHelp(await loadAllCommands(), command, HELP_FOOTER));
      return EXIT.ok;
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      const sub = rest.find((a) => !a.startsWith('-'));
      io.stdout.write(renderCommandHelp(command, sub));
      return EXIT.ok;
    }
    if (!named && rest.length && !rest[0].startsWith('-')) throw new UsageError(`unknown command "${rest[0]}". See devx --help.`);
    const flags = parseFlags(command.flags, rest);
    checkDevxHome(io.env);
    return await command.run(flags, cli);
  } catch (err) {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith?.('ERR_PARSE_ARGS')) {
      // Errors quote what they were given: an agent's name, a settings value, a file name.
      io.stderr.write(`devx: ${escapeControls((err as Error).message)}\n`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`devx: bad settings: ${escapeControls(err.message)}\n`);
      return EXIT.usage;
    }
    if (err instanceof OwnedPathError) {
      io.stderr.write(`devx: ${escapeControls(err.message)}\n`);
      return EXIT.usage;
    }
    if (err instanceof DiskError) {
      io.stderr.write(`devx: ${escapeControls(err.message)}; nothing was half-written (${err.remedy})\n`);
      return EXIT.failed;
    }
    throw err;
  }
}
