// The Gemini embedding provider against the fake API on loopback, and the command provider.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGeminiApi } from '../helpers/fakeGeminiApi.js';
import { CommandEmbedder, GeminiEmbedder } from '../../src/knowledge/embeddings.js';
import { EmbeddedStore } from '../../src/knowledge/embeddedStore.js';
import { runProcess } from '../../src/util/processRunner.js';
import { tempDir } from '../helpers/env.js';

let fake: FakeGeminiApi;
beforeEach(async () => {
  fake = await new FakeGeminiApi().start();
});
afterEach(async () => {
  await fake.close();
});

const meta = { agent: 'gemini', timestamp: '2026-01-01T00:00:00Z', project: 'p', type: 'note', tags: [] };

describe('embedding providers', () => {
  it('the Gemini embedder calls batchEmbedContents with task types, and the store searches in hybrid mode', async () => {
    const e = new GeminiEmbedder('test-key', fake.url, 'gemini-embedding-001', 32);
    const store = new EmbeddedStore(tempDir(), 'dense', e);
    await store.add([
      { content: 'rotate the signing keys daily', metadata: meta },
      { content: 'the cache holds product pages', metadata: meta },
    ]);
    const hits = await store.search('signing keys rotation', { limit: 1 });
    expect(hits[0].content).toBe('rotate the signing keys daily');
    const reqs = fake.requests.filter((r) => r.kind === 'embed');
    expect(reqs).toHaveLength(2);
    expect(reqs[0].apiKey).toBe('test-key');
    expect(reqs[0].body.requests.map((r: any) => r.taskType)).toEqual(['RETRIEVAL_DOCUMENT', 'RETRIEVAL_DOCUMENT']);
    expect(reqs[1].body.requests[0].taskType).toBe('RETRIEVAL_QUERY');
    expect(reqs[0].path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('reports an unreachable or failing embedding API clearly', async () => {
    fake.fallback = { status: 500 };
    await expect(new GeminiEmbedder('k', 'http://127.0.0.1:1').embed(['x'], 'query')).rejects.toThrow(/unreachable/);
  });

  it('a command embedder reads texts on stdin and must print vectors of the declared size', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'embed.mjs');
    fs.writeFileSync(
      script,
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const {texts}=JSON.parse(s);console.log(JSON.stringify(texts.map(t=>[t.length,1,0])))})",
    );
    const ok = new CommandEmbedder([process.execPath, script], 3, runProcess, dir);
    expect(await ok.embed(['ab', 'abc'], 'document')).toEqual([
      [2, 1, 0],
      [3, 1, 0],
    ]);
    const wrong = new CommandEmbedder([process.execPath, script], 4, runProcess, dir);
    await expect(wrong.embed(['ab'], 'document')).rejects.toThrow(/must print 1 vectors of 4 numbers/);
  });
});
