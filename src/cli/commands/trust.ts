// `devx trust [--revoke]`: lets this project's settings widen the default policy.
import { defineCommand, flagTable } from '../command.js';
import { findProjectRoot, devxHome } from '../../config/paths.js';
import { isTrusted, setTrusted } from '../../config/trust.js';
import { escapeControls } from '../../util/terminalText.js';

export const trustCommand = defineCommand({
  name: 'trust',
  summary: 'let this project run what it ships: its allow rules, approval mode, MCP servers, hooks, tools, skills, commands, queue and default agent',
  usage: ['trust [--revoke]'],
  flags: flagTable('    --revoke  take the trust back: the project can then only tighten the policy, and what it ships waits again'),
  async run({ values }) {
    const root = findProjectRoot(process.cwd());
    const home = devxHome(process.env);
    setTrusted(home, root, !values.revoke);
    const shown = escapeControls(root);
    process.stdout.write(
      values.revoke
        ? `${shown} is no longer trusted: its settings can only tighten the policy.\n`
        : `${shown} is trusted: its settings' allow rules, additional folders and approval mode now apply, and devx runs its MCP servers, hooks, custom tools, skills, custom commands, test command, queue and default agent.${isTrusted(home, root) ? '' : ' (failed to save)'}\n`,
    );
    return 0;
  },
});
