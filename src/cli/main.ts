// The main bundle's entry (dist/bundle/devx-main.cjs, run by the `devx` binary, src/cli/bin.ts).
// `--version` and `--help` answer before anything heavy is loaded (cold start).
import { devxHome, devxHomeUsable } from '../util/devxHome.js';
import { debug, prestartOnce } from '../util/prestart.js';
import { packageVersion } from '../util/packageRoot.js';
import { awaitLingering } from '../util/settleOnAnswer.js';
import { exitPromptly } from '../util/exitPromptly.js';
import { escapeControls } from '../util/terminalText.js';
import { dropRelativePath } from '../util/absolutePath.js';

const argv = process.argv.slice(2);

// Output into a closed pipe (`devx sessions | head -1`) ends quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

if (argv[0] === '--version' || argv[0] === '-v') {
  process.stdout.write(`devx ${packageVersion()}\n`);
} else {
  // Run without the binary (bin.ts drops them first, and then there are none left to drop here).
  const notice = dropRelativePath(process.env);
  if (notice) process.stderr.write(notice);
  // A one-shot run starts its model CLI now, while the rest of devx loads (see util/prestart), unless the binary did.
  const home = devxHome();
  if (devxHomeUsable(home)) prestartOnce(argv, process.cwd(), process.env, home);
  void main();
}

async function main(): Promise<void> {
  try {
    const { runCli } = await import('./runCli.js');
    const code = await runCli(argv);
    debug(() => `the command ended ${Math.round(performance.now())} ms after devx started`);
    process.on('exit', () => debug(() => `exit ${Math.round(performance.now())} ms after devx started`));
    // A model CLI that already answered may still be exiting: devx never leaves one behind.
    await awaitLingering();
    exitPromptly(code);
  } catch (err) {
    // Anything reaching here is a devx bug, not bad input: say so plainly.
    process.stderr.write(
      escapeControls(
        `devx: internal error: ${(err as Error).message}\n${process.env.DEVX_DEBUG ? `${(err as Error).stack}\n` : 'Set DEVX_DEBUG=1 for the stack trace.\n'}`,
      ),
    );
    process.exitCode = 1;
  }
}
