// Every provider devx can drive. Adding one is a folder under providers/ and one line here.
import type { Provider } from './types.js';
import { geminiProvider } from './gemini/index.js';
import { claudeProvider } from './claude/index.js';

const PROVIDERS: readonly Provider[] = [geminiProvider, claudeProvider];

export const DEFAULT_PROVIDER = 'gemini';

export function providerIds(): string[] {
  return PROVIDERS.map((p) => p.id);
}

export function findProvider(id: string): Provider | undefined {
  return PROVIDERS.find((p) => p.id === id);
}

export class UnknownProviderError extends Error {
  constructor(id: string) {
    super(`provider "${id}" is not available; devx has: ${providerIds().join(', ')}`);
    this.name = 'UnknownProviderError';
  }
}

export function getProvider(id: string): Provider {
  const p = findProvider(id);
  if (!p) throw new UnknownProviderError(id);
  return p;
}
