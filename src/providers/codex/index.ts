// The Codex provider: one `codex exec` process per model call, on OpenAI's Responses API. `openai` names it too.
import type { Provider } from '../types.js';
import { cliBinaries, cliOptions } from '../cliBackend.js';
import { CodexCliBackend, CODEX_INSTALL_HINT } from './codexCli.js';

export const codexProvider: Provider = {
  id: 'codex',
  aliases: ['openai'],
  // codex 0.169's own default model.
  defaultModel: 'gpt-6.1-sol',
  models: ['gpt-6.1-sol'],
  defaultBin: 'codex',
  installHint: CODEX_INSTALL_HINT,
  binaries: cliBinaries,
  create: (s, ctx) => new CodexCliBackend(cliOptions(s, ctx)),
};
