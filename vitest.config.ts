import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The files whose outcome can change with bubblewrap, ripgrep or PostgreSQL on the machine in a way that decides whether
 * devx holds its claims: the policy's decisions (which differ with a working sandbox), what runs in the
 * sandbox and what leaves it, search with rg, and the attack suites judged by effects. `DEVX_TEST_SCOPE=tools
 * npm test` runs only these: CI runs the whole suite on a machine without rg and bwrap, then these again with
 * them (.ci/run). Files whose commands only serve to reach another feature (the queue, the workflow, the REPL's
 * screen) run once, in the first pass; their commands' decisions with bubblewrap are the policy table's rows.
 */
const TOOL_DEPENDENT = [
  'test/policy/**/*.test.ts',
  ...['background', 'childrenDie', 'hostileRepoSuite', 'ownHands', 'relativePath', 'replKeys', 'security'].map((f) => `test/e2e/${f}.test.ts`),
  ...['containment', 'customCommands', 'hooks', 'personas', 'policyEngine', 'tools', 'undoStore', 'worktreeGit'].map((f) => `test/integration/${f}.test.ts`),
  // The task queue on PostgreSQL: the first pass has no server (those cases skip, saying so).
  ...['test/integration/pgQueue.test.ts', 'test/e2e/queuePostgres.test.ts', 'test/e2e/queueIsolation.test.ts'],
  // Search over names that are not UTF-8, with ripgrep and without it.
  'test/integration/searchNames.test.ts',
];
const toolsOnly = process.env.DEVX_TEST_SCOPE === 'tools';
const processFiles = toolsOnly ? TOOL_DEPENDENT : ['test/**/*.test.ts'];

export default defineConfig({
  test: {
    // Each project runs it too: the first call makes the temp folder, the processes project's first call
    // the code cache (test/globalSetup.ts).
    globalSetup: ['test/globalSetup.ts'],
    testTimeout: 60_000,
    // Vitest's summary, and a line per test that passed only on its retry (test/reportRetries.ts).
    reporters: ['default', './test/reportRetries.ts'],
    hookTimeout: 60_000,
    poolOptions: {
      // Files that start processes: three forks on two cores. A fork spends much of its time waiting on
      // what it started (a model CLI's start, a turn timeout, a terminal), and the third fills the core
      // that wait leaves idle. All three start at once: tinypool's teardown of a fork started late and
      // left idle threw "Terminating worker thread" and failed a run that had passed. Each fork runs its
      // files one after another in one process and one module graph: a fresh process per file loads
      // vitest and the helpers again for every file.
      forks: { maxForks: 3, minForks: 3, isolate: false },
      // The unit files, beside them: one thread runs them all, sharing one module graph (a fresh
      // process each would spend more on loading than most of them spend on their tests).
      threads: { singleThread: true, isolate: false },
    },
    projects: [
      // The fast tier (`npm run test:fast`): test/unit/, where a test may start no process and open no
      // socket. test/forbidProcesses.ts makes every attempt throw and fails the test that made it.
      {
        extends: true,
        // Not in the tools-only pass: a test here starts no process, so rg and bwrap cannot change it.
        test: {
          name: 'fast',
          include: toolsOnly ? [] : ['test/unit/**/*.test.ts'],
          pool: 'threads',
          setupFiles: ['test/isolateHome.ts', 'test/forbidProcesses.ts'],
        },
      },
      // Every other test file, wherever it is (test/integration, test/e2e, test/policy, a folder added later).
      {
        extends: true,
        // One retry: these drive real binaries whose start a loaded machine can delay past a ceiling. A test
        // that needed it is printed (RETRIED …), and one that fails twice fails the run.
        test: {
          name: 'processes',
          include: processFiles,
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          pool: 'forks',
          retry: 1,
          setupFiles: ['test/isolateHome.ts'],
        },
      },
    ],
  },
});
