// The engine's side effects for a real run: headless runs, the repository's git, the project's
// test command, and the roles (agents) the definitions name.
import { runHeadless } from '../runtime/runHeadless.js';
import { loadEffectiveSettings } from '../config/effectiveSettings.js';
import { isTrusted } from '../config/trust.js';
import { findAgent } from '../personas/loadAgents.js';
import { createGit } from './git.js';
import { detectTestCommand, runTestCommand, type TestCommand } from './testCommand.js';
import { createPolicy } from '../runtime/createPolicy.js';
import { loadWorkflows, type LoadedWorkflows } from './loadWorkflows.js';
import type { EngineDeps, WorkflowEvent } from './runWorkflow.js';
import type { AgentEvent } from '../core/loop.js';

export interface EngineSetup {
  deps: EngineDeps;
  loaded: LoadedWorkflows;
  warnings: string[];
}

/**
 * Whether devx may run the test command itself: a deny rule always holds; a command the user set in
 * their settings (or a trusted project's) is theirs to run; a detected one runs only when the policy
 * would allow it unasked (a test runner inside the sandbox), since nobody is there to ask.
 */
async function vetTestCommand(cmd: TestCommand, opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string | null> {
  const { policy } = await createPolicy({ cwd: opts.cwd, env: opts.env, headless: true, eagerParser: true });
  const d = policy.decideCommand(cmd.command);
  if (d.decision === 'deny') return `devx may not run the test command \`${cmd.command}\` (${cmd.source}): ${d.reason} [${d.rule}]`;
  if (d.decision === 'ask' && !cmd.source.startsWith('settings')) {
    return `devx would run \`${cmd.command}\` (${cmd.source}) to check the developer's claim, but the policy asks first (${d.reason}); set "testCommand" in ~/.devx/settings.json to let devx run it, or install bubblewrap so test runners run sandboxed`;
  }
  return null;
}

export function createEngine(opts: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onEvent?: (e: WorkflowEvent) => void;
  onAgentEvent?: (step: string, e: AgentEvent) => void;
  now?: () => Date;
}): EngineSetup {
  const eff = loadEffectiveSettings({ cwd: opts.cwd, env: opts.env });
  const loaded = loadWorkflows({ root: eff.root, userHome: eff.userHome, devxHome: eff.home, trusted: isTrusted(eff.home, eff.root) });
  const deps: EngineDeps = {
    root: eff.root,
    env: opts.env,
    git: createGit(eff.root, opts.env),
    now: opts.now ?? (() => new Date()),
    runHeadless,
    testCommand: detectTestCommand(eff.root, eff.settings.testCommand),
    vetTests: (cmd) => vetTestCommand(cmd, { cwd: opts.cwd, env: opts.env }),
    runTests: (cmd) => runTestCommand(eff.root, cmd, { env: opts.env, home: eff.userHome, timeoutMs: eff.settings.commandTimeoutMs * 5 }),
    signal: opts.signal,
    role: (name) => findAgent(loaded.agents, name),
    onEvent: opts.onEvent,
    onAgentEvent: opts.onAgentEvent,
  };
  return { deps, loaded, warnings: [...eff.settings.warnings, ...loaded.warnings] };
}
