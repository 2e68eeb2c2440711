#!/usr/bin/env node
// Builds dist/: each TypeScript file of src/, bench/ and test/helpers/ transpiled on its own to an ES module
// (esbuild), then the two CLI bundles (scripts/bundle.mjs). Types are checked by `npm run typecheck`
// (tsc), a gate of its own in CI: tsc made every `npm test` wait for output esbuild writes many times
// faster. tsconfig.json's isolatedModules makes tsc refuse what a file-by-file transpile gets wrong.
import { build } from 'esbuild';
import fg from 'fast-glob';

const entryPoints = await fg(['src/**/*.ts', 'bench/**/*.ts', 'test/helpers/**/*.ts'], { ignore: ['**/*.d.ts'] });
await build({ entryPoints, outdir: 'dist', outbase: '.', format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
await import('./bundle.mjs');
