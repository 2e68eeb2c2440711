// `devx completion bash|zsh|fish`: a shell completion script, written from the command table
// (commands, aliases, subcommands, flags, and the values of --provider, --approval-mode and --agent).
import { defineCommand } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { buildCompletionSpec, SHELLS } from '../buildCompletionSpec.js';
import { renderBashCompletion, renderZshCompletion } from '../renderBashCompletion.js';
import { renderFishCompletion } from '../renderFishCompletion.js';
import { providerIds } from '../../providers/registry.js';
import { APPROVAL_MODES } from '../../policy/decide.js';

const RENDER = { bash: renderBashCompletion, zsh: renderZshCompletion, fish: renderFishCompletion };

export const completionCommand = defineCommand({
  name: 'completion',
  summary: 'a shell completion script: source <(devx completion bash), zsh likewise, devx completion fish | source',
  usage: ['completion bash|zsh|fish'],
  flags: {},
  async run({ positionals }, cli) {
    const shell = positionals[0] as (typeof SHELLS)[number];
    if (positionals.length !== 1 || !SHELLS.includes(shell)) throw new UsageError(`usage: devx completion ${SHELLS.join('|')}`);
    const spec = buildCompletionSpec(await cli!.loadAll(), { providers: providerIds(), approvalModes: APPROVAL_MODES });
    process.stdout.write(RENDER[shell](spec));
    return EXIT.ok;
  },
});
