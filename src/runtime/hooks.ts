// Running hooks (config/hookSettings.ts), with Claude Code's contract (Gemini CLI's is the same in its own
// names): the moment as JSON on stdin, with the fields each tool sends (session_id, transcript_path, cwd,
// permission_mode, hook_event_name, tool_use_id…) and devx's own beside them; exit 0 goes on (stdout may
// be JSON with a decision, or, for UserPromptSubmit and SessionStart, text added as context); exit 2
// blocks, its stderr the reason; any other exit is a hook error shown to the user, and the session goes
// on. A hook that hangs is killed at its timeout and counts as an error. Every run is reported as a `hook`
// event (shown in the REPL, written to the audit log).
import type { AgentEvent } from '../core/loop.js';
import type { HookDialect, HookEntry, HookEvent } from '../config/hookSettings.js';
import type { ApprovalMode } from '../policy/types.js';
import type { ProcessRunner } from '../util/processRunner.js';
import type { Tool } from '../tools/types.js';
import type { ToolHooks } from '../tools/runToolCall.js';
import { randomUUID } from 'node:crypto';
import { commandEnv } from '../tools/commandEnv.js';
import { bashArgs } from '../util/bashLine.js';

export interface HookVerdict {
  /** A hook blocked: why (for the model or the user). */
  block?: string;
  /** PreToolUse: a hook approved the call (an ask is then answered as a mode's approval would be). */
  allow?: boolean;
  /** PreToolUse: a hook asks for the person's confirmation even where the policy allows. */
  ask?: string;
  /** PreToolUse: the arguments the call runs with instead. */
  updatedInput?: Record<string, unknown>;
  /** Text hooks add for the model (UserPromptSubmit, SessionStart, PostToolUse). */
  context: string[];
}

/** Claude Code's names for devx's arguments, so scripts written for it read tool_input.command, file_path… */
const CLAUDE_ARGS: Record<string, string> = { cmd: 'command', path: 'file_path', old_text: 'old_string', new_text: 'new_string' };

export function claudeToolInput(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  for (const [ours, theirs] of Object.entries(CLAUDE_ARGS)) if (ours in args) out[theirs] = args[ours];
  return out;
}

/** A hook's updatedInput back in devx's argument names (either spelling is accepted). */
export function fromClaudeInput(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const back = Object.fromEntries(Object.entries(CLAUDE_ARGS).map(([a, b]) => [b, a]));
  for (const [k, v] of Object.entries(input)) if (v !== undefined && v !== null) out[back[k] ?? k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** Gemini CLI's names for devx's tools, so a Gemini hook's matcher and script see its own (run_shell_command…). */
const GEMINI_TOOLS: Record<string, string> = {
  run_command: 'run_shell_command',
  edit_file: 'replace',
  search_code: 'search_file_content',
  list_directory: 'list_directory',
  read_file: 'read_file',
  write_file: 'write_file',
  glob: 'glob',
  web_fetch: 'web_fetch',
};

/** devx has no reasoning-effort setting: hooks that read Claude Code's `effort` see its default. */
const CLAUDE_EFFORT = { level: 'medium' };

/** Claude Code's names for the approval modes (its permission_mode). */
const PERMISSION_MODES: Record<ApprovalMode, string> = { default: 'default', 'auto-edit': 'acceptEdits', yolo: 'bypassPermissions', plan: 'plan' };

/** The tool's name as a hook of this dialect knows it. */
function toolNameFor(dialect: HookDialect, tool: Pick<Tool, 'name' | 'aliases'>): string {
  return dialect === 'gemini' ? (GEMINI_TOOLS[tool.name] ?? tool.name) : (tool.aliases?.[0] ?? tool.name);
}

function matches(matcher: string | undefined, tool: Pick<Tool, 'name' | 'aliases'> | undefined, dialect: HookDialect): boolean {
  if (!tool || !matcher || matcher === '*') return true;
  const names = [tool.name, ...(tool.aliases ?? []), toolNameFor(dialect, tool)];
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${matcher})$`);
  } catch {
    return names.includes(matcher);
  }
  return names.some((n) => re.test(n));
}

export class HookRunner {
  constructor(
    private readonly hooks: HookEntry[],
    private readonly deps: {
      root: string;
      /** Where the hooks' commands start: the project, or outside one that is not trusted (util/untrustedWorkDir.ts). */
      workDir?: string;
      runner: ProcessRunner;
      session: () => string;
      env: NodeJS.ProcessEnv;
      emit: (e: AgentEvent) => void;
      /** The approval mode now (Claude Code's permission_mode). */
      mode?: () => ApprovalMode;
      /** The session's conversation file (transcript_path). */
      transcript?: () => string;
    },
  ) {}

  has(event: HookEvent): boolean {
    return this.hooks.some((h) => h.event === event);
  }

  /** The person's current message (Claude Code's prompt_id): every hook from it to the next one names it. */
  private promptId: string | undefined;

  /** A new message from the person begins. */
  newPrompt(): void {
    this.promptId = randomUUID();
  }

  /** What a hook reads on stdin: the fields its own tool sends, then the moment's (with devx's extras). */
  private inputFor(h: HookEntry, payload: Record<string, unknown>, tool?: Pick<Tool, 'name' | 'aliases'>): Record<string, unknown> {
    const base = {
      session_id: this.deps.session(),
      transcript_path: this.deps.transcript?.() ?? '',
      cwd: this.deps.root,
      ...(h.dialect === 'claude'
        ? { ...(this.promptId ? { prompt_id: this.promptId } : {}), permission_mode: PERMISSION_MODES[this.deps.mode?.() ?? 'default'], effort: CLAUDE_EFFORT }
        : { timestamp: new Date().toISOString() }),
      hook_event_name: h.name,
    };
    return { ...base, ...payload, ...(tool ? { tool_name: toolNameFor(h.dialect, tool), devx_tool_name: tool.name } : {}) };
  }

  /** Runs the hooks of `event` that match `tool` (for tool events), in order; the first block wins. */
  async run(event: HookEvent, payload: Record<string, unknown>, tool?: Pick<Tool, 'name' | 'aliases'>, signal?: AbortSignal): Promise<HookVerdict> {
    const verdict: HookVerdict = { context: [] };
    for (const h of this.hooks) {
      if (h.event !== event || !matches(h.matcher, tool, h.dialect)) continue;
      const input = JSON.stringify(this.inputFor(h, payload, tool));
      const r = await this.deps.runner('bash', bashArgs(h.command), {
        cwd: this.deps.workDir ?? this.deps.root,
        input,
        timeoutMs: h.timeoutSec * 1000,
        signal,
        env: { ...commandEnv(this.deps.env, this.deps.root), ...h.env, CLAUDE_PROJECT_DIR: this.deps.root, DEVX_PROJECT_DIR: this.deps.root },
        extendEnv: false,
        maxBuffer: 1024 * 1024,
        reapGroup: true,
      });
      const report = (outcome: 'ok' | 'blocked' | 'error', message?: string) =>
        this.deps.emit({
          type: 'hook',
          event,
          command: h.command,
          file: h.file,
          tool: tool?.name,
          outcome,
          exitCode: r.exitCode,
          durationMs: r.durationMs,
          ...(message ? { message } : {}),
        });
      if (r.timedOut || r.cancelled || (r.exitCode !== 0 && r.exitCode !== 2)) {
        report(
          'error',
          r.timedOut
            ? `killed after its ${h.timeoutSec}s timeout`
            : r.cancelled
              ? 'cancelled'
              : `exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(0, 300)}`,
        );
        continue;
      }
      if (r.exitCode === 2) {
        const why = r.stderr.trim() || `a ${event} hook blocked it`;
        report('blocked', why);
        return { ...verdict, block: why };
      }
      const out = r.stdout.trim();
      let json: Record<string, unknown> | null = null;
      if (out.startsWith('{')) {
        try {
          json = JSON.parse(out) as Record<string, unknown>;
        } catch {
          json = null;
        }
      }
      if (!json) {
        if (out && (event === 'UserPromptSubmit' || event === 'SessionStart')) verdict.context.push(out);
        report('ok');
        continue;
      }
      const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>;
      const decision = String(specific.permissionDecision ?? json.decision ?? '');
      const reason = String(specific.permissionDecisionReason ?? json.reason ?? json.stopReason ?? '');
      if (typeof specific.additionalContext === 'string') verdict.context.push(specific.additionalContext);
      if (decision === 'block' || decision === 'deny' || json.continue === false) {
        const why = reason || `a ${event} hook blocked it`;
        report('blocked', why);
        return { ...verdict, block: why };
      }
      if (decision === 'approve' || decision === 'allow') verdict.allow = true;
      if (decision === 'ask') verdict.ask = reason || 'a PreToolUse hook asks for confirmation';
      if (specific.updatedInput && typeof specific.updatedInput === 'object') verdict.updatedInput = specific.updatedInput as Record<string, unknown>;
      report('ok');
    }
    return verdict;
  }
}

/** What a tool returned, as Claude Code's Bash hook sees it (stdout, stderr…) and as devx has it (status, content). */
function toolResponse(result: { status: 'ok' | 'error'; content: string }): Record<string, unknown> {
  const content = result.content.slice(0, 100_000);
  const m = /^[\s\S]*?stdout:\n([\s\S]*?)(?:\nstderr:\n([\s\S]*))?$/.exec(content);
  const command = m
    ? { stdout: m[1].replace(/\n$/, ''), stderr: (m[2] ?? '').replace(/\n$/, ''), interrupted: false, isImage: false, noOutputExpected: false }
    : {};
  return { ...command, status: result.status, content };
}

/** PreToolUse and PostToolUse (PostToolUseFailure when the call failed) as the tool wrapper calls them. */
export function toolHooks(h: HookRunner): ToolHooks {
  return {
    async pre(tool, args, callId) {
      if (!h.has('PreToolUse')) return {};
      const v = await h.run('PreToolUse', { tool_input: claudeToolInput(args), tool_use_id: callId }, tool);
      return { block: v.block, allow: v.allow, ask: v.ask, updatedInput: v.updatedInput ? fromClaudeInput(v.updatedInput) : undefined };
    },
    async post(tool, args, result, callId) {
      const event = result.status === 'ok' || !h.has('PostToolUseFailure') ? 'PostToolUse' : 'PostToolUseFailure';
      if (!h.has(event)) return { context: [] };
      const payload = {
        tool_input: claudeToolInput(args),
        tool_use_id: callId,
        tool_response: toolResponse(result),
        duration_ms: result.durationMs,
        ...(result.status === 'error' ? { error: result.content.split('\n')[0] } : {}),
      };
      const v = await h.run(event, payload, tool);
      return { block: v.block, context: v.context };
    },
  };
}
