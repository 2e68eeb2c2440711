// Fails fast, before any work is claimed, when a provider's binary (or an account wrapper) is missing.
import { loadEffectiveSettings } from '../config/effectiveSettings.js';
import { getProvider } from '../providers/registry.js';
import { findExecutable } from '../util/findExecutable.js';
import type { ResolvedSettings } from '../config/settings.js';

export function missingProviderBinary(settings: ResolvedSettings, env: NodeJS.ProcessEnv, providers: string[] = [settings.provider]): string | null {
  for (const id of providers) {
    const p = getProvider(id);
    for (const bin of p.binaries(settings.providers[id])) {
      if (!findExecutable(bin, env)) return `devx: cannot find "${bin}". ${p.installHint}`;
    }
  }
  return null;
}

export function checkBinaries(opts: { cwd: string; env: NodeJS.ProcessEnv; provider?: string }): string | null {
  const { settings } = loadEffectiveSettings({ cwd: opts.cwd, env: opts.env, overrides: opts.provider ? { provider: opts.provider } : undefined });
  return missingProviderBinary(settings, opts.env);
}
