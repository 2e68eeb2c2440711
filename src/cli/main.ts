#!/usr/bin/env node
// Entry point. `--version` and `--help` answer before anything heavy is imported (cold start).
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

if (argv[0] === '--version' || argv[0] === '-v') {
  process.stdout.write(`devx ${version()}\n`);
} else {
  const { runCli } = await import('./runCli.js');
  process.exitCode = await runCli(argv);
}
