// Orama keeps, for every chunk, an object mapping each of its tokens to a term frequency: millions of keys
// in a large store, and decoding them was most of a cold load (`npm run bench`, "knowledge"). devx
// stores them as flat columns instead, and gives Orama a small Proxy per document that builds that
// document's Map only when a search first touches it. The outer object stays a plain one, so
// Orama's own writes (a new document's `{}`, a removed document's `undefined`) work as before.

/** One property's term frequencies, by document, as columns (msgpack-friendly). */
export interface PackedFrequencies {
  ids: string[];
  /** Per document, its tokens joined by NUL (the tokenizer never yields NUL inside a token). */
  tokens: string[];
  /** Per document, how many tokens it has. */
  counts: number[];
  /** Every document's frequencies in the same order, as little-endian float64 bytes. */
  tf: Uint8Array;
}

type DocFrequencies = Record<string, number>;
type PropFrequencies = Record<string, DocFrequencies | undefined>;

/** A packed document's frequencies: read from the columns until a search first touches it. */
interface LazyDoc {
  packed: PackedFrequencies;
  values: Float64Array;
  index: number;
  offset: number;
  map: Map<string, number> | null;
}

const lazyDocs = new WeakMap<object, LazyDoc>();

function tokensOf(d: LazyDoc): string[] {
  const joined = d.packed.tokens[d.index];
  return joined ? joined.split('\0') : [];
}

function mapOf(d: LazyDoc): Map<string, number> {
  if (!d.map) {
    const m = new Map<string, number>();
    tokensOf(d).forEach((t, k) => m.set(t, d.values[d.offset + k]));
    d.map = m;
  }
  return d.map;
}

function lazyView(d: LazyDoc): DocFrequencies {
  const view = new Proxy({} as DocFrequencies, {
    get: (_t, term) => (typeof term === 'string' ? mapOf(d).get(term) : undefined),
    set: (_t, term, v) => (typeof term === 'string' ? (mapOf(d).set(term, v as number), true) : false),
    has: (_t, term) => typeof term === 'string' && mapOf(d).has(term),
    ownKeys: () => [...mapOf(d).keys()],
    getOwnPropertyDescriptor: (_t, term) =>
      typeof term === 'string' && mapOf(d).has(term) ? { value: mapOf(d).get(term), enumerable: true, configurable: true, writable: true } : undefined,
  });
  lazyDocs.set(view, d);
  return view;
}

function docEntries(v: DocFrequencies): Iterable<[string, number]> {
  const d = lazyDocs.get(v);
  if (!d) return Object.entries(v);
  if (d.map) return d.map.entries();
  return tokensOf(d).map((t, k) => [t, d.values[d.offset + k]] as [string, number]);
}

/** Packs one property's frequencies (a plain Orama object or one made by `unpackFrequencies`). */
export function packFrequencies(freq: PropFrequencies): PackedFrequencies {
  const ids: string[] = [];
  const tokens: string[] = [];
  const counts: number[] = [];
  const tfs: number[] = [];
  for (const id of Object.keys(freq)) {
    const v = freq[id];
    if (!v) continue; // removed
    const toks: string[] = [];
    for (const [t, x] of docEntries(v)) {
      toks.push(t);
      tfs.push(x);
    }
    ids.push(id);
    tokens.push(toks.join('\0'));
    counts.push(toks.length);
  }
  return { ids, tokens, counts, tf: new Uint8Array(Float64Array.from(tfs).buffer) };
}

/** The inverse of `packFrequencies`: an object Orama reads and writes as its own. */
export function unpackFrequencies(packed: PackedFrequencies): PropFrequencies {
  const { ids, tokens, counts, tf } = packed;
  if (
    !Array.isArray(ids) ||
    !Array.isArray(tokens) ||
    !Array.isArray(counts) ||
    ids.length !== tokens.length ||
    ids.length !== counts.length ||
    !(tf instanceof Uint8Array) ||
    tf.byteLength % 8
  ) {
    throw new Error('packed term frequencies are malformed');
  }
  // Copy into a buffer of its own: the decoder may hand out a view into a larger (Node Buffer) pool,
  // at an offset a float64 view cannot use.
  const values = new Float64Array(new Uint8Array(tf).buffer);
  const out: PropFrequencies = {};
  let offset = 0;
  ids.forEach((id, index) => {
    out[id] = lazyView({ packed, values, index, offset, map: null });
    offset += counts[index];
  });
  if (offset !== values.length) throw new Error('packed term frequencies are malformed');
  return out;
}
