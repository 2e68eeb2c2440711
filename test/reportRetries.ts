// A test that failed and then passed on its retry (the processes project retries once: a loaded 2-core
// machine can still starve a real binary past a ceiling) is named, never hidden: CI prints these lines, with
// what the failed attempt said, so a flake seen once in CI can be read without running it again.
import type { Reporter, TestCase } from 'vitest/node';

export default class ReportRetries implements Reporter {
  onTestCaseResult(test: TestCase): void {
    const d = test.diagnostic();
    if (!d?.flaky) return;
    const errors = test.result().errors ?? [];
    const said = errors.map((e) => `  ${(e.stack ?? e.message ?? String(e)).split('\n').slice(0, 6).join('\n  ')}`).join('\n');
    process.stdout.write(
      `RETRIED ${test.module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}: failed, then passed on retry ${d.retryCount}\n${said ? `${said}\n` : ''}`,
    );
  }
}
