// What `devx workflow ...` does; its flags and help are in workflow.ts, which loads this on use.
import type { FlagValues } from '../command.js';
import { EXIT, UsageError } from '../shared.js';
import { createEngine } from '../../workflow/engineDeps.js';
import { findWorkflow, type LoadedWorkflows } from '../../workflow/loadWorkflows.js';
import { driveWorkflow, startWorkflow, WorkflowBusy, WorkflowError, type EngineDeps } from '../../workflow/runWorkflow.js';
import { approveWorkflow, cancelWorkflow, checkDefinition, isInterrupted, rejectWorkflow, reportedState, resumeWorkflow } from '../../workflow/controls.js';
import { ForeignStateError, listStates, readState, StateError, type WorkflowState } from '../../workflow/state.js';
import { setAsideLine } from '../../session/setAside.js';
import { WorkflowDefinitionError, type WorkflowDef } from '../../workflow/definition.js';
import { GitError } from '../../workflow/git.js';
import { PersonaError } from '../../personas/loadAgents.js';
import { createProgress, renderLog, renderStatus } from '../renderWorkflow.js';
import { readTaskInputAt } from '../../clarify/nextTask.js';
import { TaskFileError } from '../../clarify/taskFiles.js';
import { escapeControls, printableJson } from '../../util/terminalText.js';

const DEFAULT_WORKFLOW = 'dev-pipeline';

interface Flags {
  mode?: string;
  gate?: string;
  'no-merge'?: boolean;
  'from-task'?: string;
  feedback?: string;
  json?: boolean;
}

/** What the subcommands share: the engine's parts, the progress shown on stderr, and the abort of a running step. */
interface WorkflowCli {
  values: Flags;
  rest: string[];
  deps: EngineDeps;
  loaded: LoadedWorkflows;
  progress: ReturnType<typeof createProgress>;
  abort: AbortController;
}

async function workflowMain(values: Flags, positionals: string[], usage: string): Promise<number> {
  const [sub, ...rest] = positionals;
  const abort = new AbortController();
  const progress = createProgress(process.stderr, process.env);
  const engine = createEngine({ cwd: process.cwd(), env: process.env, signal: abort.signal, onEvent: progress.onEvent, onAgentEvent: progress.onAgentEvent });
  const { deps, loaded } = engine;
  for (const w of engine.warnings) process.stderr.write(`devx: warning: ${escapeControls(w)}\n`);
  const aside = ['run', 'resume', 'approve', 'reject'].includes(sub ?? '') ? setAsideLine(deps.root) : null;
  if (aside) process.stderr.write(`devx: warning: ${escapeControls(aside)}\n`);
  const cli: WorkflowCli = { values, rest, deps, loaded, progress, abort };
  switch (sub) {
    case 'list':
      return listWorkflows(loaded, values.json);
    case 'run':
      return runNamedWorkflow(cli);
    case 'status':
      return showStatus(cli);
    case 'resume': {
      const id = idArg(rest, 'resume');
      const def = definitionOf(cli, readState(deps.root, id));
      return drive(cli, () => resumeWorkflow(def, id, deps));
    }
    case 'approve': {
      const id = idArg(rest, 'approve');
      const def = definitionOf(cli, readState(deps.root, id));
      return drive(cli, () => approveWorkflow(def, id, deps));
    }
    case 'reject': {
      const id = idArg(rest, 'reject');
      if (!values.feedback?.trim()) throw new UsageError('usage: devx workflow reject <id> --feedback "what must change"');
      const def = definitionOf(cli, readState(deps.root, id));
      return drive(cli, () => rejectWorkflow(def, id, values.feedback!, deps));
    }
    case 'cancel': {
      const s = await cancelWorkflow(deps.root, idArg(rest, 'cancel'), deps.now);
      process.stdout.write(escapeControls(`Workflow ${s.id} is cancelled.${s.git.branch ? ` Its branch ${s.git.branch} is kept.` : ''}\n`));
      return EXIT.ok;
    }
    case 'log': {
      process.stdout.write(escapeControls(renderLog(readState(deps.root, idArg(rest, 'log')))));
      return EXIT.ok;
    }
    default:
      throw new UsageError(usage);
  }
}

function idArg(rest: string[], what: string): string {
  if (rest.length !== 1) throw new UsageError(`usage: devx workflow ${what} <id>`);
  return rest[0];
}

/** Drives a workflow until it ends or pauses; Ctrl-C or SIGTERM stops the running step, and the state keeps the last completed one. */
async function drive(cli: WorkflowCli, fn: () => Promise<WorkflowState>): Promise<number> {
  const { abort, progress } = cli;
  const stop = () => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const s = await fn();
    progress.done(s);
    if (abort.signal.aborted) return EXIT.cancelled;
    return s.status === 'done' || (s.status === 'paused' && s.gate) ? EXIT.ok : EXIT.failed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    progress.stop();
  }
}

/** The definition a state was started from, with a warning when it changed since. */
function definitionOf(cli: WorkflowCli, s: WorkflowState): WorkflowDef {
  const def = findWorkflow(cli.loaded, s.workflow);
  const changed = checkDefinition(def, s);
  if (changed) process.stderr.write(`devx: warning: ${escapeControls(changed)}\n`);
  return def;
}

function listWorkflows(loaded: LoadedWorkflows, json?: boolean): number {
  if (json) {
    process.stdout.write(
      `${printableJson(
        [...loaded.workflows.values()].map((d) => ({
          name: d.name,
          scope: d.scope,
          file: d.file,
          description: d.description,
          modes: d.modes,
          steps: Object.keys(d.steps),
        })),
        2,
      )}\n`,
    );
  } else {
    // A workflow file's names and description are the repository's text.
    for (const d of loaded.workflows.values()) {
      const modes = Object.entries(d.modes)
        .map(([m, s]) => `${m} (${s})`)
        .join(', ');
      const steps = Object.entries(d.steps)
        .map(([n, s]) => `${n}:${s.role}`)
        .join(' ');
      process.stdout.write(
        escapeControls(
          `${d.name.padEnd(16)} ${d.scope.padEnd(8)} ${d.description}\n${modes ? `${''.padEnd(25)} modes: ${modes}\n` : ''}${''.padEnd(25)} steps: ${steps}\n`,
        ),
      );
    }
  }
  for (const e of loaded.errors) process.stderr.write(`devx: ${escapeControls(e.message)}\n`);
  return loaded.errors.length ? EXIT.failed : EXIT.ok;
}

/** `devx workflow run [<name>] "<request>"` (or --from-task): starts the workflow and drives it. */
async function runNamedWorkflow(cli: WorkflowCli): Promise<number> {
  const { values, rest, deps } = cli;
  let name = DEFAULT_WORKFLOW;
  let words = rest;
  if (rest.length > 1 || (rest.length === 1 && values['from-task'])) [name, ...words] = rest;
  let request = words.join(' ').trim();
  if (values['from-task']) {
    const task = readTaskInputAt(values['from-task']);
    request = request ? `${request}\n\n${task}` : task;
  }
  if (!request) throw new UsageError('usage: devx workflow run [<name>] [--mode M] "<request>"');
  const def = findWorkflow(cli.loaded, name);
  const gates = values.gate
    ? values.gate
        .split(',')
        .map((g) => g.trim())
        .filter(Boolean)
    : [];
  const mode = values.mode ?? (values['from-task'] && def.modes.direct ? 'direct' : undefined);
  const state = await startWorkflow(def, { request, mode, gates, merge: !values['no-merge'] }, deps);
  cli.progress.started(state, def);
  return drive(cli, () => driveWorkflow(def, state, deps));
}

function showStatus(cli: WorkflowCli): number {
  const { values, rest, deps, loaded } = cli;
  if (rest.length > 1) throw new UsageError('usage: devx workflow status [<id>] [--json]');
  const states = rest.length ? [readState(deps.root, rest[0])] : listStates(deps.root);
  // A state left `running` by a killed orchestrator is reported as interrupted, with how to go on.
  const shown = states.map((s) => reportedState(deps.root, s));
  if (values.json) process.stdout.write(`${printableJson(rest.length ? shown[0] : shown, 2)}\n`);
  else if (!states.length) process.stdout.write('No workflows yet; start one with devx workflow run --mode bugfix "..."\n');
  else
    for (const s of states)
      process.stdout.write(`${escapeControls(renderStatus(s, loaded.workflows.get(s.workflow), deps.root, rest.length > 0, isInterrupted(deps.root, s)))}\n`);
  return EXIT.ok;
}

export async function runWorkflowCommand(values: FlagValues, positionals: string[], usage: string): Promise<number> {
  try {
    return await workflowMain(values as Flags, positionals, usage);
  } catch (err) {
    if (err instanceof WorkflowBusy) {
      process.stderr.write(`devx: ${escapeControls(err.message)}\n`);
      return EXIT.busy;
    }
    if (err instanceof ForeignStateError) {
      process.stderr.write(`devx: ${escapeControls(err.message)}\n`);
      return EXIT.usage;
    }
    if (err instanceof TaskFileError) {
      process.stderr.write(`devx: ${escapeControls(err.message)}\n`);
      return err.exitCode;
    }
    if (
      err instanceof WorkflowError ||
      err instanceof StateError ||
      err instanceof GitError ||
      err instanceof WorkflowDefinitionError ||
      err instanceof PersonaError
    ) {
      process.stderr.write(`devx: ${escapeControls(err.message)}\n`);
      return EXIT.failed;
    }
    throw err;
  }
}
