import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each project runs it too: the first call makes the temp folder, the processes project's first call
    // the code cache (test/globalSetup.ts).
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    poolOptions: {
      // Files that start processes: two forks on two cores (a third only adds contention: measured
      // slower). Each fork runs its files one after another in one process and one module graph: a
      // fresh process per file cost ~1 s of CPU per file (~50 CPU-s a run, measured with `time`).
      forks: { maxForks: 2, minForks: 1, isolate: false },
      // The unit files, beside them: one thread runs them all, sharing one module graph. A fresh
      // process each cost ~0.7 s of CPU per file, half of what they used (measured with `--pool`).
      threads: { singleThread: true, isolate: false },
    },
    projects: [
      // The fast tier (`npm run test:fast`): test/unit/, where a test may start no process and open no
      // socket. test/forbidProcesses.ts makes every attempt throw and fails the test that made it.
      {
        extends: true,
        test: { name: 'fast', include: ['test/unit/**/*.test.ts'], pool: 'threads', setupFiles: ['test/forbidProcesses.ts'] },
      },
      // Every other test file, wherever it is (test/integration, test/e2e, test/policy, a folder added later).
      {
        extends: true,
        test: { name: 'processes', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/unit/**'], pool: 'forks' },
      },
    ],
  },
});
