// `devx trust [--revoke]`: lets this project's settings widen the default policy.
import { parseArgs } from 'node:util';
import { findProjectRoot, devxHome } from '../config/paths.js';
import { isTrusted, setTrusted } from '../config/trust.js';

export async function runTrustCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { revoke: { type: 'boolean' } }, strict: true });
  const root = findProjectRoot(process.cwd());
  const home = devxHome(process.env);
  setTrusted(home, root, !values.revoke);
  process.stdout.write(
    values.revoke
      ? `${root} is no longer trusted: its settings can only tighten the policy.\n`
      : `${root} is trusted: its settings' allow rules and approval mode now apply.${isTrusted(home, root) ? '' : ' (failed to save)'}\n`,
  );
  return 0;
}
