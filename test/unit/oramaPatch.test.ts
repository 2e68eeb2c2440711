// The linear replacement for Orama's quadratic word collection must give exactly Orama's answers.
import { describe, expect, it } from 'vitest';
import { radix } from '@orama/orama/trees';
import { linearFindAllWords, oramaPatched, originalFindAllWords } from '../../src/knowledge/oramaPatch.js';
import { EmbeddedStore } from '../../src/knowledge/embeddedStore.js';
import { tempDir } from '../helpers/env.js';

function tree(): InstanceType<typeof radix.RadixTree> {
  let x = 7;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const words = ['test', 'tests', 'tester', 'testing', 'team', 'tea', 'ten', 'a', 'ab', 'abc', 'b', 'zebra', 'zeb'];
  const t = new radix.RadixTree();
  for (let doc = 0; doc < 400; doc++) for (let k = 0; k < 6; k++) t.insert(words[Math.floor(words.length * rnd() ** 2)], doc);
  return t;
}

describe('Orama patch', () => {
  it('is in force for the installed Orama (if this fails, check whether Orama fixed findAllWords upstream)', () => {
    expect(oramaPatched).toBe(true);
    expect(radix.RadixNode.prototype.findAllWords).toBe(linearFindAllWords);
  });

  it('collects the same words, documents and order as the original, exact and prefix', () => {
    const t = tree();
    for (const term of ['t', 'te', 'tes', 'test', 'tea', 'a', 'ab', 'z', 'zeb', 'q', '']) {
      for (const exact of [false, true]) {
        const node = (function walk(n: any, rest: string): any {
          if (!rest) return n;
          const c = n.c.get(rest[0]);
          if (!c) return null;
          return c.s.startsWith(rest) ? c : rest.startsWith(c.s) ? walk(c, rest.slice(c.s.length)) : null;
        })(t, term);
        if (!node) continue;
        const mine = Object.entries(linearFindAllWords.call(node, {}, term, exact, 0));
        const theirs = Object.entries(originalFindAllWords.call(node, {}, term, exact, 0));
        expect(mine).toEqual(theirs);
        if (!exact && term === 'te') expect(mine.map(([w]) => w).sort()).toEqual(['tea', 'team', 'ten', 'test', 'tester', 'testing', 'tests']);
      }
    }
    // Through the tree's own find(), which is what search calls.
    expect(Object.keys(t.find({ term: 'tes', exact: false })).sort()).toEqual(['test', 'tester', 'testing', 'tests']);
  });

  it('a word held by every document is still found and ranked by the store', async () => {
    const store = new EmbeddedStore(tempDir('devx-orama-'), 'p');
    const meta = { agent: 'gemini', timestamp: '2026-01-01T00:00:00Z', project: 'x', type: 'doc', tags: [] };
    await store.add(
      Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, content: `common filler ${i % 10 === 0 ? 'rare' : 'plain'} words`, metadata: meta })),
    );
    const hits = await store.search('common rare', { limit: 5 });
    expect(hits).toHaveLength(5);
    expect(hits.every((h) => Number(h.id.slice(1)) % 10 === 0)).toBe(true);
  });
});
