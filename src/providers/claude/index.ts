// The Claude Code provider: one headless `claude -p` process per model call.
import type { Provider } from '../types.js';
import { cliBinaries, cliOptions } from '../cliBackend.js';
import { ClaudeCliBackend, CLAUDE_INSTALL_HINT } from './claudeCli.js';

export const claudeProvider: Provider = {
  id: 'claude',
  defaultModel: 'sonnet',
  models: ['sonnet', 'opus', 'haiku'],
  defaultBin: 'claude',
  installHint: CLAUDE_INSTALL_HINT,
  binaries: cliBinaries,
  create: (s, ctx) => new ClaudeCliBackend(cliOptions(s, ctx)),
};
