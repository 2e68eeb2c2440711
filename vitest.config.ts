import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each project runs it too; only the first call does anything (test/globalSetup.ts).
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    poolOptions: {
      // Files that start processes: two forks on two cores (a third only adds contention: measured
      // slower), a fresh process per file, so no file's process state reaches another.
      forks: { maxForks: 2, minForks: 1 },
      // The unit files, beside them: one thread runs them all, sharing one module graph. A fresh
      // process each cost ~0.7 s of CPU per file, half of what they used (measured with `--pool`).
      threads: { singleThread: true, isolate: false },
    },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads' } },
      // Every other test file, wherever it is (test/e2e, test/policy, a folder added later).
      {
        extends: true,
        test: { name: 'processes', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/unit/**'], pool: 'forks' },
      },
    ],
  },
});
