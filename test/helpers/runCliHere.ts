// devx's command line run in this process (runCli), with the working directory, environment and model given and
// its output captured: the command's own code path, without a devx process or a model CLI's start. A test that
// is about the binary or the model CLI runs them (env.ts runDevx); one about what a command does with the
// project's state can run here.
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/runCli.js';
import type { ModelBackend } from '../../src/providers/types.js';
import { ScriptedBackend, type ScriptedReply } from '../../src/providers/scripted.js';
import { inProcessEnv } from './env.js';

export interface HereRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it, as a non-terminal stream (no isTTY: no spinner, no colours). */
function capture(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/** The commands that take their working directory, environment, streams and model from runCli's io. */
const TAKE_IO = new Set(['run', 'agent', 'task']);

/** `devx …` here with a scripted model replying `replies` in turn (then 'Done.'): the run and the model it was sent to. */
export async function runScripted(
  argv: string[],
  opts: { cwd: string; home: string; replies?: ScriptedReply[]; env?: Record<string, string> },
): Promise<HereRun & { model: ScriptedBackend }> {
  const model = new ScriptedBackend([...(opts.replies ?? []), 'Done.', 'Done.']);
  const r = await runCliHere(argv, { cwd: opts.cwd, env: inProcessEnv(opts.home, opts.env), backend: model });
  return { ...r, model };
}

export async function runCliHere(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; backend: ModelBackend }): Promise<HereRun> {
  // Another command would run in this process's own folder and environment: the test's, not the project's.
  // --help is answered from the command table before any command runs, wherever it is asked.
  if (!TAKE_IO.has(argv[0]) && !argv.some((a) => a === '--help' || a === '-h'))
    throw new Error(`runCliHere runs only ${[...TAKE_IO].join(', ')}; devx ${argv[0]} runs as a process (runDevx)`);
  const out = capture();
  const err = capture();
  // Who owns the project's devx state (session/ownerId) is read from the process's HOME in places, not from the
  // session's environment: the run borrows the given HOME, as a devx process started with it would have.
  const home = process.env.HOME;
  process.env.HOME = opts.env.HOME;
  try {
    const code = await runCli(argv, { cwd: opts.cwd, env: opts.env, stdout: out.stream, stderr: err.stream, backend: opts.backend });
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    process.env.HOME = home;
  }
}
