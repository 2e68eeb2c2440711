// One contract suite for every knowledge store backend (test/helpers/storeContract.ts), here on the
// embedded store, with and without embeddings. Qdrant (when QDRANT_URL points at a reachable server) and the
// store shared by several processes are in test/integration/knowledgeContract.test.ts.
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/knowledge/embeddedStore.js';
import type { KnowledgeStore } from '../../src/knowledge/types.js';
import { describeStoreContract, toyEmbedder } from '../helpers/storeContract.js';
import { tempDir } from '../helpers/env.js';

const backends: { name: string; make: () => KnowledgeStore | Promise<KnowledgeStore> }[] = [
  { name: 'embedded', make: () => new EmbeddedStore(tempDir('devx-kb-'), 'test') },
  { name: 'embedded + embeddings', make: () => new EmbeddedStore(tempDir('devx-kb-'), 'test', toyEmbedder) },
];

describe('knowledge store backends', () => {
  it('reports which backends the contract ran against', () => {
    const ran = backends.map((b) => b.name);
    // eslint-disable-next-line no-console
    console.log(`knowledge contract backends: ${ran.join(', ')} (Qdrant: test/integration/knowledgeContract.test.ts)`);
    expect(ran).toContain('embedded');
  });
});

for (const b of backends) describeStoreContract(b);
