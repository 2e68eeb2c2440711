// What a clarification step needs from outside: the headless runner, the clock, and where output goes.
// Injected so tests can drive a step with a scripted runner or a fixed clock.
import path from 'node:path';
import type { AgentEvent } from '../core/loop.js';
import type { ApprovalMode } from '../policy/decide.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import type { HeadlessOptions, HeadlessResult } from '../runtime/runHeadless.js';

export interface StepDeps {
  run: (opts: HeadlessOptions) => Promise<HeadlessResult>;
  now: () => Date;
  cwd: string;
  env: NodeJS.ProcessEnv;
  approval?: ApprovalMode;
  model?: string;
  provider?: string;
  onEvent?: (e: AgentEvent) => void;
}

export interface StepResult {
  code: number;
  /** What the user reads: what was done and what to do next. */
  message: string;
  warnings: string[];
}

/**
 * Approves writes to the files a step owns (and nothing else) when the approval mode did not already:
 * the agents of a task may write their own artifacts, never the user's files.
 */
export function approveOwnedFiles(root: string, owned: string[]): (req: ApprovalRequest) => Promise<PersonAnswer> {
  return async (req) => {
    const ok = req.locations.length > 0 && req.locations.every((l) => l.intent === 'write' && owned.includes(path.resolve(root, l.path)));
    return ok ? 'yes' : 'headless';
  };
}

/** A model run that did not end in an answer, for the user. */
export function describeFailure(role: string, r: HeadlessResult): string {
  return `the ${role} agent did not finish (${r.status}${r.error ? `: ${r.error.message}` : ''})`;
}
