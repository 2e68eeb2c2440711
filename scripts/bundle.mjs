#!/usr/bin/env node
// Bundles the compiled CLI into two CommonJS files: dist/bundle/devx-main.cjs (all of devx) and the
// binary dist/bundle/devx.cjs, which starts a one-shot run's model CLI ahead and then runs the main
// bundle through V8's code cache (src/util/runWithCodeCache.ts). One file instead of a few hundred
// modules spares every start the module resolution; CommonJS is what Node 20 can run from a code cache
// (`npm run bench` measures both). Code behind dynamic imports (the knowledge store, MCP, execa) stays
// inside functions that run on first use.
// web-tree-sitter stays outside: it loads its .wasm from beside its own file. So does pg (the Postgres task
// queue's driver): loaded from node_modules only by a devx whose queue is in Postgres.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

// import.meta.url (packageRoot, createRequire) means the bundle's own file, as it did in the ES module bundle.
const metaUrl = { define: { 'import.meta.url': '__devxImportMetaUrl' } };
// "use strict" first: esbuild's own comes after the banner, where it is no directive (ES modules are strict).
const mainBanner = [
  '"use strict";',
  "const __devxImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  'const __devxBuiltins = new Map();',
  'function __devxBuiltin(m) { let e = __devxBuiltins.get(m); if (!e) __devxBuiltins.set(m, (e = __toESM(m, 1))); return e; }',
].join('\n');

// Built beside the old bundle and swapped in at the end, so a devx running from it never sees a half-written one.
const out = 'dist/bundle';
const next = `dist/bundle.next-${process.pid}`;
fs.rmSync(next, { recursive: true, force: true });
const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' };
// No import() is left in it (the binary runs it as a vm.Script, where import() needs an experimental hook):
// each becomes a require, web-tree-sitter's too (it ships CommonJS).
await build({
  ...common,
  ...metaUrl,
  banner: { js: mainBanner },
  entryPoints: ['dist/src/cli/main.js'],
  outfile: path.join(next, 'devx-main.cjs'),
  external: ['web-tree-sitter', 'pg'],
  supported: { 'dynamic-import': false },
});
await build({ ...common, entryPoints: ['dist/src/cli/bin.js'], outfile: path.join(next, 'devx.cjs') });

// The binary reads the main bundle as latin1 (a one-byte string, no UTF-8 decoding). esbuild already
// escapes non-ASCII characters in code; what is left (in comments) becomes \uXXXX escapes too, per
// UTF-16 unit, which mean the same in strings and regular expressions.
const mainFile = path.join(next, 'devx-main.cjs');
let text = fs.readFileSync(mainFile, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// esbuild gives each `import fs from 'node:fs'` its own copy of the built-in's exports (__toESM: a getter
// per export, for every import). One shared copy per built-in saves that CPU and allocation at every
// start. If esbuild ever writes this differently, nothing matches and each import keeps its own.
text = text.replace(/__toESM\(require\("(node:[\w/]+)"\), 1\)/g, '__devxBuiltin(require("$1"))');
fs.writeFileSync(mainFile, text);
for (const f of ['devx.cjs']) fs.chmodSync(path.join(next, f), 0o755);
const old = `dist/bundle.old-${process.pid}`;
if (fs.existsSync(out)) fs.renameSync(out, old);
fs.renameSync(next, out);
fs.rmSync(old, { recursive: true, force: true });
