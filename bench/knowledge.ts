// Knowledge store benchmarks: recall@5 on the labelled fixture, query latency at 10k and 100k
// chunks, import throughput. Each figure is printed with a baseline measured in the same run.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddedStore } from '../src/knowledge/embeddedStore.js';
import { radix } from '@orama/orama/trees';
import { decode, encode } from '@msgpack/msgpack';
import { linearFindAllWords, originalFindAllWords } from '../src/knowledge/oramaPatch.js';
import { tempDir, REPO_ROOT } from '../test/helpers/env.js';
import type { KnowledgeMeta } from '../src/knowledge/types.js';

const meta = (): KnowledgeMeta => ({ agent: 'gemini', timestamp: '2026-01-01T00:00:00Z', project: 'bench', type: 'doc', tags: [] });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** Naive baseline: rank by how many query words appear in the document (no stemming, no IDF). */
function overlapRank(docs: { id: string; content: string }[], q: string): string[] {
  const words = q.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return docs
    .map((d) => ({ id: d.id, s: words.filter((w) => d.content.toLowerCase().includes(w)).length }))
    .sort((a, b) => b.s - a.s)
    .map((x) => x.id);
}

/** Distractors: long documents made of words drawn from the fixture itself (deterministic). */
function distractors(docs: { content: string }[], n: number): { id: string; content: string }[] {
  const words = docs.flatMap((d) => d.content.toLowerCase().match(/[a-z]+/g) ?? []);
  let x = 42;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return Array.from({ length: n }, (_, i) => ({
    id: `noise${i}`,
    content: Array.from({ length: 80 }, () => words[Math.floor(rnd() * words.length)]).join(' '),
  }));
}

export async function benchRecall(): Promise<void> {
  const fx = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/knowledge-recall.json'), 'utf8')) as {
    documents: { id: string; content: string }[];
    questions: { question: string; answer: string }[];
  };
  for (const noise of [0, 1000]) {
    const docs = [...fx.documents, ...distractors(fx.documents, noise)];
    const store = new EmbeddedStore(tempDir('devx-bench-kb-'), 'recall');
    await store.add(docs.map((d) => ({ id: d.id, content: d.content, metadata: meta() })));
    let hits = 0;
    let base = 0;
    for (const q of fx.questions) {
      if ((await store.search(q.question, { limit: 5 })).some((h) => h.id === q.answer)) hits++;
      if (overlapRank(docs, q.question).slice(0, 5).includes(q.answer)) base++;
    }
    const n = fx.questions.length;
    console.log(
      `knowledge recall@5 (${fx.documents.length} labelled docs + ${noise} distractors): ${(hits / n).toFixed(3)} (${hits}/${n}, lexical BM25, no embeddings) vs word-overlap baseline ${(base / n).toFixed(3)} -> ratio ${(hits / Math.max(1, base)).toFixed(2)}`,
    );
  }
}

/** Unpacks a v2 snapshot's term frequencies back into Orama's per-document objects (a v1 snapshot). */
function toV1(raw: unknown): unknown {
  const v2 = raw as { orama: { index: { frequencies: unknown } }; frequencies: Record<string, { ids: string[]; tokens: string[]; tf: Uint8Array }> };
  const frequencies: Record<string, Record<string, Record<string, number>>> = {};
  for (const [prop, p] of Object.entries(v2.frequencies)) {
    const tf = new Float64Array(new Uint8Array(p.tf).buffer);
    let at = 0;
    frequencies[prop] = Object.fromEntries(
      p.ids.map((id, i) => [id, Object.fromEntries((p.tokens[i] ? p.tokens[i].split('\0') : []).map((t) => [t, tf[at++]]))]),
    );
  }
  v2.orama.index.frequencies = frequencies;
  return v2.orama;
}

function syntheticCorpus(n: number, seed = 1): string[] {
  let x = seed;
  const rnd = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const syl = ['ka', 'lo', 'mi', 'ne', 'tu', 'ra', 'si', 'po', 'de', 'gu', 'fa', 'ze', 'vo', 'bi', 'ch', 'an', 'er', 'ul'];
  const vocab = Array.from({ length: 20_000 }, (_, i) => `${syl[i % 18]}${syl[Math.floor(i / 18) % 18]}${syl[Math.floor(i / 324) % 18]}${i % 7}`);
  // Zipf-like: low indices are common words.
  const word = () => vocab[Math.floor(vocab.length * rnd() ** 3)];
  return Array.from({ length: n }, () => Array.from({ length: 60 }, word).join(' '));
}

export async function benchLatency(sizes: number[]): Promise<void> {
  for (const n of sizes) {
    const corpus = syntheticCorpus(n);
    const dir = tempDir('devx-bench-kb-');
    const store = new EmbeddedStore(dir, 'lat');
    const t0 = performance.now();
    await store.add(corpus.map((c, i) => ({ id: `d${i}`, content: c, metadata: meta() })));
    const importMs = performance.now() - t0;
    // Baseline for import: serialising the same chunks to a JSON file.
    const t1 = performance.now();
    fs.writeFileSync(path.join(dir, 'baseline.json'), JSON.stringify(corpus.map((c, i) => ({ id: `d${i}`, content: c, metadata: meta() }))));
    const baseImportMs = performance.now() - t1;
    const snapshot = fs.statSync(path.join(dir, 'lat.orama')).size;

    // Queries: three words from a random existing document.
    const queries = Array.from({ length: 200 }, (_, i) =>
      corpus[(i * 7919) % n]
        .split(' ')
        .slice(i % 50, (i % 50) + 3)
        .join(' '),
    );
    const fresh = new EmbeddedStore(dir, 'lat');
    const tl = performance.now();
    await fresh.count();
    const loadMs = performance.now() - tl;
    // Baseline for the cold load: the same store as a v1 snapshot (Orama's dump as is, per-document
    // term-frequency objects included), as devx wrote it before the packed format.
    const v1dir = tempDir('devx-bench-kb-');
    fs.writeFileSync(path.join(v1dir, 'lat.orama'), encode(toV1(decode(fs.readFileSync(path.join(dir, 'lat.orama'))))));
    const tv1 = performance.now();
    await new EmbeddedStore(v1dir, 'lat').count();
    const v1LoadMs = performance.now() - tv1;
    fs.rmSync(v1dir, { recursive: true, force: true });
    console.log(
      `knowledge cold load at ${n} chunks: ${(loadMs / 1000).toFixed(2)} s (packed snapshot) vs ${(v1LoadMs / 1000).toFixed(2)} s for Orama's own dump -> ratio ${(loadMs / v1LoadMs).toFixed(3)}`,
    );
    const times: number[] = [];
    for (const q of queries) {
      const s = performance.now();
      await fresh.search(q, { limit: 5 });
      times.push(performance.now() - s);
    }
    const scan: number[] = [];
    for (const q of queries.slice(0, 20)) {
      const s = performance.now();
      const words = q.split(' ');
      corpus
        .map((d, i) => ({ i, s: words.filter((w) => d.includes(w)).length }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 5);
      scan.push(performance.now() - s);
    }
    // Baseline for the tail: the same first 40 queries with Orama's own (quadratic) findAllWords.
    const proto = radix.RadixNode.prototype as unknown as { findAllWords: unknown };
    proto.findAllWords = originalFindAllWords;
    const unpatched: number[] = [];
    try {
      for (const q of queries.slice(0, 40)) {
        const s = performance.now();
        await fresh.search(q, { limit: 5 });
        unpatched.push(performance.now() - s);
      }
    } finally {
      proto.findAllWords = linearFindAllWords;
    }
    const tail = pct(times.slice(0, 40), 95);
    console.log(
      `knowledge query tail at ${n} chunks (first 40 queries): p95 ${tail.toFixed(2)} ms with devx's linear findAllWords vs ${pct(unpatched, 95).toFixed(2)} ms with Orama's own -> ratio ${(tail / pct(unpatched, 95)).toFixed(3)}`,
    );
    // One small write (what `remember`/store_qdrant does) against a whole-snapshot rewrite, the
    // way every write went before the journal.
    const writes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      await fresh.add([{ id: `w${i}`, content: `a new finding number ${i} about ${corpus[i].slice(0, 60)}`, metadata: meta() }]);
      writes.push(performance.now() - s);
    }
    const tc = performance.now();
    await fresh.compact();
    const rewriteMs = performance.now() - tc;
    console.log(
      `knowledge single write at ${n} chunks: median ${pct(writes, 50).toFixed(1)} ms (journal append) vs ${rewriteMs.toFixed(1)} ms to rewrite the snapshot -> ratio ${(pct(writes, 50) / rewriteMs).toFixed(4)}`,
    );
    const p50 = pct(times, 50);
    console.log(
      `knowledge query latency at ${n} chunks: p50 ${p50.toFixed(2)} ms, p95 ${pct(times, 95).toFixed(2)} ms (target p50 < 50 ms) vs brute-force scan p50 ${pct(scan, 50).toFixed(2)} ms -> ratio ${(p50 / pct(scan, 50)).toFixed(3)}; snapshot ${(snapshot / 1e6).toFixed(1)} MB`,
    );
    console.log(
      `knowledge import at ${n} chunks: ${Math.round(n / (importMs / 1000))} chunks/s (${(importMs / 1000).toFixed(1)} s, index and snapshot included) vs plain JSON write ${Math.round(n / (baseImportMs / 1000))} chunks/s -> ratio ${(importMs / baseImportMs).toFixed(1)}x slower`,
    );
  }
}
