// The Gemini CLI provider: one headless `gemini` process per model call.
import type { Provider } from '../types.js';
import { cliBinaries, cliOptions } from '../cliBackend.js';
import { GeminiCliBackend, INSTALL_HINT } from './geminiCli.js';

export const geminiProvider: Provider = {
  id: 'gemini',
  defaultModel: 'gemini-2.5-pro',
  defaultBin: 'gemini',
  installHint: INSTALL_HINT,
  binaries: cliBinaries,
  create: (s, ctx) => new GeminiCliBackend(cliOptions(s, ctx)),
};
