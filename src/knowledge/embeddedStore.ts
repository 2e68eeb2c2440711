// The embedded knowledge store: Orama (pure JS full-text BM25 + vector + filters, no native build),
// persisted as a msgpack snapshot under ~/.devx/knowledge/. Writers in several processes take a lock,
// reload the snapshot if another process changed it, apply their change, and replace it atomically.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { create, insertMultiple, load, remove, save, search, count as oramaCount, getByID, type AnyOrama } from '@orama/orama';
import { encode, decode } from '@msgpack/msgpack';
import lockfile from 'proper-lockfile';
import { KnowledgeError, MAX_CONTENT_CHARS, type KnowledgeDoc, type KnowledgeFilter, type KnowledgeHit, type KnowledgeMeta, type KnowledgeStore } from './types.js';
import type { Embedder } from './embeddings.js';
import { STOP_WORDS } from './stopWords.js';
import './oramaPatch.js';
import { packFrequencies, unpackFrequencies, type PackedFrequencies } from './packFrequencies.js';

interface StoredDoc {
  id: string;
  content: string;
  agent: string;
  project: string;
  type: string;
  tags: string[];
  ts: number;
  meta: KnowledgeMeta;
  embedding?: number[];
}

export function docId(content: string, meta: KnowledgeMeta): string {
  return `k_${crypto.createHash('sha256').update(`${meta.agent}\n${meta.project}\n${meta.type}\n${content}`).digest('hex').slice(0, 20)}`;
}

export function validateDoc(d: { content: string; metadata: KnowledgeMeta }): void {
  if (typeof d.content !== 'string' || !d.content.trim()) throw new KnowledgeError('content is empty; nothing to store');
  if (d.content.length > MAX_CONTENT_CHARS) {
    throw new KnowledgeError(`content is ${d.content.length} characters, over the ${MAX_CONTENT_CHARS}-character limit; split it into smaller pieces (devx memory import chunks Markdown files)`);
  }
}

function whereOf(f: KnowledgeFilter | undefined): Record<string, unknown> | undefined {
  if (!f) return undefined;
  const w: Record<string, unknown> = {};
  if (f.agent) w.agent = { eq: f.agent };
  if (f.project) w.project = { eq: f.project };
  if (f.type) w.type = { eq: f.type };
  if (f.tags?.length) w.tags = { containsAll: f.tags };
  if (f.since || f.until) {
    const lo = f.since ? Date.parse(f.since) : -8.64e15;
    const hi = f.until ? Date.parse(f.until) : 8.64e15;
    if (Number.isNaN(lo) || Number.isNaN(hi)) throw new KnowledgeError('since/until must be ISO dates');
    w.ts = { between: [lo, hi] };
  }
  return Object.keys(w).length ? w : undefined;
}

interface OramaDump {
  index: { frequencies: Record<string, Record<string, Record<string, number> | undefined>> };
}
/** Snapshot v2: Orama's own dump, with its per-document term frequencies packed as columns. */
interface SnapshotV2 {
  devx: 2;
  orama: OramaDump;
  frequencies: Record<string, PackedFrequencies>;
}

function writeSnapshot(dump: unknown): Uint8Array {
  const d = dump as OramaDump;
  const frequencies = Object.fromEntries(Object.entries(d.index.frequencies).map(([prop, f]) => [prop, packFrequencies(f ?? {})]));
  const snap: SnapshotV2 = { devx: 2, orama: { ...d, index: { ...d.index, frequencies: {} } }, frequencies };
  return encode(snap);
}

/** Reads a v2 snapshot, or a v1 one (Orama's dump as is), into what Orama's `load` takes. */
function readSnapshot(bytes: Uint8Array): unknown {
  const raw = decode(bytes) as Partial<SnapshotV2> | null;
  if (!raw || typeof raw !== 'object' || raw.devx === undefined) return raw;
  if (raw.devx !== 2 || !raw.orama?.index || !raw.frequencies) throw new Error(`snapshot format ${String(raw.devx)} is not one this devx reads`);
  const frequencies = Object.fromEntries(Object.entries(raw.frequencies).map(([prop, f]) => [prop, unpackFrequencies(f)]));
  return { ...raw.orama, index: { ...raw.orama.index, frequencies } };
}

const toDoc = (d: StoredDoc): KnowledgeDoc => ({ id: d.id, content: d.content, metadata: d.meta });

export class EmbeddedStore implements KnowledgeStore {
  readonly backend = 'embedded' as const;
  readonly location: string;
  private db: AnyOrama | null = null;
  private stamp = '';
  private dims = 0;

  constructor(private readonly dir: string, private readonly collection: string, private readonly embedder: Embedder | null = null) {
    this.location = path.join(dir, `${collection}.orama`);
  }

  private get metaFile(): string {
    return path.join(this.dir, `${this.collection}.meta.json`);
  }

  private fileStamp(): string {
    try {
      const st = fs.statSync(this.location);
      return `${st.mtimeMs}:${st.size}`;
    } catch {
      return 'none';
    }
  }

  private newDb(dims: number): AnyOrama {
    const schema: Record<string, string> = { content: 'string', agent: 'enum', project: 'enum', type: 'enum', tags: 'enum[]', ts: 'number' };
    if (dims > 0) schema.embedding = `vector[${dims}]`;
    return create({ schema: schema as never, components: { tokenizer: { stemming: true, language: 'english', stopWords: STOP_WORDS } } }) as AnyOrama;
  }

  /** Loads the snapshot when it changed since we last read it. */
  private async ensureLoaded(): Promise<AnyOrama> {
    const stamp = this.fileStamp();
    if (this.db && stamp === this.stamp) return this.db;
    let dims = this.embedder?.dims ?? 0;
    try {
      const meta = JSON.parse(fs.readFileSync(this.metaFile, 'utf8')) as { dims: number };
      if (meta.dims !== dims && fs.existsSync(this.location)) {
        if (meta.dims > 0 && dims === 0) dims = meta.dims; // stored with vectors; searching lexically still works
        else if (meta.dims !== dims) throw new KnowledgeError(`the "${this.collection}" collection was built with ${meta.dims}-dimension embeddings but the configured provider gives ${dims}; use another collection or re-import`);
      }
    } catch (err) {
      if (err instanceof KnowledgeError) throw err;
    }
    this.dims = dims;
    const db = this.newDb(dims);
    if (stamp !== 'none') {
      try {
        load(db, readSnapshot(fs.readFileSync(this.location)) as never);
      } catch (err) {
        throw new KnowledgeError(`the knowledge store at ${this.location} is unreadable (${(err as Error).message}); move it aside to start a new one`);
      }
    }
    this.db = db;
    this.stamp = stamp;
    return db;
  }

  private async mutate<T>(fn: (db: AnyOrama) => Promise<T>): Promise<T> {
    fs.mkdirSync(this.dir, { recursive: true });
    const release = await lockfile.lock(this.dir, { lockfilePath: `${this.location}.lock`, realpath: false, stale: 30_000, retries: { retries: 200, minTimeout: 20, maxTimeout: 200 } });
    try {
      const db = await this.ensureLoaded();
      const out = await fn(db);
      const tmp = `${this.location}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, writeSnapshot(save(db)));
      fs.renameSync(tmp, this.location);
      fs.writeFileSync(this.metaFile, JSON.stringify({ version: 1, dims: this.dims }));
      this.stamp = this.fileStamp();
      return out;
    } finally {
      await release();
    }
  }

  async add(docs: { id?: string; content: string; metadata: KnowledgeMeta }[], onProgress?: (done: number) => void): Promise<string[]> {
    docs.forEach(validateDoc);
    const vectors: number[][] = [];
    if (this.embedder) for (let i = 0; i < docs.length; i += 100) vectors.push(...(await this.embedder.embed(docs.slice(i, i + 100).map((d) => d.content), 'document')));
    const rows: StoredDoc[] = docs.map((d, i) => ({
      id: d.id ?? docId(d.content, d.metadata),
      content: d.content,
      agent: d.metadata.agent,
      project: d.metadata.project,
      type: d.metadata.type,
      tags: d.metadata.tags,
      ts: Date.parse(d.metadata.timestamp) || Date.now(),
      meta: d.metadata,
      ...(this.embedder ? { embedding: vectors[i] } : {}),
    }));
    // One snapshot for the whole call, however many documents it adds.
    return this.mutate(async (db) => {
      const seen = new Set<string>();
      const unique = rows.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
      for (let i = 0; i < unique.length; i += 1000) {
        const chunk = unique.slice(i, i + 1000);
        for (const r of chunk) if (await getByID(db, r.id)) await remove(db, r.id);
        await insertMultiple(db, chunk as never, 1000);
        onProgress?.(Math.min(unique.length, i + 1000));
      }
      return rows.map((r) => r.id);
    });
  }

  async search(query: string, opts: { filter?: KnowledgeFilter; limit: number }): Promise<KnowledgeHit[]> {
    const db = await this.ensureLoaded();
    const where = whereOf(opts.filter);
    const params: Record<string, unknown> = { term: query, properties: ['content'], where, limit: opts.limit };
    if (this.embedder && this.dims > 0 && query.trim()) {
      const [v] = await this.embedder.embed([query], 'query');
      Object.assign(params, { mode: 'hybrid', vector: { value: v, property: 'embedding' }, similarity: 0.1 });
    }
    const r = await search(db, params as never);
    return r.hits.map((h) => ({ ...toDoc(h.document as unknown as StoredDoc), score: h.score }));
  }

  async list(opts: { filter?: KnowledgeFilter; limit: number; offset?: number }): Promise<KnowledgeDoc[]> {
    const db = await this.ensureLoaded();
    const r = await search(db, { term: '', where: whereOf(opts.filter), limit: opts.limit, offset: opts.offset ?? 0, sortBy: { property: 'ts', order: 'DESC' } } as never);
    return r.hits.map((h) => toDoc(h.document as unknown as StoredDoc));
  }

  async get(id: string): Promise<KnowledgeDoc | null> {
    const d = await getByID(await this.ensureLoaded(), id);
    return d ? toDoc(d as unknown as StoredDoc) : null;
  }

  async delete(ids: string[]): Promise<number> {
    return this.mutate(async (db) => {
      let n = 0;
      for (const id of ids) if (await getByID(db, id)) n += (await remove(db, id)) ? 1 : 0;
      return n;
    });
  }

  async count(): Promise<number> {
    return oramaCount(await this.ensureLoaded());
  }
}
