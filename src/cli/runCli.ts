import { parseArgs } from 'node:util';
import { HELP } from './help.js';
import { ConfigError } from '../config/settings.js';
import { INSTALL_HINT } from '../backend/geminiCli.js';
import type { Agent } from './createAgent.js';
import { findExecutable } from '../util/findExecutable.js';
import { APPROVAL_MODES, type ApprovalMode } from '../policy/decide.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, missingBinary: 3, cancelled: 130 } as const;

export class UsageError extends Error {}

const OPTIONS = {
  model: { type: 'string', short: 'm' },
  'fallback-model': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'max-rounds': { type: 'string' },
  json: { type: 'boolean' },
  'approval-mode': { type: 'string' },
  resume: { type: 'string' },
  agent: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export type CliFlags = {
  model?: string;
  'fallback-model'?: string;
  yes?: boolean;
  'max-rounds'?: string;
  json?: boolean;
  'approval-mode'?: string;
};

export function approvalModeFrom(flags: CliFlags): ApprovalMode | undefined {
  const m = flags['approval-mode'];
  if (m === undefined) return undefined;
  const norm = m.replace('_', '-') as ApprovalMode;
  if (!APPROVAL_MODES.includes(norm)) throw new UsageError(`--approval-mode takes one of ${APPROVAL_MODES.join(', ')}; got "${m}"`);
  return norm;
}

/** Fails fast, before the first turn, when the gemini binary (or an account wrapper) is missing. */
export function checkBinaries(agent: Agent, env: NodeJS.ProcessEnv): string | null {
  const bins = [agent.settings.geminiBin, ...agent.settings.accounts.flatMap((a) => (a.command ? [a.command[0]] : []))];
  for (const bin of bins) {
    if (!findExecutable(bin, env)) return `devx: cannot find "${bin}". ${INSTALL_HINT}`;
  }
  return null;
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

export function overridesFrom(flags: CliFlags) {
  const rounds = flags['max-rounds'];
  if (rounds !== undefined && !/^\d+$/.test(rounds)) throw new UsageError(`--max-rounds takes a whole number, got "${rounds}"`);
  return {
    model: flags.model,
    fallbackModel: flags['fallback-model'],
    maxToolRounds: rounds ? Number(rounds) : undefined,
  };
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    argv = normalizeResume(argv);
    const first = argv.find((a) => !a.startsWith('-'));
    const ownFlags = ['policy', 'audit', 'trust', 'sessions', 'handoff', 'memory', 'agent'].includes(first ?? '');
    const { values, positionals } = parseArgs({ args: ownFlags ? [first!] : argv, options: OPTIONS, allowPositionals: true, strict: true });
    if (values.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    if (values.version) {
      const { packageVersion } = await import('../util/packageRoot.js');
      process.stdout.write(`devx ${packageVersion()}\n`);
      return EXIT.ok;
    }
    const [command, ...rest] = positionals;
    // Sub-commands with their own flags parse their own argv.
    const sub = argv.slice(argv.indexOf(command ?? '') + 1);
    if (command === 'policy') return await (await import('./policyCommand.js')).runPolicyCommand(sub);
    if (command === 'audit') return await (await import('./auditCommand.js')).runAuditCommand(sub);
    if (command === 'trust') return await (await import('./trustCommand.js')).runTrustCommand(sub);
    if (command === 'sessions') return await (await import('./sessionsCommand.js')).runSessionsCommand(sub);
    if (command === 'handoff') return await (await import('./handoffCommand.js')).runHandoffCommand(sub);
    if (command === 'agent') return await (await import('./agentCommand.js')).runAgentCommand(sub);
    if (command === 'memory') return await (await import('./memoryCommand.js')).runMemoryCommand(sub);
    if (command === 'protocol') {
      const { runProtocolCommand } = await import('./protocolCommand.js');
      return await runProtocolCommand(rest);
    }
    if (command === 'run') {
      const { runHeadless } = await import('./runHeadless.js');
      if (rest.length === 0) throw new UsageError('devx run needs a prompt: devx run "fix the failing test"');
      return await runHeadless(rest.join(' '), values);
    }
    if (command !== undefined) throw new UsageError(`unknown command "${command}". See devx --help.`);
    const { runRepl } = await import('./repl.js');
    return await runRepl(values);
  } catch (err) {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code?.startsWith?.('ERR_PARSE_ARGS')) {
      process.stderr.write(`devx: ${(err as Error).message}\n`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`devx: bad settings: ${err.message}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}
