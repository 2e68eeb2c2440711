// What every command shares: exit codes, usage errors, the session flags and the session block.
import path from 'node:path';
import type { Writable } from 'node:stream';
import { APPROVAL_MODES, type ApprovalMode } from '../policy/decide.js';
import { SessionBusyError, startSession, type Started } from '../runtime/startSession.js';
import type { ApprovalRequest, PersonAnswer } from '../tools/runToolCall.js';
import { flagTable, type CliIo } from './command.js';
import { escapeControls } from '../util/terminalText.js';

/** Exit codes (docs/using.md's table and `devx --help` list them): 5 is a queue database whose schema is not the one this devx needs. */
export const EXIT = { ok: 0, failed: 1, usage: 2, missingBinary: 3, busy: 4, queueSchema: 5, cancelled: 130 } as const;

export class UsageError extends Error {}

/** Flags of every command that starts an agent. */
export const AGENT_FLAGS = flagTable(`
  -m, --model <name>           model (default: settings "model", else the provider's default)
      --provider <id>          model provider (default: settings "provider", else gemini)
      --fallback-model <name>  model to use once every account is out of quota
  -y, --yes                    approve every action that would ask (= --approval-mode yolo; a deny stays a deny)
      --approval-mode <mode>   ${APPROVAL_MODES.join(' | ')}
      --max-rounds <n>         tool rounds per turn before stopping (default 25)
      --add-dir <dirs>         folders outside the project the model may read (comma-separated; = permissions.additionalDirectories)
`);

export interface AgentFlagValues {
  model?: string;
  provider?: string;
  'fallback-model'?: string;
  yes?: boolean;
  'approval-mode'?: string;
  'max-rounds'?: string;
  'add-dir'?: string;
}

export function approvalModeFrom(flags: { 'approval-mode'?: string }): ApprovalMode | undefined {
  const m = flags['approval-mode'];
  if (m === undefined) return undefined;
  const norm = m.replace('_', '-') as ApprovalMode;
  if (!APPROVAL_MODES.includes(norm)) throw new UsageError(`--approval-mode takes one of ${APPROVAL_MODES.join(', ')}; got "${m}"`);
  return norm;
}

export function overridesFrom(flags: AgentFlagValues) {
  const rounds = flags['max-rounds'];
  if (rounds !== undefined && !/^\d+$/.test(rounds)) throw new UsageError(`--max-rounds takes a whole number, got "${rounds}"`);
  return {
    model: flags.model,
    provider: flags.provider,
    fallbackModel: flags['fallback-model'],
    maxToolRounds: rounds ? Number(rounds) : undefined,
    ...(flags['add-dir']
      ? {
          permissions: {
            additionalDirectories: flags['add-dir']
              .split(',')
              .map((d) => path.resolve(d.trim()))
              .filter(Boolean),
          },
        }
      : {}),
  };
}

/**
 * Starts a session for a command, runs `fn`, and always releases it: a busy project is exit 4, a
 * missing provider binary exit 3, and settings warnings are printed first.
 */
export async function withSession(
  flags: AgentFlagValues,
  io: {
    info: Writable;
    prompt?: (req: ApprovalRequest) => Promise<PersonAnswer>;
    stream?: boolean;
    /** The REPL: MCP servers go on starting while the person types (their warnings come with the first turn). */
    lazyTools?: boolean;
    /** 'fresh': the model starts with an empty conversation (one-shot runs without --continue or --resume). */
    history?: 'project' | 'fresh';
    /** The command may not call the model (devx's own slash command): a missing model CLI does not stop it. */
    modelOptional?: boolean;
    /** Where the session runs (cwd, environment) and the model it talks to, when not the process's own. */
    where?: CliIo;
  },
  fn: (s: Started) => Promise<number>,
): Promise<number> {
  let s: Started;
  try {
    s = await startSession({
      cwd: io.where?.cwd ?? process.cwd(),
      env: io.where?.env ?? process.env,
      backend: io.where?.backend,
      overrides: overridesFrom(flags),
      yes: flags.yes,
      approvalMode: approvalModeFrom(flags),
      prompt: io.prompt,
      stream: io.stream,
      history: io.history,
    });
  } catch (err) {
    if (!(err instanceof SessionBusyError)) throw err;
    io.info.write(`devx: ${escapeControls(err.message)}\n`);
    return EXIT.busy;
  }
  try {
    // Warnings quote settings, agent files and MCP servers' errors: shown, never obeyed.
    for (const w of s.run.agent.warnings) io.info.write(`devx: warning: ${escapeControls(w)}\n`);
    if (!io.lazyTools) for (const w of await s.run.ready()) io.info.write(`devx: warning: ${escapeControls(w)}\n`);
    const missing = s.run.agent.missingBinary();
    if (missing && !io.modelOptional) {
      io.info.write(`${escapeControls(missing)}\n`);
      return EXIT.missingBinary;
    }
    return await fn(s);
  } finally {
    s.session.abandon();
    await s.run.dispose();
  }
}

const SESSION_ID = /^(\d{8}-\d{6}-[0-9a-f]{4}|[0-9a-f]{4}|latest)$/;

/** `--resume` takes an optional session id: `devx --resume`, `devx --resume <id>`, `devx run --resume "task"`. */
export function normalizeResume(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== '--resume') {
      out.push(argv[i]);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && SESSION_ID.test(next)) {
      out.push(`--resume=${next}`);
      i++;
    } else out.push('--resume=latest');
  }
  return out;
}
