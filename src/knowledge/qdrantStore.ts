// The Qdrant backend (QDRANT_URL, QDRANT_API_KEY) through @qdrant/js-client-rest. Collections are
// created on demand with a sparse "text" vector using Qdrant's IDF modifier (BM25 with locally
// computed term weights), a dense vector when an embedder is configured, and payload indexes for
// the filter fields.
import crypto from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { KnowledgeError, type KnowledgeDoc, type KnowledgeFilter, type KnowledgeHit, type KnowledgeMeta, type KnowledgeStore } from './types.js';
import { documentVector, queryVector } from './sparse.js';
import { docId, validateDoc } from './embeddedStore.js';
import type { Embedder } from './embeddings.js';

/** Qdrant point ids must be UUIDs or integers: derive a stable UUID from devx's id. */
function pointId(id: string): string {
  const h = crypto.createHash('sha256').update(id).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function filterOf(f: KnowledgeFilter | undefined) {
  if (!f) return undefined;
  const must: unknown[] = [];
  for (const k of ['agent', 'project', 'type'] as const) if (f[k]) must.push({ key: k, match: { value: f[k] } });
  for (const t of f.tags ?? []) must.push({ key: 'tags', match: { value: t } });
  if (f.since || f.until) must.push({ key: 'ts', range: { gte: f.since ? Date.parse(f.since) : undefined, lte: f.until ? Date.parse(f.until) : undefined } });
  return must.length ? { must } : undefined;
}

type Payload = { id: string; content: string; meta: KnowledgeMeta };
const toDoc = (p: Payload): KnowledgeDoc => ({ id: p.id, content: p.content, metadata: p.meta });

export class QdrantStore implements KnowledgeStore {
  readonly backend = 'qdrant' as const;
  readonly location: string;
  private readonly client: QdrantClient;
  private ready: Promise<void> | null = null;

  constructor(
    url: string,
    apiKey: string | undefined,
    private readonly collection: string,
    private readonly embedder: Embedder | null = null,
  ) {
    this.client = new QdrantClient({ url, apiKey, checkCompatibility: false });
    this.location = `${url.replace(/\/$/, '')}/collections/${collection}`;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KnowledgeError) throw err;
      throw new KnowledgeError(`Qdrant ${what} failed at ${this.location}: ${(err as Error).message}`);
    }
  }

  private ensure(): Promise<void> {
    this.ready ??= this.call('setup', async () => {
      const { exists } = await this.client.collectionExists(this.collection);
      if (!exists) {
        await this.client.createCollection(this.collection, {
          ...(this.embedder ? { vectors: { dense: { size: this.embedder.dims, distance: 'Cosine' } } } : { vectors: {} }),
          sparse_vectors: { text: { modifier: 'idf' } },
        } as never);
        for (const [field, schema] of [
          ['agent', 'keyword'],
          ['project', 'keyword'],
          ['type', 'keyword'],
          ['tags', 'keyword'],
          ['ts', 'integer'],
        ] as const) {
          await this.client.createPayloadIndex(this.collection, { field_name: field, field_schema: schema, wait: true });
        }
      }
    });
    return this.ready;
  }

  async add(docs: { id?: string; content: string; metadata: KnowledgeMeta }[]): Promise<string[]> {
    docs.forEach(validateDoc);
    await this.ensure();
    const dense = this.embedder
      ? await this.embedder.embed(
          docs.map((d) => d.content),
          'document',
        )
      : null;
    const ids = docs.map((d) => d.id ?? docId(d.content, d.metadata));
    await this.call('upsert', () =>
      this.client.upsert(this.collection, {
        wait: true,
        points: docs.map((d, i) => ({
          id: pointId(ids[i]),
          vector: { text: documentVector(d.content), ...(dense ? { dense: dense[i] } : {}) },
          payload: {
            id: ids[i],
            content: d.content,
            meta: d.metadata,
            agent: d.metadata.agent,
            project: d.metadata.project,
            type: d.metadata.type,
            tags: d.metadata.tags,
            ts: Date.parse(d.metadata.timestamp) || Date.now(),
          },
        })),
      } as never),
    );
    return ids;
  }

  async search(query: string, opts: { filter?: KnowledgeFilter; limit: number }): Promise<KnowledgeHit[]> {
    await this.ensure();
    const filter = filterOf(opts.filter);
    const sparse = queryVector(query);
    const dense = this.embedder && query.trim() ? (await this.embedder.embed([query], 'query'))[0] : null;
    const r = await this.call('query', () =>
      this.client.query(
        this.collection,
        (dense
          ? {
              prefetch: [
                { query: sparse, using: 'text', limit: opts.limit * 4, filter },
                { query: dense, using: 'dense', limit: opts.limit * 4, filter },
              ],
              query: { fusion: 'rrf' },
              limit: opts.limit,
              with_payload: true,
            }
          : { query: sparse, using: 'text', filter, limit: opts.limit, with_payload: true }) as never,
      ),
    );
    return r.points.map((p) => ({ ...toDoc(p.payload as unknown as Payload), score: p.score }));
  }

  async list(opts: { filter?: KnowledgeFilter; limit: number; offset?: number }): Promise<KnowledgeDoc[]> {
    await this.ensure();
    const r = await this.call('scroll', () =>
      this.client.scroll(this.collection, {
        filter: filterOf(opts.filter),
        limit: (opts.offset ?? 0) + opts.limit,
        with_payload: true,
        order_by: { key: 'ts', direction: 'desc' },
      } as never),
    );
    return r.points.slice(opts.offset ?? 0).map((p) => toDoc(p.payload as unknown as Payload));
  }

  async get(id: string): Promise<KnowledgeDoc | null> {
    await this.ensure();
    const r = await this.call('retrieve', () => this.client.retrieve(this.collection, { ids: [pointId(id)], with_payload: true }));
    return r[0] ? toDoc(r[0].payload as unknown as Payload) : null;
  }

  async delete(ids: string[]): Promise<number> {
    await this.ensure();
    const existing = await this.call('retrieve', () => this.client.retrieve(this.collection, { ids: ids.map(pointId), with_payload: false }));
    if (existing.length) await this.call('delete', () => this.client.delete(this.collection, { wait: true, points: existing.map((p) => p.id) }));
    return existing.length;
  }

  async count(): Promise<number> {
    await this.ensure();
    return (await this.call('count', () => this.client.count(this.collection, { exact: true }))).count;
  }
}
