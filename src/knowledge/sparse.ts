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
  let w = t;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 3 && /(s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  // Then a final silent e, so "update", "updates" and "updated" meet at "updat".
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
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
