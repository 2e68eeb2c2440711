import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two forks on two cores (a third only adds contention: measured slower). Each fork runs its files one
    // after another without a fresh process per file: vitest's own start-up per file was ~20% of the unit
    // tests' CPU. Every test makes its own temp folders, homes and fake servers, so no file depends on a fresh process.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});
