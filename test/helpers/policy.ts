import path from 'node:path';
import { PolicyEngine, type PolicyOptions } from '../../src/policy/decide.js';
import { loadCommandJudge } from '../../src/policy/loadCommandJudge.js';
import { tempDir } from './env.js';

/** A policy engine for unit tests: a temp HOME, default mode, a person present, no rate limits. */
export async function makePolicy(root: string, over: Partial<PolicyOptions> = {}): Promise<PolicyEngine> {
  const home = over.home ?? tempDir('devx-policy-home-');
  return new PolicyEngine({
    root,
    home,
    devxHome: path.join(home, '.devx'),
    headless: false,
    sandboxed: false,
    commands: await loadCommandJudge(),
    mode: 'default',
    rateLimits: { toolCallsPerMinute: 1_000_000, commandsPerMinute: 1_000_000 },
    ...over,
  });
}
