// The knowledge store contract every backend meets (test/unit/knowledgeContract.test.ts runs it on the
// embedded store, test/integration/knowledgeContract.test.ts on Qdrant when a server is reachable).
import { describe, expect, it } from 'vitest';
import { MAX_CONTENT_CHARS, type KnowledgeMeta, type KnowledgeStore } from '../../src/knowledge/types.js';
import type { Embedder } from '../../src/knowledge/embeddings.js';

export const meta = (over: Partial<KnowledgeMeta> = {}): KnowledgeMeta => ({
  agent: 'gemini',
  timestamp: '2026-01-02T00:00:00Z',
  project: 'p',
  type: 'note',
  tags: [],
  ...over,
});

/** A deterministic toy embedder (bag of hashed words); real enough to exercise the hybrid path. */
export const toyEmbedder: Embedder = {
  dims: 16,
  name: 'toy',
  async embed(texts) {
    return texts.map((t) => {
      const v = new Array(16).fill(0);
      for (const w of t.toLowerCase().match(/[a-z]+/g) ?? []) v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 16, 7)] += 1;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  },
};

/** The contract's cases, each on a fresh store from `b.make`. */
export function describeStoreContract(b: { name: string; make: () => KnowledgeStore | Promise<KnowledgeStore> }): void {
  describe(`knowledge store contract: ${b.name}`, () => {
    it('stores and finds by relevance, with metadata and scores', async () => {
      const s = await b.make();
      await s.add([
        { content: 'Sessions expire after thirty minutes of inactivity; configured in auth/session.ts', metadata: meta({ type: 'decision', tags: ['auth'] }) },
        { content: 'The deploy pipeline pushes images to the staging cluster with kubectl', metadata: meta({ agent: 'claude', tags: ['deploy', 'k8s'] }) },
        { content: 'Database connections are pooled; the pool size is twenty', metadata: meta({ tags: ['db'] }) },
      ]);
      const hits = await s.search('when do sessions expire', { limit: 5 });
      expect(hits[0].content).toContain('Sessions expire');
      expect(hits[0].metadata).toMatchObject({ agent: 'gemini', type: 'decision', tags: ['auth'], project: 'p' });
      expect(hits[0].score).toBeGreaterThan(0);
      expect(await s.count()).toBe(3);
    });

    it('filters by agent, project, type, tags and time, and respects limits', async () => {
      const s = await b.make();
      const docs = Array.from({ length: 30 }, (_, i) => ({
        content: `deploy note number ${i} about the cluster`,
        metadata: meta({
          agent: i % 2 ? 'claude' : 'gemini',
          project: i % 3 ? 'p' : 'q',
          type: i % 5 ? 'note' : 'decision',
          tags: i % 4 ? ['a'] : ['a', 'b'],
          timestamp: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        }),
      }));
      await s.add(docs);
      const all = (f: object) => s.search('deploy cluster', { limit: 50, filter: f });
      expect((await all({ agent: 'claude' })).every((h) => h.metadata.agent === 'claude')).toBe(true);
      expect(await all({ agent: 'claude' })).toHaveLength(15);
      expect(await all({ project: 'q' })).toHaveLength(10);
      expect(await all({ type: 'decision' })).toHaveLength(6);
      expect(await all({ tags: ['a', 'b'] })).toHaveLength(8);
      expect(await all({ since: '2026-01-21T00:00:00Z' })).toHaveLength(10);
      expect(await all({ agent: 'gemini', tags: ['b'], project: 'p' })).toHaveLength(5);
      expect(await s.search('deploy cluster', { limit: 3 })).toHaveLength(3);
      expect(await s.list({ limit: 4, filter: { agent: 'claude' } })).toHaveLength(4);
    });

    it('updates by id and deletes', async () => {
      const s = await b.make();
      const [id] = await s.add([{ id: 'fixed-id', content: 'first version of the fact', metadata: meta() }]);
      expect(id).toBe('fixed-id');
      await s.add([{ id: 'fixed-id', content: 'second version of the fact', metadata: meta({ tags: ['v2'] }) }]);
      expect(await s.count()).toBe(1);
      expect((await s.get('fixed-id'))?.content).toBe('second version of the fact');
      expect((await s.search('version fact', { limit: 5 }))[0].metadata.tags).toEqual(['v2']);
      expect(await s.delete(['fixed-id', 'missing'])).toBe(1);
      expect(await s.count()).toBe(0);
      expect(await s.get('fixed-id')).toBeNull();
    });

    it('identical content is stored once (content-derived ids)', async () => {
      const s = await b.make();
      const a = await s.add([{ content: 'same fact', metadata: meta() }]);
      const c = await s.add([{ content: 'same fact', metadata: meta() }]);
      expect(a).toEqual(c);
      expect(await s.count()).toBe(1);
    });

    it('refuses empty and oversized content with clear errors, and stores large content up to the limit', async () => {
      const s = await b.make();
      await expect(s.add([{ content: '   ', metadata: meta() }])).rejects.toThrow(/content is empty/);
      await expect(s.add([{ content: 'x'.repeat(MAX_CONTENT_CHARS + 1), metadata: meta() }])).rejects.toThrow(/over the 200000-character limit/);
      const big = `${'lorem ipsum dolor '.repeat(10_000)} needle-phrase`;
      await s.add([{ content: big, metadata: meta() }]);
      expect((await s.search('needle-phrase', { limit: 1 }))[0].content.length).toBe(big.length);
    });
  });
}
