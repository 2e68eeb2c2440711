// The packed snapshot format must give Orama exactly the term frequencies it saved, before and after
// further writes, and old (v1) snapshots must still load.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode } from '@msgpack/msgpack';
import { create, insertMultiple, save } from '@orama/orama';
import { EmbeddedStore } from '../../src/knowledge/embeddedStore.js';
import { packFrequencies, unpackFrequencies } from '../../src/knowledge/packFrequencies.js';
import { STOP_WORDS } from '../../src/knowledge/stopWords.js';
import { tempDir } from '../helpers/env.js';

const meta = { agent: 'gemini', timestamp: '2026-01-01T00:00:00Z', project: 'x', type: 'doc', tags: [] as string[] };
const words = ['parser', 'policy', 'sandbox', 'token', 'budget', 'history', 'handoff', 'gemini', 'queue', 'persona', 'audit', 'retry'];
function corpus(n: number, seed: number): string[] {
  let x = seed;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, () => Array.from({ length: 5 + Math.floor(rnd() * 30) }, () => words[Math.floor(words.length * rnd() ** 2)]).join(' '));
}
const QUERIES = ['parser policy', 'retry', 'audit handoff queue', 'persona', 'gemini token budget', 'sandbox history'];
async function answers(store: EmbeddedStore) {
  const out = [];
  for (const q of QUERIES) out.push((await store.search(q, { limit: 8 })).map((h) => [h.id, h.score]));
  return out;
}

describe('packed term frequencies', () => {
  it('round-trips, including documents removed and added after unpacking', () => {
    const freq = { '1': { a: 0.5, b: 0.5 }, '2': { c: 1 }, '3': undefined, '4': {} };
    const packed = packFrequencies(freq);
    expect(packed.ids).toEqual(['1', '2', '4']);
    const back = unpackFrequencies(structuredClone(packed));
    expect(back['1']!.a).toBe(0.5);
    expect(back['2']!.c).toBe(1);
    expect(back['2']!.zz).toBeUndefined();
    expect(back['9']).toBeUndefined();
    back['2'] = undefined; // Orama's remove
    back['5'] = {}; // Orama's insert
    back['5']!.d = 0.25;
    const asMap = (p: ReturnType<typeof packFrequencies>) => {
      const tf = new Float64Array(new Uint8Array(p.tf).buffer);
      let at = 0;
      return Object.fromEntries(p.ids.map((id, i) => [id, Object.fromEntries((p.tokens[i] ? p.tokens[i].split('\0') : []).map((t) => [t, tf[at++]]))]));
    };
    expect(asMap(packFrequencies(back))).toEqual({ '1': { a: 0.5, b: 0.5 }, '4': {}, '5': { d: 0.25 } });
    expect(() => unpackFrequencies({ ...packed, counts: [2, 1, 5] })).toThrow(/malformed/);
  });

  it('a reloaded store answers with the same documents and the same scores, and keeps them through later writes', async () => {
    const dir = tempDir('devx-packed-');
    const a = new EmbeddedStore(dir, 'p');
    await a.add(corpus(400, 3).map((c, i) => ({ id: `d${i}`, content: c, metadata: meta })));
    const before = await answers(a);
    expect(before.every((hits) => hits.length > 0)).toBe(true);
    const b = new EmbeddedStore(dir, 'p');
    expect(await answers(b)).toEqual(before); // exact scores: no precision lost in the packing

    // Writes after a load: delete some documents (materialised and not), add others, reload again.
    await a.search('retry', { limit: 400 }); // materialises many documents in a's copy
    await b.delete(['d0', 'd1', 'd2', 'd250']);
    await b.add(corpus(50, 9).map((c, i) => ({ id: `n${i}`, content: c, metadata: meta })));
    const afterWrites = await answers(b);
    const c = new EmbeddedStore(dir, 'p');
    expect(await answers(c)).toEqual(afterWrites);
    expect(await c.count()).toBe(446);

    // The same documents indexed from scratch rank the same (scores equal up to float rounding).
    const fresh = new EmbeddedStore(tempDir('devx-packed-'), 'p');
    const all = [
      ...corpus(400, 3)
        .map((t, i) => ({ id: `d${i}`, content: t, metadata: meta }))
        .filter((d) => !['d0', 'd1', 'd2', 'd250'].includes(d.id)),
      ...corpus(50, 9).map((t, i) => ({ id: `n${i}`, content: t, metadata: meta })),
    ];
    await fresh.add(all);
    const scratch = await answers(fresh);
    afterWrites.forEach((hits, q) => hits.forEach(([, score], k) => expect(score as number).toBeCloseTo(scratch[q][k][1] as number, 6)));
  });

  it('still reads a v1 snapshot (Orama dump as is) and rewrites it as v2 on the next write', async () => {
    const dir = tempDir('devx-packed-');
    const db = create({
      schema: { content: 'string', agent: 'enum', project: 'enum', type: 'enum', tags: 'enum[]', ts: 'number' } as never,
      components: { tokenizer: { stemming: true, language: 'english', stopWords: STOP_WORDS } },
    });
    const docs = corpus(60, 5).map((content, i) => ({ id: `d${i}`, content, agent: 'gemini', project: 'x', type: 'doc', tags: [], ts: 0, meta }));
    await insertMultiple(db as never, docs as never);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'p.orama'), encode(save(db as never)));
    const store = new EmbeddedStore(dir, 'p');
    expect(await store.count()).toBe(60);
    const hits = await store.search('persona', { limit: 3 });
    expect(hits.length).toBeGreaterThan(0);
    await store.add([{ id: 'new', content: 'persona persona persona', metadata: meta }]);
    expect(fs.readFileSync(path.join(dir, 'p.orama')).includes(Buffer.from('frequencies'))).toBe(true);
    expect((await new EmbeddedStore(dir, 'p').search('persona', { limit: 1 }))[0].id).toBe('new');
  });
});
