// The Claude Code provider: one headless `claude -p` process per model call.
import type { Provider } from '../types.js';
import { ClaudeCliBackend, CLAUDE_INSTALL_HINT } from './claudeCli.js';

export const claudeProvider: Provider = {
  id: 'claude',
  defaultModel: 'sonnet',
  defaultBin: 'claude',
  installHint: CLAUDE_INSTALL_HINT,
  binaries: (s) => [s.bin, ...s.accounts.flatMap((a) => (a.command ? [a.command[0]] : []))],
  create: (s, ctx) =>
    new ClaudeCliBackend({
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
