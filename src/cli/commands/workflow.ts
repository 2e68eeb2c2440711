// `devx workflow ...`: multi-phase workflows (the dev pipeline, or a project's own),
// each step a fresh headless run, state in .devx/workflows/<id>/state.json. The implementation is in
// workflowMain.ts, loaded when the command runs.
import { defineCommand, flagTable, subcommandTable } from '../command.js';

export const SUBCOMMANDS = subcommandTable(`
list | workflow list [--json] | the workflow definitions (devx's, yours, the project's) and their steps
run | workflow run [<name>] [--mode M] [--gate STEP] [--no-merge] [--from-task DIR] "<request>" | start a workflow on a new task branch and run it
status | workflow status [<id>] [--json] | every workflow, or one: the step graph, where it stands, durations and tokens
resume | workflow resume <id> | go on from the last completed step (after Ctrl-C, a crash or a pause)
approve | workflow approve <id> | pass the gate the workflow waits at, and go on
reject | workflow reject <id> --feedback "..." | send the gated (or capped) step back with your feedback
cancel | workflow cancel <id> | stop a workflow for good (a running orchestrator is stopped first)
log | workflow log <id> | each step's role, model, verdict, commit and transcript
`);

export const workflowCommand = defineCommand({
  name: 'workflow',
  summary: 'multi-phase workflows: list, run, status, resume, approve, reject, cancel, log',
  usage: SUBCOMMANDS.map((c) => c.usage),
  flags: flagTable(`
      --mode <M>          run: where the pipeline starts (dev-pipeline: bugfix, research, direct)
      --gate <STEP>       run: pause after this step for approval (comma-separated for several)
      --no-merge          run: leave the task branch for review instead of merging it back
      --from-task <DIR>   run: the request is a task folder whose Q&A is READY_FOR_PRD (devx task)
      --feedback <TEXT>   reject: what must change
      --json              list, status: machine-readable output
`),
  subcommands: SUBCOMMANDS,
  async run({ values, positionals }) {
    // The engine loads only when a workflow command runs (start-up of other commands stays light).
    const { runWorkflowCommand } = await import('./workflowMain.js');
    return runWorkflowCommand(values, positionals, `usage:\n${SUBCOMMANDS.map((c) => `  devx ${c.usage}`).join('\n')}`);
  },
});
