// `devx trust [--revoke]`: lets this project's settings widen the default policy.
import { defineCommand, flagTable } from '../command.js';
import { findProjectRoot, devxHome } from '../../config/paths.js';
import { isTrusted, setTrusted } from '../../config/trust.js';

export const trustCommand = defineCommand({
  name: 'trust',
  summary: "let this project's settings widen the policy (allow rules, approval mode)",
  usage: ['trust [--revoke]'],
  flags: flagTable('    --revoke  take the trust back: project settings can then only tighten'),
  async run({ values }) {
    const root = findProjectRoot(process.cwd());
    const home = devxHome(process.env);
    setTrusted(home, root, !values.revoke);
    process.stdout.write(
      values.revoke
        ? `${root} is no longer trusted: its settings can only tighten the policy.\n`
        : `${root} is trusted: its settings' allow rules and approval mode now apply.${isTrusted(home, root) ? '' : ' (failed to save)'}\n`,
    );
    return 0;
  },
});
