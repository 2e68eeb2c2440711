// A real bash parser: web-tree-sitter with the tree-sitter-bash grammar (both shipped as .wasm, no
// native build). Loaded once per process; parsing after that is synchronous.
import { createRequire } from 'node:module';
import { useBaselineWasmTier } from '../util/wasmTier.js';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

export type { Node, Tree };

let loading: Promise<Parser> | null = null;

export function loadBashParser(): Promise<Parser> {
  if (!loading) {
    loading = (async () => {
      // The devx binary set this at start (cli/bin.ts); in-process users (tests, benchmarks) get it here.
      useBaselineWasmTier();
      await Parser.init();
      const require = createRequire(import.meta.url);
      const lang = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
      const parser = new Parser();
      parser.setLanguage(lang);
      return parser;
    })();
  }
  return loading;
}
