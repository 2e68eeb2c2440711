// The engine's side effects for a real run: headless agent runs, the repository's git, the project's
// test command, and the roles (agents) the definitions name.
import { runHeadless } from '../runtime/runHeadless.js';
import { loadEffectiveSettings } from '../config/effectiveSettings.js';
import { isTrusted } from '../config/trust.js';
import { findAgent } from '../personas/loadAgents.js';
import { createGit } from './git.js';
import { detectTestCommand, runTestCommand } from './testCommand.js';
import { loadWorkflows, type LoadedWorkflows } from './loadWorkflows.js';
import type { EngineDeps, WorkflowEvent } from './runWorkflow.js';
import type { AgentEvent } from '../core/loop.js';

export interface EngineSetup {
  deps: EngineDeps;
  loaded: LoadedWorkflows;
  warnings: string[];
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
    runTests: (cmd) => runTestCommand(eff.root, cmd, { env: opts.env, home: eff.userHome, timeoutMs: eff.settings.commandTimeoutMs * 5 }),
    signal: opts.signal,
    role: (name) => findAgent(loaded.agents, name),
    onEvent: opts.onEvent,
    onAgentEvent: opts.onAgentEvent,
  };
  return { deps, loaded, warnings: [...eff.settings.warnings, ...loaded.warnings] };
}
