// The embedded knowledge store: Orama (pure JS full-text BM25 + vector + filters, no native build),
// persisted under ~/.devx/knowledge/ as a msgpack snapshot plus a journal of the changes since.
// Writers in several processes take a lock, catch up with what others wrote, apply their change and
// append it to the journal; once the journal outgrows JOURNAL_MAX_BYTES the writer folds it into a
// new snapshot (written to a temp file, then renamed). Readers replay only complete journal lines.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { create, insertMultiple, load, remove, save, search, count as oramaCount, getByID, type AnyOrama } from '@orama/orama';
import lockfile from 'proper-lockfile';
import {
  KnowledgeError,
  MAX_CONTENT_CHARS,
  type KnowledgeDoc,
  type KnowledgeFilter,
  type KnowledgeHit,
  type KnowledgeMeta,
  type KnowledgeStore,
} from './types.js';
import type { Embedder } from './embeddings.js';
import { STOP_WORDS } from './stopWords.js';
import './oramaPatch.js';
import { decodeSnapshot, encodeSnapshot } from './snapshot.js';
import { appendJournal, journalSize, readJournal, resetJournal, type JournalOp } from './journal.js';
import { assertOwnedPath, diskError, mkdirOwnedSync } from '../util/ownedFile.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';

/** Past this size the journal is folded into a new snapshot (a longer one would slow every load that replays it). */
export const JOURNAL_MAX_BYTES = 2 * 1024 * 1024;

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
    throw new KnowledgeError(
      `content is ${d.content.length} characters, over the ${MAX_CONTENT_CHARS}-character limit; split it into smaller pieces (devx memory import chunks Markdown files)`,
    );
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

/** Applies one change; the same code serves a write and a journal replay. Returns how many documents it touched. */
async function applyOp(db: AnyOrama, op: JournalOp<StoredDoc>, onProgress?: (done: number) => void): Promise<number> {
  if (op.op === 'del') {
    let n = 0;
    for (const id of op.ids) if (await getByID(db, id)) n += (await remove(db, id)) ? 1 : 0;
    return n;
  }
  for (let i = 0; i < op.docs.length; i += 1000) {
    const chunk = op.docs.slice(i, i + 1000);
    for (const r of chunk) if (await getByID(db, r.id)) await remove(db, r.id);
    await insertMultiple(db, chunk as never, 1000);
    onProgress?.(Math.min(op.docs.length, i + 1000));
  }
  return op.docs.length;
}

const toDoc = (d: StoredDoc): KnowledgeDoc => ({ id: d.id, content: d.content, metadata: d.meta });

export class EmbeddedStore implements KnowledgeStore {
  readonly backend = 'embedded' as const;
  readonly location: string;
  private db: AnyOrama | null = null;
  private stamp = '';
  private gen: string | null = null;
  /** Bytes of the journal already applied to `db`; 0 while no journal for this snapshot exists. */
  private journalAt = 0;
  private dims = 0;

  constructor(
    private readonly dir: string,
    private readonly collection: string,
    private readonly embedder: Embedder | null = null,
  ) {
    this.location = path.join(dir, `${collection}.orama`);
  }

  private get metaFile(): string {
    return path.join(this.dir, `${this.collection}.meta.json`);
  }

  private get journalFile(): string {
    return path.join(this.dir, `${this.collection}.journal`);
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

  private loadSnapshot(stamp: string): AnyOrama {
    let dims = this.embedder?.dims ?? 0;
    try {
      const meta = JSON.parse(fs.readFileSync(this.metaFile, 'utf8')) as { dims: number };
      if (meta.dims !== dims && fs.existsSync(this.location)) {
        if (meta.dims > 0 && dims === 0)
          dims = meta.dims; // stored with vectors; searching lexically still works
        else if (meta.dims !== dims)
          throw new KnowledgeError(
            `the "${this.collection}" collection was built with ${meta.dims}-dimension embeddings but the configured provider gives ${dims}; use another collection or re-import`,
          );
      }
    } catch (err) {
      if (err instanceof KnowledgeError) throw err;
    }
    this.dims = dims;
    const db = this.newDb(dims);
    let gen: string | null = null;
    if (stamp !== 'none') {
      try {
        const snap = decodeSnapshot(fs.readFileSync(this.location));
        load(db, snap.dump as never);
        gen = snap.gen;
      } catch (err) {
        throw new KnowledgeError(`the knowledge store at ${this.location} is unreadable (${(err as Error).message}); move it aside to start a new one`);
      }
    }
    this.db = db;
    this.stamp = stamp;
    this.gen = gen;
    this.journalAt = 0;
    return db;
  }

  /** Loads the snapshot when it changed since we last read it, then applies journal lines not yet applied. */
  private async ensureLoaded(): Promise<AnyOrama> {
    const stamp = this.fileStamp();
    let db = this.db && stamp === this.stamp ? this.db : this.loadSnapshot(stamp);
    if (!this.gen) return db;
    let r = readJournal<StoredDoc>(this.journalFile, this.journalAt, this.gen);
    if (r.replaced) {
      db = this.loadSnapshot(this.fileStamp());
      if (!this.gen) return db;
      r = readJournal<StoredDoc>(this.journalFile, 0, this.gen);
    }
    for (const op of r.ops) await applyOp(db, op);
    if (r.matches) this.journalAt = r.end;
    return db;
  }

  /** Folds everything into a new snapshot and starts an empty journal for it. Call under the lock. */
  private writeSnapshot(db: AnyOrama): void {
    const gen = crypto.randomBytes(8).toString('hex');
    const tmp = `${this.location}.${process.pid}.tmp`;
    assertOwnedPath(this.location);
    try {
      const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o644);
      try {
        fs.writeFileSync(fd, encodeSnapshot(save(db), gen));
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.location);
    } catch (err) {
      // A full disk leaves the old snapshot and journal, and no half-written temp file.
      fs.rmSync(tmp, { force: true });
      throw diskError(err, this.location);
    }
    // A crash here leaves the old journal, which names the old generation and is ignored from now on.
    this.journalAt = resetJournal(this.journalFile, gen);
    this.gen = gen;
    this.stamp = this.fileStamp();
  }

  private async withLock<T>(fn: () => Promise<T>): Promise<T> {
    mkdirOwnedSync(this.dir);
    const release = await lockfile.lock(this.dir, {
      lockfilePath: `${this.location}.lock`,
      realpath: false,
      stale: 30_000,
      retries: { retries: 200, minTimeout: 20, maxTimeout: 200 },
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  }

  private async mutate(op: JournalOp<StoredDoc>, onProgress?: (done: number) => void): Promise<number> {
    return this.withLock(async () => {
      const db = await this.ensureLoaded();
      const n = await applyOp(db, op, onProgress);
      const line = Buffer.byteLength(JSON.stringify(op)) + 1;
      if (!this.gen || journalSize(this.journalFile) + line > JOURNAL_MAX_BYTES) this.writeSnapshot(db);
      else {
        // No journal for this snapshot yet (or one left by an interrupted compaction): start one.
        if (this.journalAt === 0) this.journalAt = resetJournal(this.journalFile, this.gen);
        this.journalAt = appendJournal(this.journalFile, op);
      }
      writeFileAtomicSync(this.metaFile, JSON.stringify({ version: 2, dims: this.dims }));
      return n;
    });
  }

  /** Folds the journal into a new snapshot now (the bench's baseline for a write; `devx memory` never needs it). */
  async compact(): Promise<void> {
    await this.withLock(async () => this.writeSnapshot(await this.ensureLoaded()));
  }

  async add(docs: { id?: string; content: string; metadata: KnowledgeMeta }[], onProgress?: (done: number) => void): Promise<string[]> {
    docs.forEach(validateDoc);
    const vectors: number[][] = [];
    if (this.embedder)
      for (let i = 0; i < docs.length; i += 100)
        vectors.push(
          ...(await this.embedder.embed(
            docs.slice(i, i + 100).map((d) => d.content),
            'document',
          )),
        );
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
    // One write for the whole call, however many documents it adds.
    const seen = new Set<string>();
    const unique = rows.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
    await this.mutate({ op: 'add', docs: unique }, onProgress);
    return rows.map((r) => r.id);
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
    const r = await search(db, {
      term: '',
      where: whereOf(opts.filter),
      limit: opts.limit,
      offset: opts.offset ?? 0,
      sortBy: { property: 'ts', order: 'DESC' },
    } as never);
    return r.hits.map((h) => toDoc(h.document as unknown as StoredDoc));
  }

  async get(id: string): Promise<KnowledgeDoc | null> {
    const d = await getByID(await this.ensureLoaded(), id);
    return d ? toDoc(d as unknown as StoredDoc) : null;
  }

  async delete(ids: string[]): Promise<number> {
    return this.mutate({ op: 'del', ids });
  }

  async count(): Promise<number> {
    return oramaCount(await this.ensureLoaded());
  }
}
