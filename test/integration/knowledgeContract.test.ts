// The knowledge store contract (test/helpers/storeContract.ts) on Qdrant when QDRANT_URL points at a
// reachable server (the run says so when it does not), and the embedded store shared by several processes.
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/knowledge/embeddedStore.js';
import { QdrantStore } from '../../src/knowledge/qdrantStore.js';
import { describeStoreContract, meta } from '../helpers/storeContract.js';
import { REPO_ROOT, tempDir } from '../helpers/env.js';

async function qdrantReachable(): Promise<string | null> {
  const url = process.env.QDRANT_URL;
  if (!url) return 'QDRANT_URL is not set';
  try {
    const r = await fetch(`${url.replace(/\/$/, '')}/collections`, {
      signal: AbortSignal.timeout(2000),
      headers: process.env.QDRANT_API_KEY ? { 'api-key': process.env.QDRANT_API_KEY } : {},
    });
    return r.ok ? null : `Qdrant at ${url} answered ${r.status}`;
  } catch (err) {
    return `no Qdrant server is reachable at ${url} (${(err as Error).message})`;
  }
}

const qdrantProblem = await qdrantReachable();
if (qdrantProblem === null)
  describeStoreContract({ name: 'qdrant', make: () => new QdrantStore(process.env.QDRANT_URL!, process.env.QDRANT_API_KEY, `devx_test_${Date.now()}`) });
else console.warn(`knowledge contract: Qdrant skipped: ${qdrantProblem}`);

describe('embedded store persistence', () => {
  it('persists across instances and across processes, with concurrent writers', async () => {
    const dir = tempDir('devx-kb-');
    const a = new EmbeddedStore(dir, 'shared');
    await a.add([{ content: 'persisted fact about caching', metadata: meta() }]);
    const b = new EmbeddedStore(dir, 'shared');
    expect((await b.search('caching', { limit: 1 }))[0].content).toBe('persisted fact about caching');

    const script = `import { EmbeddedStore } from ${JSON.stringify(path.join(REPO_ROOT, 'dist/src/knowledge/embeddedStore.js'))};
const s = new EmbeddedStore(process.argv[2], 'shared');
for (let i = 0; i < 10; i++) await s.add([{ content: 'writer ' + process.argv[3] + ' entry ' + i, metadata: { agent: 'gemini', timestamp: new Date().toISOString(), project: 'p', type: 'note', tags: [] } }]);`;
    const file = path.join(tempDir(), 'w.mjs');
    (await import('node:fs')).writeFileSync(file, script);
    await Promise.all(
      [1, 2, 3].map(
        (n) =>
          new Promise<void>((res, rej) =>
            spawn(process.execPath, [file, dir, String(n)], { stdio: 'inherit' }).on('close', (c) =>
              c === 0 ? res() : rej(new Error(`writer ${n} exited ${c}`)),
            ),
          ),
      ),
    );
    const c = new EmbeddedStore(dir, 'shared');
    expect(await c.count()).toBe(31);
    // The first instance sees other processes' writes too.
    expect(await a.count()).toBe(31);
  }, 60_000);
});
