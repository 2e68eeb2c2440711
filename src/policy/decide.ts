// The single decision point called before every tool call: allow | ask | deny, with the reason and
// the rule that matched. It combines the path policy, the command policy, the permission rules
// from settings, the approval mode and rate limits. Tools never check policy themselves.
import { decidePath, type PathIntent, type PathPolicyContext } from './pathPolicy.js';
import type { CommandJudge } from './loadCommandJudge.js';
import { matchToolRules, type PermissionRules } from './permissions.js';
import { RateLimiter } from './rateLimiter.js';
import { deniedUnder, isReadDenied, type DenyContext } from './deniedPaths.js';
import { applyWriteScope, type WriteScope } from './writeScope.js';
import { decideUrl } from './webRules.js';
import { ALLOW, ASK, DENY, settingsDecision, strictest, type PolicyDecision, type PolicyTool } from './types.js';
import { decisionInMode } from './authorize.js';

export type { Decision, PolicyDecision } from './types.js';

export type { ApprovalMode } from './types.js';
import type { ApprovalMode } from './types.js';
export const APPROVAL_MODES: ApprovalMode[] = ['default', 'auto-edit', 'yolo', 'plan'];

export interface PolicyOptions {
  root: string;
  home: string;
  devxHome: string;
  /** No person to ask: unknown commands are denied (asks are refused later, by approval). */
  headless: boolean;
  /** A working bubblewrap: allowed commands run inside it. */
  sandboxed: boolean;
  /** The user trusted the project (`devx trust`). */
  trusted?: boolean;
  /** The bash parser and the command rules (loadCommandJudge); without them every command is denied. Set later with useCommandJudge(). */
  commands: CommandJudge | null;
  permissions?: PermissionRules;
  /** Folders outside the project the user lets the model read (real paths). */
  additionalDirs?: string[];
  mode: ApprovalMode;
  rateLimits?: { toolCallsPerMinute: number; commandsPerMinute: number };
  now?: () => number;
  /** Set by limitWrites: the only paths this run may write (a queued task). */
  writeScope?: WriteScope;
}

export class PolicyEngine {
  private readonly calls: RateLimiter;
  private readonly commands: RateLimiter;

  constructor(readonly opts: PolicyOptions) {
    this.calls = new RateLimiter(opts.rateLimits?.toolCallsPerMinute ?? 120, opts.now);
    this.commands = new RateLimiter(opts.rateLimits?.commandsPerMinute ?? 30, opts.now);
  }

  private pathCtx(): PathPolicyContext {
    return { root: this.opts.root, home: this.opts.home, devxHome: this.opts.devxHome, outside: 'deny', additionalDirs: this.opts.additionalDirs };
  }

  /** Whether commands can be judged yet (the parser and the command rules load on the first command). */
  get canJudgeCommands(): boolean {
    return this.opts.commands !== null;
  }

  useCommandJudge(judge: CommandJudge): void {
    this.opts.commands = judge;
  }

  /** From now on this run writes only inside `scope` (policy/writeScope.ts); its sub-agents share it. */
  limitWrites(scope: WriteScope): void {
    this.opts.writeScope = scope;
  }

  /** The decision a shell command gets (ask stays ask; approval decides later). */
  decideCommand(cmd: string): PolicyDecision {
    if (!this.opts.commands) return DENY('the bash parser is not loaded, so no command can be checked', 'command:no-parser');
    return this.opts.commands.decideCommand(cmd, {
      parser: this.opts.commands.parser,
      paths: { ...this.pathCtx(), outside: 'ask-read' },
      headless: this.opts.headless,
      sandboxed: this.opts.sandboxed,
      trusted: this.opts.trusted,
      permissions: this.opts.permissions,
      readOnly: this.opts.mode === 'plan',
    });
  }

  private denyCtx(): DenyContext {
    return { root: this.opts.root, home: this.opts.home, devxHome: this.opts.devxHome, permissions: this.opts.permissions };
  }

  /** True when reading this absolute path is denied (sensitive, settings rule, or leads to one). File tools drop such results. */
  isReadDenied(abs: string): boolean {
    return isReadDenied(abs, this.denyCtx());
  }

  /** Every path inside the project the policy denies reading: the sandbox masks them. */
  hiddenPaths(): string[] {
    return deniedUnder(this.opts.root, this.denyCtx()).paths;
  }

  /** The decision a file tool gets for one path. */
  decidePath(p: string, intent: PathIntent): PolicyDecision & { real?: string } {
    return decidePath(p, intent, this.pathCtx());
  }

  /**
   * An MCP tool: ask unless its server is trusted; the paths it names (a filesystem server rooted in
   * the project) are judged like a file tool's; a server working outside the project always asks.
   */
  private decideMcp(tool: PolicyTool, args: Record<string, unknown>, reals: { path: string; intent: PathIntent }[]): PolicyDecision {
    const m = tool.mcp!;
    let d = m.trusted
      ? ALLOW(`the MCP server ${m.server} is trusted`, `mcp:trusted:${m.server}`)
      : ASK(`${tool.name} is a tool of the MCP server ${m.server}, which is not trusted`, `mcp:untrusted:${m.server}`);
    for (const loc of tool.locations?.(args) ?? []) {
      const pd = this.decidePath(loc.path, loc.intent);
      if (pd.real) reals.push({ path: pd.real, intent: loc.intent });
      d = strictest(d, pd);
    }
    if (m.outsideRoot)
      d = strictest(
        d,
        ASK(
          `the MCP server ${m.server} works on ${m.outsideRoot}, outside the project, where devx's path policy cannot follow it`,
          `mcp:outside-project:${m.server}`,
        ),
      );
    return d;
  }

  /**
   * The policy's decision for a call, before any approval mode, hook or answer (authorize.ts weighs those).
   * Every tool call passes here first. Stateful only for rate limits.
   */
  judge(tool: PolicyTool, args: Record<string, unknown>, opts: { countRate?: boolean } = {}): PolicyDecision {
    if (opts.countRate !== false) {
      if (!this.calls.take()) return DENY('too many tool calls in the last minute; stop and summarise for the user', 'rate-limit:tool-calls');
      if (tool.kind === 'execute' && !this.commands.take())
        return DENY('too many commands in the last minute; stop and summarise for the user', 'rate-limit:commands');
    }
    let d: PolicyDecision;
    const reals: { path: string; intent: PathIntent }[] = [];
    if (tool.mcp) {
      d = this.decideMcp(tool, args, reals);
    } else if (tool.urlFor) {
      // web_fetch: judged by the WebFetch(domain:…) rules alone (bare tool rules below cannot lift the ask).
      return decideUrl(tool.urlFor(args), this.opts.permissions);
    } else if (tool.commandFor) {
      // Tools that run a program (run_command, custom tools) are judged by the command line they run;
      // confirm: true can only add an ask.
      d = this.decideCommand(tool.commandFor(args));
      if (tool.confirm) d = strictest(d, ASK(`${tool.name} asks for confirmation before it runs`, `tool:custom:${tool.name}`));
    } else {
      d = tool.kind === 'write' ? ASK(`${tool.name} changes files`, `tool:write`) : ALLOW(`${tool.name} only reads`, `tool:${tool.kind}`);
      if (tool.kind === 'execute') d = ASK(`${tool.name} runs a program`, 'tool:execute');
      // A file tool is judged by the paths it says it touches, each with its intent.
      for (const loc of tool.locations?.(args) ?? []) {
        const pd = this.decidePath(loc.path, loc.intent);
        if (pd.real) reals.push({ path: pd.real, intent: loc.intent });
        d = strictest(d, pd);
      }
    }
    if (this.opts.permissions) {
      const m = matchToolRules(tool, reals, this.opts.permissions);
      if (m?.kind === 'deny') return settingsDecision('deny', m.source, m.rule, `denied by your settings rule ${m.rule}`);
      if (m?.kind === 'ask') d = strictest(d, settingsDecision('ask', m.source, m.rule, `your settings rule ${m.rule} asks first`));
      if (m?.kind === 'allow' && d.decision === 'ask' && !d.fixed && !tool.commandFor) {
        d = settingsDecision('allow', m.source, m.rule, `allowed by your settings rule ${m.rule}`);
      }
    }
    if (this.opts.writeScope) d = applyWriteScope(this.opts.writeScope, tool, d, reals);
    return d;
  }

  /** The decision as this run's approval mode shows it before anybody answers (`devx policy check`, tests): what the mode refuses is a deny. */
  decideToolCall(tool: PolicyTool, args: Record<string, unknown>, opts: { countRate?: boolean } = {}): PolicyDecision {
    const kind = tool.kind;
    return decisionInMode({ decision: this.judge(tool, args, opts), tool: { name: tool.name, kind }, mode: this.opts.mode, sandbox: this.opts.sandboxed });
  }
}
