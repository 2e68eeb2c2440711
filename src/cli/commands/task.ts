// `devx task new|next`: the clarification flow over a task folder. Separate from
// `devx agent`, which owns the agent task queue.
import { defineCommand, ioOf, pickFlags, subcommandTable } from '../command.js';
import { AGENT_FLAGS, approvalModeFrom, EXIT, UsageError } from '../shared.js';
import { findProjectRoot } from '../../config/paths.js';
import { createTask, openTaskFolder, TaskFileError } from '../../clarify/taskFiles.js';
import { PersonaError } from '../../personas/loadAgents.js';
import { createRenderer } from '../renderEvents.js';
import { escapeControls } from '../../util/terminalText.js';
import type { HeadlessOptions } from '../../runtime/runHeadless.js';

const SUBCOMMANDS = subcommandTable(`
new | task new <folder> "<description>" | create the task folder and its task_description.md (never overwrites one)
next | task next <folder> | the next step by task_status.md: context research, Q&A, or what you should do
input | task input <folder> | a READY_FOR_PRD task as one Markdown text (description, context, answered Q&A)
`);

export const taskCommand = defineCommand({
  name: 'task',
  summary: 'the clarification flow over a task folder: new, next (context research, then questions you answer in a file)',
  usage: SUBCOMMANDS.map((c) => c.usage),
  flags: pickFlags(AGENT_FLAGS, 'model', 'provider', 'yes', 'approval-mode'),
  subcommands: SUBCOMMANDS,
  async run({ values, positionals }, cli) {
    const [sub, folder, ...rest] = positionals;
    const io = ioOf(cli);
    const root = findProjectRoot(io.cwd);
    // The flow's agents and runtime load only when a task command runs.
    const { defaultStepDeps, nextTaskStep, readTaskInput } = await import('../../clarify/nextTask.js');
    try {
      switch (sub) {
        case 'new': {
          if (!folder || rest.length !== 1) throw new UsageError('usage: devx task new <folder> "<description>"');
          const t = createTask(root, folder, rest[0], io.cwd);
          io.stdout.write(`Created ${t.relFile('description')}. Next: devx task next ${t.rel}\n`);
          return EXIT.ok;
        }
        case 'next': {
          if (!folder || rest.length) throw new UsageError('usage: devx task next <folder>');
          const t = openTaskFolder(root, folder, io.cwd);
          const render = createRenderer({ out: io.stderr, answerOut: null, env: io.env });
          // A model given to the command line's io (an in-process run) answers every step, the sub-agents' too.
          const model = io.backend;
          const r = await nextTaskStep(
            t,
            defaultStepDeps({
              cwd: io.cwd,
              env: io.env,
              ...(model ? { run: async (o: HeadlessOptions) => (await import('../../runtime/runHeadless.js')).runHeadless({ ...o, backend: model }) } : {}),
              approval: values.yes ? 'yolo' : approvalModeFrom(values as { 'approval-mode'?: string }),
              model: values.model as string | undefined,
              provider: values.provider as string | undefined,
              onEvent: render.onEvent,
            }),
          );
          for (const w of r.warnings) io.stderr.write(`devx: warning: ${escapeControls(w)}\n`);
          (r.code === 0 ? io.stdout : io.stderr).write(`${r.code === 0 ? '' : 'devx: '}${escapeControls(r.message)}\n`);
          return r.code;
        }
        case 'input': {
          if (!folder || rest.length) throw new UsageError('usage: devx task input <folder>');
          // Byte for byte into a pipe (another agent's input); shown, never obeyed, on a terminal.
          const input = readTaskInput(openTaskFolder(root, folder, io.cwd));
          io.stdout.write(io.stdout.isTTY ? escapeControls(input) : input);
          return EXIT.ok;
        }
        default:
          throw new UsageError(`usage:\n${SUBCOMMANDS.map((c) => `  devx ${c.usage}`).join('\n')}`);
      }
    } catch (err) {
      if (err instanceof TaskFileError) {
        io.stderr.write(`devx: ${escapeControls(err.message)}\n`);
        return err.exitCode;
      }
      if (err instanceof PersonaError) throw new UsageError(err.message);
      throw err;
    }
  },
});
