// The Gemini CLI provider: one headless `gemini` process per model call.
import type { Provider } from '../types.js';
import { GeminiCliBackend, INSTALL_HINT } from './geminiCli.js';

export const geminiProvider: Provider = {
  id: 'gemini',
  defaultModel: 'gemini-2.5-pro',
  defaultBin: 'gemini',
  installHint: INSTALL_HINT,
  binaries: (s) => [s.bin, ...s.accounts.flatMap((a) => (a.command ? [a.command[0]] : []))],
  create: (s, ctx) =>
    new GeminiCliBackend({
      bin: s.bin,
      model: s.model,
      fallbackModel: s.fallbackModel,
      accounts: s.accounts,
      workDir: ctx.workDir,
      timeoutMs: s.timeoutMs,
      maxRetries: s.maxRetries,
      baseDelayMs: s.retryBaseMs,
      maxDelayMs: s.retryMaxMs,
      runner: ctx.runner,
      env: ctx.env,
    }),
};
