// Wires one agent from settings: project root, backend, tools, policy, approvals, prompt builder.
// Shared by the REPL and `devx run`, so both behave the same.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { loadSettings, type ResolvedSettings, type Settings } from '../config/settings.js';
import { devxHome, findProjectRoot } from '../config/paths.js';
import { GeminiCliBackend } from '../backend/geminiCli.js';
import type { ModelBackend } from '../backend/types.js';
import { builtinTools } from '../tools/registry.js';
import type { Tool } from '../tools/types.js';
import { resolveInside } from '../sandbox/resolvePath.js';
import { decideToolCall } from '../policy/decide.js';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/runToolCall.js';
import { runProcess, type ProcessRunner } from '../util/processRunner.js';
import { buildPrompt } from '../agent/buildPrompt.js';
import { renderSystemPrompt } from '../agent/systemPrompt.js';
import type { LoopDeps } from '../agent/loop.js';
import type { Message } from '../agent/messages.js';
import { historyFile, loadHistory } from '../session/history.js';
import { readProjectNote } from '../session/projectFiles.js';

export interface AgentOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  /** Approve every `ask` without prompting (--yes). */
  yes?: boolean;
  /** Asks the person; absent in headless runs. */
  prompt?: (req: ApprovalRequest) => Promise<ApprovalAnswer>;
  backend?: ModelBackend;
  runner?: ProcessRunner;
}

export interface Agent {
  root: string;
  settings: ResolvedSettings;
  deps: LoopDeps;
  tools: Tool[];
  history: Message[];
  historyPath: string;
  warnings: string[];
  dispose(): void;
}

function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* keep looking */
    }
  }
  return null;
}

function approvalKey(req: ApprovalRequest): string {
  return req.tool === 'run_command' ? `run_command:${String(req.args.cmd)}` : req.tool;
}

export function createAgent(opts: AgentOptions): Agent {
  const root = findProjectRoot(opts.cwd);
  const home = devxHome(opts.env);
  const settings = loadSettings({ devxHome: home, projectRoot: root, env: opts.env, overrides: opts.overrides });
  const runner = opts.runner ?? runProcess;
  const workDir = path.join(home, 'run', `${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const backend =
    opts.backend ??
    new GeminiCliBackend({
      bin: settings.geminiBin,
      model: settings.model,
      fallbackModel: settings.fallbackModel,
      accounts: settings.accounts,
      workDir,
      timeoutMs: settings.geminiTimeoutMs,
      maxRetries: settings.maxRetries,
      baseDelayMs: settings.retryBaseMs,
      maxDelayMs: settings.retryMaxMs,
      runner,
    });
  const tools = builtinTools();
  const rgPath = opts.env.DEVX_RG === 'none' ? null : findOnPath('rg', opts.env);
  const always = new Set<string>();
  const approve = async (req: ApprovalRequest): Promise<ApprovalAnswer> => {
    if (opts.yes) return 'yes';
    if (always.has(approvalKey(req))) return 'yes';
    if (!opts.prompt) return 'headless';
    const answer = await opts.prompt(req);
    if (answer === 'always') always.add(approvalKey(req));
    return answer;
  };
  const loaded = loadHistory(historyFile(root));
  const warnings = [...settings.warnings, ...(loaded.warning ? [loaded.warning] : [])];
  const deps: LoopDeps = {
    backend,
    systemPrompt: renderSystemPrompt(root, tools),
    tools: new Map(tools.map((t) => [t.name, t])),
    ctx: {
      root,
      signal: new AbortController().signal,
      runner,
      resolve: (p) => resolveInside(root, p),
      rgPath,
      commandTimeoutMs: settings.commandTimeoutMs,
    },
    decide: (tool, args) => decideToolCall(tool, args, { root }),
    approve,
    maxOutputChars: settings.maxToolOutputChars,
    buildPrompt: (messages, turnStart) =>
      buildPrompt({
        memory: readProjectNote(root, 'MEMORY.md'),
        handoff: readProjectNote(root, 'HANDOFF.md'),
        messages,
        turnStart,
        budgetChars: settings.contextBudgetChars,
      }).text,
    maxRounds: settings.maxToolRounds,
    now: () => new Date(),
  };
  return {
    root,
    settings,
    deps,
    tools,
    history: loaded.messages,
    historyPath: historyFile(root),
    warnings,
    dispose: () => fs.rmSync(workDir, { recursive: true, force: true }),
  };
}
