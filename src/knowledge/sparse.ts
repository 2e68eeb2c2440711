// Lexical relevance without a model: BM25-style sparse vectors computed locally. Token ids are
// 32-bit FNV-1a hashes; document weights saturate term frequency (BM25's k1/b); Qdrant supplies the
// IDF through its sparse-vector `idf` modifier.

import { STOP_WORDS } from './stopWords.js';

const STOP = new Set(STOP_WORDS);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((t) => t.length > 1 && !STOP.has(t)).map(stem);
}

/** A light suffix stemmer (plural and common verb endings), enough to match "configure"/"configuring". */
export function stem(t: string): string {
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ies')) return `${t.slice(0, -3)}y`;
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('es') && /(s|x|z|ch|sh)es$/.test(t)) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  if (t.length > 4 && t.endsWith('e')) return t.slice(0, -1);
  return t;
}

export function hashToken(t: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < t.length; i++) {
    h ^= t.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export interface SparseVector {
  indices: number[];
  values: number[];
}

function counts(tokens: string[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const t of tokens) {
    const h = hashToken(t);
    m.set(h, (m.get(h) ?? 0) + 1);
  }
  return m;
}

export function documentVector(text: string, k1 = 1.2, b = 0.75, avgLen = 120): SparseVector {
  const tokens = tokenize(text);
  const len = tokens.length || 1;
  const out: SparseVector = { indices: [], values: [] };
  for (const [i, tf] of counts(tokens)) {
    out.indices.push(i);
    out.values.push((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avgLen)));
  }
  return out;
}

export function queryVector(text: string): SparseVector {
  const out: SparseVector = { indices: [], values: [] };
  for (const [i] of counts(tokenize(text))) {
    out.indices.push(i);
    out.values.push(1);
  }
  return out;
}
