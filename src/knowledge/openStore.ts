// Picks the backend: Qdrant when QDRANT_URL is set, else the embedded store under ~/.devx/knowledge/.
// The engine is loaded on first use, so sessions that never touch the store pay nothing for it.
import path from 'node:path';
import type { Embedder, EmbeddingsSetting } from './embeddings.js';
import type { KnowledgeDoc, KnowledgeFilter, KnowledgeHit, KnowledgeMeta, KnowledgeStore } from './types.js';
import { runProcess } from '../util/processRunner.js';

export interface StoreOptions {
  env: NodeJS.ProcessEnv;
  devxHome: string;
  collection?: string;
  embeddings?: EmbeddingsSetting;
  cwd: string;
}

export async function makeEmbedder(o: StoreOptions): Promise<Embedder | null> {
  const e = o.embeddings ?? 'none';
  if (e === 'none') return null;
  const { GeminiEmbedder, CommandEmbedder } = await import('./embeddings.js');
  if (e === 'gemini') return o.env.GEMINI_API_KEY ? new GeminiEmbedder(o.env.GEMINI_API_KEY, o.env.GOOGLE_GEMINI_BASE_URL ?? undefined) : null;
  return new CommandEmbedder(e.command, e.dims, runProcess, o.cwd);
}

class LazyStore implements KnowledgeStore {
  private real: Promise<KnowledgeStore> | null = null;

  constructor(
    readonly backend: 'embedded' | 'qdrant',
    readonly location: string,
    private readonly factory: () => Promise<KnowledgeStore>,
  ) {}

  private load(): Promise<KnowledgeStore> {
    return (this.real ??= this.factory());
  }

  async add(docs: { id?: string; content: string; metadata: KnowledgeMeta }[], onProgress?: (n: number) => void): Promise<string[]> {
    return (await this.load()).add(docs, onProgress);
  }
  async search(q: string, o: { filter?: KnowledgeFilter; limit: number }): Promise<KnowledgeHit[]> {
    return (await this.load()).search(q, o);
  }
  async list(o: { filter?: KnowledgeFilter; limit: number; offset?: number }): Promise<KnowledgeDoc[]> {
    return (await this.load()).list(o);
  }
  async get(id: string): Promise<KnowledgeDoc | null> {
    return (await this.load()).get(id);
  }
  async delete(ids: string[]): Promise<number> {
    return (await this.load()).delete(ids);
  }
  async count(): Promise<number> {
    return (await this.load()).count();
  }
}

export function openStore(o: StoreOptions): KnowledgeStore {
  const collection = o.collection ?? o.env.DEVX_KNOWLEDGE_COLLECTION ?? 'devx';
  if (o.env.QDRANT_URL) {
    const url = o.env.QDRANT_URL;
    return new LazyStore('qdrant', `${url.replace(/\/$/, '')}/collections/${collection}`, async () => {
      const { QdrantStore } = await import('./qdrantStore.js');
      return new QdrantStore(url, o.env.QDRANT_API_KEY, collection, await makeEmbedder(o));
    });
  }
  const dir = path.join(o.devxHome, 'knowledge');
  return new LazyStore('embedded', path.join(dir, `${collection}.orama`), async () => {
    const { EmbeddedStore } = await import('./embeddedStore.js');
    return new EmbeddedStore(dir, collection, await makeEmbedder(o));
  });
}
