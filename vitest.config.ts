import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two forks on two cores (a third only adds contention: measured slower). A fresh process per file:
    // sharing one (isolate: false) saved ~15 s, but let one file's process state reach another (V8 flags
    // set by util/wasmTier changed what a later file's code cache test saw).
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
