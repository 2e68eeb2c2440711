// The Gemini CLI provider: one headless `gemini` process per model call.
import type { Provider } from '../types.js';
import { cliBinaries, cliOptions } from '../cliBackend.js';
import { GeminiCliBackend, INSTALL_HINT } from './geminiCli.js';
import { WarmGeminiBackend } from './warmGemini.js';

export const geminiProvider: Provider = {
  id: 'gemini',
  defaultModel: 'gemini-2.5-pro',
  defaultBin: 'gemini',
  installHint: INSTALL_HINT,
  binaries: cliBinaries,
  create: (s, ctx) => (s.mode === 'warm' ? new WarmGeminiBackend({ ...cliOptions(s, ctx), observer: ctx.observer }) : new GeminiCliBackend(cliOptions(s, ctx))),
};
