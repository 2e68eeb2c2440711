// One step: a fresh headless run of the step's role, one repair round for a missing or invalid
// verdict, the artifact saved, and the claims devx can check (commit on the branch, tests pass)
// checked by devx itself.
import path from 'node:path';
import type { HeadlessOptions, HeadlessResult } from '../runtime/runHeadless.js';
import type { AgentDef } from '../personas/loadAgents.js';
import type { ChildObserver } from '../util/processRunner.js';
import type { AgentEvent } from '../core/loop.js';
import type { WorkflowDef } from './definition.js';
import type { StepRecord, WorkflowState } from './state.js';
import { buildStepPrompt, fillPath, repairPrompt } from './stepPrompt.js';
import { artifactTargetProblem } from './artifactPath.js';
import { readRegularFileSync } from '../util/readRegularFileSync.js';
import { writeFileAtomicSync } from '../util/atomicWrite.js';
import { readVerdict, stripVerdict, type VerdictKind } from './verdict.js';
import { commitOnBranch, type Git } from './git.js';
import type { TestCommand, TestRun } from './testCommand.js';
import { mkdirOwnedSync } from '../util/ownedFile.js';
import type { SharedBackends } from '../runtime/sharedBackends.js';

export interface StepDeps {
  root: string;
  env: NodeJS.ProcessEnv;
  git: Git;
  now: () => Date;
  runHeadless: (opts: HeadlessOptions) => Promise<HeadlessResult>;
  testCommand: TestCommand | null;
  /** The policy's word on running the test command: null when it may run, else why not. */
  vetTests: (cmd: TestCommand) => Promise<string | null>;
  runTests: (cmd: TestCommand) => Promise<TestRun>;
  signal?: AbortSignal;
  childObserver?: ChildObserver;
  /** The workflow's model backends, shared by its steps. */
  sharedBackends?: SharedBackends;
  onAgentEvent?: (step: string, e: AgentEvent) => void;
}

export type StepResult = Omit<StepRecord, 'next' | 'outcome' | 'committed'>;

export type StepOutcome =
  | { kind: 'done'; record: StepResult; word: string | null; feedback?: string }
  | { kind: 'check_failed'; record: StepResult; message: string }
  /** The model's part is done, but devx could not check its claims (no test command, or not allowed to run it). */
  | { kind: 'check_blocked'; record: StepResult; reason: string }
  | { kind: 'pause'; reason: string; cancelled?: boolean };

export async function runStep(def: WorkflowDef, state: WorkflowState, name: string, persona: AgentDef, deps: StepDeps): Promise<StepOutcome> {
  const step = def.steps[name];
  const started = deps.now();
  const attempt = state.steps.filter((s) => s.step === name).length + 1;
  // The role's own model wins over the workflow's default, which wins over settings.
  const model = step.model ?? (persona.model ? undefined : def.model);
  const provider = step.provider ?? (persona.provider ? undefined : def.provider);
  const artifact = step.writes ? fillPath(step.writes, state) : undefined;
  const artifactAbs = artifact ? path.join(deps.root, artifact) : undefined;
  const before = artifactAbs ? readOrNull(artifactAbs) : null;
  const tokens = { input: 0, output: 0 };
  let modelCalls = 0;
  let transcript: string | undefined;

  const run = async (prompt: string): Promise<HeadlessResult> => {
    const r = await deps.runHeadless({
      prompt,
      cwd: deps.root,
      env: deps.env,
      persona,
      model,
      provider,
      // Unset: the user's own approval mode (settings) applies.
      approval: step.approval,
      overrides: step.allow.length ? { permissions: { allow: step.allow } } : undefined,
      signal: deps.signal,
      childObserver: deps.childObserver,
      sharedBackends: deps.sharedBackends,
      onEvent: (e) => deps.onAgentEvent?.(name, e),
    });
    tokens.input += r.usage.input;
    tokens.output += r.usage.output;
    modelCalls += r.rounds;
    transcript = r.transcriptPath;
    return r;
  };

  const prompt = buildStepPrompt(deps.root, def, state, name, { testCommand: deps.testCommand?.command });
  let r = await run(prompt);
  const failed = failure(r, name);
  if (failed) return failed;
  let answer = r.answer ?? '';
  let problem = problemWith(answer, step.verdict);
  if (problem) {
    r = await run(repairPrompt(prompt, answer, problem, step));
    const failedAgain = failure(r, name);
    if (failedAgain) return failedAgain;
    answer = r.answer ?? '';
    problem = problemWith(answer, step.verdict);
    if (problem)
      return {
        kind: 'pause',
        reason: `step ${name} (${persona.name}) gave no usable answer twice: ${problem} (transcript: ${path.relative(deps.root, transcript ?? '')})`,
      };
  }
  const verdict = step.verdict
    ? (readVerdict(answer, step.verdict as VerdictKind | string[]) as { ok: true; value: Record<string, unknown> }).value
    : undefined;
  // The role may have written the artifact itself; otherwise its answer is the artifact.
  if (artifactAbs && readOrNull(artifactAbs) === before) {
    // Checked now, not only when the definition loaded: the role's commands may have made a folder on the way a link.
    const refused = artifactTargetProblem(deps.root, artifactAbs);
    if (refused) return { kind: 'pause', reason: `step ${name}: its artifact cannot be saved: ${refused}` };
    mkdirOwnedSync(path.dirname(artifactAbs));
    // A bare verdict still leaves a readable report.
    const body = stripVerdict(answer) || `Verdict: ${String(verdict?.verdict ?? '')}${typeof verdict?.feedback === 'string' ? `\n\n${verdict.feedback}` : ''}`;
    // Atomic: a link or FIFO left at the name is replaced, never written through.
    writeFileAtomicSync(artifactAbs, `${body}\n`);
  }
  const record = {
    step: name,
    role: persona.name,
    provider,
    model: model ?? persona.model,
    attempt,
    artifact,
    verdict,
    tokens,
    modelCalls,
    startedAt: started.toISOString(),
    durationMs: deps.now().getTime() - started.getTime(),
    commit: typeof verdict?.commit_hash === 'string' ? verdict.commit_hash : undefined,
    transcript: transcript ? path.relative(deps.root, transcript) : undefined,
  };
  return finishStep(def, state, record, deps);
}

/** devx's checks of a finished step's claims; also run alone when a paused step's checks are retried. */
export async function finishStep(def: WorkflowDef, state: WorkflowState, record: StepResult, deps: StepDeps): Promise<StepOutcome> {
  const verdict = record.verdict;
  let checkMessage: string | null;
  try {
    checkMessage = await checkClaims(def.steps[record.step].check, verdict, state, deps);
  } catch (err) {
    if (err instanceof MissingTestCommand || err instanceof TestCommandRefused) return { kind: 'check_blocked', record, reason: err.message };
    throw err;
  }
  if (checkMessage) return { kind: 'check_failed', record: { ...record, note: checkMessage.split('\n')[0] }, message: checkMessage };
  const word = typeof verdict?.verdict === 'string' ? verdict.verdict : null;
  const feedback = typeof verdict?.feedback === 'string' && verdict.feedback.trim() ? verdict.feedback.trim() : undefined;
  return { kind: 'done', record, word, feedback };
}

function readOrNull(file: string): string | null {
  return readRegularFileSync(file) ?? null;
}

function failure(r: HeadlessResult, name: string): StepOutcome | null {
  if (r.status === 'answered') return null;
  if (r.status === 'cancelled') return { kind: 'pause', reason: `cancelled during step ${name}`, cancelled: true };
  if (r.status === 'max_rounds') return { kind: 'pause', reason: `step ${name} used every tool round without answering` };
  const kind = r.error?.kind ? `${r.error.kind}: ` : '';
  return { kind: 'pause', reason: `step ${name} stopped: ${kind}${r.error?.message ?? r.status}` };
}

function problemWith(answer: string, verdict: unknown): string | null {
  if (!answer.trim()) return 'your answer was empty';
  if (verdict) {
    const v = readVerdict(answer, verdict as VerdictKind | string[]);
    if (!v.ok) return v.problem;
  }
  return null;
}

async function checkClaims(checks: string[], verdict: Record<string, unknown> | undefined, state: WorkflowState, deps: StepDeps): Promise<string | null> {
  const problems: string[] = [];
  if (checks.includes('commit') && state.git.branch) {
    const hash = String(verdict?.commit_hash ?? '');
    if (!(await commitOnBranch(deps.git, hash, state.git.branch, state.git.baseCommit))) {
      problems.push(
        `You reported commit ${hash}, but no such commit exists on branch ${state.git.branch} after the workflow started. Commit your change (git add, git commit) and report the hash git rev-parse HEAD prints.`,
      );
    }
  }
  if (checks.includes('tests')) {
    if (!deps.testCommand) throw new MissingTestCommand();
    const refused = await deps.vetTests(deps.testCommand);
    if (refused) throw new TestCommandRefused(refused);
    const t = await deps.runTests(deps.testCommand);
    if (!t.passed) {
      const claim = verdict?.tests_passed === true ? 'You reported that the tests pass, but they fail' : 'The tests fail';
      problems.push(`${claim}: devx ran \`${deps.testCommand.command}\` (exit ${t.exitCode ?? 'none'}):\n\n${t.output.trim()}`);
    }
  }
  return problems.length ? problems.join('\n\n') : null;
}

export class TestCommandRefused extends Error {}

export class MissingTestCommand extends Error {
  constructor() {
    super(
      'this step checks the tests, but the project has no test command devx can find; set "testCommand" in .devx/settings.json (or a package.json "test" script, pytest, a Makefile "test" target)',
    );
  }
}
