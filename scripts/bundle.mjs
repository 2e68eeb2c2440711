#!/usr/bin/env node
// Bundles the compiled CLI (dist/bundle/devx.mjs, the `devx` binary). Loading one module
// instead of a few hundred saves ~200 ms at every start (`npm run bench`, "one-shot process").
// web-tree-sitter stays outside: it loads its .wasm from beside its own file.
import { build } from 'esbuild';
import fs from 'node:fs';

const banner = [
  "import { createRequire as __devxCreateRequire } from 'node:module';",
  "import { fileURLToPath as __devxFileURLToPath } from 'node:url';",
  "import { dirname as __devxDirname } from 'node:path';",
  'const require = __devxCreateRequire(import.meta.url);',
  'const __filename = __devxFileURLToPath(import.meta.url);',
  'const __dirname = __devxDirname(__filename);',
].join(' ');

fs.rmSync('dist/bundle', { recursive: true, force: true });
await build({
  // Code behind dynamic imports (the knowledge store's Orama and Qdrant client, ...) goes into chunks
  // loaded on first use.
  entryPoints: { devx: 'dist/src/cli/main.js' },
  outdir: 'dist/bundle',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['web-tree-sitter'],
  banner: { js: banner },
  logLevel: 'warning',
});
fs.chmodSync('dist/bundle/devx.mjs', 0o755);
