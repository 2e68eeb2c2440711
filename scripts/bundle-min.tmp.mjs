#!/usr/bin/env node
// Bundles the compiled CLI (dist/bundle/devx.mjs, loaded by the `devx` binary dist/bundle/devx.cjs). Loading one module
// instead of a few hundred saves ~200 ms at every start (`npm run bench`, "one-shot process").
// web-tree-sitter stays outside: it loads its .wasm from beside its own file.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const banner = [
  "import { createRequire as __devxCreateRequire } from 'node:module';",
  "import { fileURLToPath as __devxFileURLToPath } from 'node:url';",
  "import { dirname as __devxDirname } from 'node:path';",
  'const require = __devxCreateRequire(import.meta.url);',
  'const __filename = __devxFileURLToPath(import.meta.url);',
  'const __dirname = __devxDirname(__filename);',
].join(' ');

// Built beside the old bundle and swapped in at the end, so a devx running from it never sees a half-written one.
const out = process.env.OUT ?? 'dist/bundle';
const next = `${out}.next-${process.pid}`;
fs.rmSync(next, { recursive: true, force: true });
await build({
  // Code behind dynamic imports (the knowledge store's Orama and Qdrant client, ...) goes into chunks
  // loaded on first use.
  entryPoints: { devx: 'dist/src/cli/main.js' },
  outdir: next,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['web-tree-sitter'],
  banner: { js: banner },
  minifyWhitespace: !!process.env.MINW, minifySyntax: !!process.env.MINS, minifyIdentifiers: !!process.env.MINI,
  logLevel: 'warning',
});
// The binary itself: a small CommonJS file (it starts sooner than an ES module) that starts a one-shot
// run's model CLI ahead and then imports the bundle above.
await build({
  entryPoints: ['dist/src/cli/bin.js'],
  outfile: path.join(next, 'devx.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
  plugins: [
    {
      name: 'bundle-main',
      setup(b) {
        b.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: './devx.mjs', external: true }));
      },
    },
  ],
});
for (const f of ['devx.mjs', 'devx.cjs']) fs.chmodSync(path.join(next, f), 0o755);
const old = `${out}.old-${process.pid}`;
if (fs.existsSync(out)) fs.renameSync(out, old);
fs.renameSync(next, out);
fs.rmSync(old, { recursive: true, force: true });
