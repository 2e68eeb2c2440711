// Orama 3.1.x collects a word's documents with `if (!docs.includes(id)) docs.push(id)`, which is
// quadratic in the number of documents holding the word: a word found in most chunks of a large store
// made each query take seconds (`npm run bench`, "knowledge"). Each radix node holds its documents in a
// Set and the output list for a word is rebuilt on every visit, so copying the Set gives the same lists
// in linear time. The patch is applied only while the method still has that shape; an upstream change
// leaves it alone.
import { radix } from '@orama/orama/trees';

type FindAllWords = (this: Node, output: Record<string, unknown[]>, term: string, exact: boolean, tolerance: number) => Record<string, unknown[]>;
interface Node {
  e: boolean;
  w: string;
  d: Set<unknown>;
  c: Map<string, Node>;
}

const proto = radix.RadixNode.prototype as unknown as { findAllWords: FindAllWords };
/** Orama's own method, kept for fuzzy matching and for the equivalence test. */
export const originalFindAllWords: FindAllWords = proto.findAllWords;

/** The same result as Orama's findAllWords, linear in the size of the subtree's document sets. */
export const linearFindAllWords: FindAllWords = function (output, term, exact, tolerance) {
  // Fuzzy matching is not used by devx; keep Orama's own code for it.
  if (tolerance) return originalFindAllWords.call(this, output, term, exact, tolerance);
  const stack: Node[] = [this];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.e && !(exact && node.w !== term)) output[node.w] = Array.from(node.d);
    if (node.c.size > 0) for (const child of node.c.values()) stack.push(child);
  }
  return output;
};

/** True when Orama's search now uses the linear version. */
export const oramaPatched: boolean = /docs\.includes\(docID\)/.test(String(originalFindAllWords));
if (oramaPatched) proto.findAllWords = linearFindAllWords;
