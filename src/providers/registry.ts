// Every provider devx can drive. Adding one is a folder under providers/ and one line here.
import type { Provider } from './types.js';
import { geminiProvider } from './gemini/index.js';
import { claudeProvider } from './claude/index.js';
import { codexProvider } from './codex/index.js';

const PROVIDERS: readonly Provider[] = [geminiProvider, claudeProvider, codexProvider];

export const DEFAULT_PROVIDER = 'gemini';

export function providerIds(): string[] {
  return PROVIDERS.map((p) => p.id);
}

/** The providers for messages: "gemini, claude, codex (or openai)". */
export function providerNames(): string {
  return PROVIDERS.map((p) => (p.aliases?.length ? `${p.id} (or ${p.aliases.join(', ')})` : p.id)).join(', ');
}

/** The provider `id` names, by its own id or an alias. */
export function findProvider(id: string): Provider | undefined {
  return PROVIDERS.find((p) => p.id === id) ?? PROVIDERS.find((p) => p.aliases?.includes(id));
}

export class UnknownProviderError extends Error {
  constructor(id: string) {
    super(`provider "${id}" is not available; devx has: ${providerNames()}`);
    this.name = 'UnknownProviderError';
  }
}

export function getProvider(id: string): Provider {
  const p = findProvider(id);
  if (!p) throw new UnknownProviderError(id);
  return p;
}
