export type Decision = 'allow' | 'ask' | 'deny';

export type ApprovalMode = 'default' | 'auto-edit' | 'yolo' | 'plan';

/** Who may lift an ask: an approval mode, a mode only where the sandbox holds the call, or only a person. */
export type Lift = 'mode' | 'mode-in-sandbox' | 'person';

/** Where a decision came from: devx's own rules, or a settings rule (the person's answer given in advance). */
export type RuleSource = { kind: 'policy' } | { kind: 'settings'; scope: string; effect: Decision };

export interface PolicyDecision {
  decision: Decision;
  reason: string;
  /** Identifier of the rule that decided, for the audit log and `devx policy check`. */
  rule: string;
  /** Where it came from (absent: devx's own policy). */
  source?: RuleSource;
  /** For an ask: who may lift it (set by ASK from the rule's kind; absent on an allow or a deny). */
  lift?: Lift;
  /** No settings `allow` rule lifts it: a path, a structure of the command line the policy cannot model. */
  fixed?: boolean;
  /** An ask whose whole effect the policy knows (it would run unasked inside the sandbox, which is missing). */
  modelled?: boolean;
  /** For a command: what the policy claims it may do, which the sandbox enforces when no person approved it. */
  claim?: SandboxClaim;
  /** What the command does beyond reading, from the rule's kind: runs the project's code, or changes the repository. */
  effect?: RuleEffect;
  /** For a path: what the path policy found there (set where it is decided, never read from the rule's id). */
  path?: PathFinding;
}

/** What a command rule says the command does, which decides the sandbox claim. */
export type RuleEffect = 'project-code' | 'git-change';

/**
 * What the path policy found: a protected file, devx's own state (refused to the model's reads so it cannot
 * learn its policy, not because it is secret), outside the project, a file with other hard links, the null device.
 */
export type PathFinding = 'protected' | 'devx-own' | 'outside' | 'hardlink' | 'null-device';

export type { SandboxClaim } from '../sandbox/claim.js';
import type { SandboxClaim } from '../sandbox/claim.js';

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const LIFT_RANK: Record<Lift, number> = { mode: 0, 'mode-in-sandbox': 1, person: 2 };

const GENERIC = /:(all-allowed|paths)$/;

/**
 * The one table from a rule's kind (its id's family) to who may lift its ask, typed when the decision is made.
 * A mode may lift a command's ask only inside the sandbox, which holds it to its claim: what runs project code,
 * changes the work tree beyond the paths it names (git checkout can plant a link a later read follows), carries an
 * environment prefix (TAR_OPTIONS or LD_PRELOAD change what a program does beyond its model), and a modelled write
 * too: without the sandbox its argument model would be all that holds it, and a model is defence in depth, never
 * the containment (a one-word `--output=` it missed wrote ~/.bashrc). Any other command ask is a person's.
 */
const LIFTS: [RegExp, Lift][] = [
  // An MCP server the user did not mark trusted runs outside the sandbox with effects devx cannot know: a person's yes.
  [/^(path:(outside-root-read|exec-config|hardlink)|mcp:(outside-project|untrusted)|sandbox:|web:|hook:)/, 'person'],
  [/^command:(test-runner|package-manager|package-install|git-change|env-prefix|write:|redirect-write)/, 'mode-in-sandbox'],
  [/^command:/, 'person'],
];

/** Kinds no settings `allow` rule lifts (the path policy, an MCP server outside the project, structures of a command line). */
const FIXED =
  /^(path:|settings:|mcp:outside-project|command:(parse-error|control-chars|non-literal-name|unsupported-syntax|env-dangerous|too-long|exec|network|system|computed-argument|recursive-denied|prompt-expansion|undecodable-name))/;

function liftOf(rule: string): Lift {
  return LIFTS.find(([re]) => re.test(rule))?.[1] ?? 'mode';
}

/** The kinds whose commands do more than their arguments show (their sandbox claim widens). */
const EFFECTS: [RegExp, RuleEffect][] = [
  [/^command:(test-runner|package-manager|package-install)/, 'project-code'],
  [/^command:git-change/, 'git-change'],
];

function effectOf(rule: string): RuleEffect | undefined {
  return EFFECTS.find(([re]) => re.test(rule))?.[1];
}

/** True when no approval mode may approve this ask (with or without the sandbox). */
export function unapprovable(d: Pick<PolicyDecision, 'lift'>): boolean {
  return d.lift === 'person';
}

/** Whether an approval mode (yolo, auto-edit) may approve this ask; `sandboxed`: the call would run in the sandbox. */
export function approvableByMode(d: Pick<PolicyDecision, 'lift'>, sandboxed: boolean): boolean {
  return d.lift === 'mode' || (d.lift === 'mode-in-sandbox' && sandboxed);
}

/** A settings rule's decision: its source says it is the person's answer given in advance. */
export function settingsDecision(effect: Decision, scope: string, raw: string, reason: string, id = `settings:${scope}:${effect}:${raw}`): PolicyDecision {
  const base = effect === 'allow' ? ALLOW(reason, id) : effect === 'ask' ? ASK(reason, id) : DENY(reason, id);
  return { ...base, source: { kind: 'settings', scope, effect } };
}

/** Is this the person's yes given in advance (a settings allow rule)? */
export function allowedBySettings(d: PolicyDecision): boolean {
  return d.decision === 'allow' && d.source?.kind === 'settings';
}

/** Deny beats ask beats allow; an ask only a person may lift beats one a mode may; on a tie the first specific decision (and its reason) stays. */
export function strictest(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  if (RANK[b.decision] !== RANK[a.decision]) return RANK[b.decision] > RANK[a.decision] ? b : a;
  if (a.decision === 'ask' && a.lift !== b.lift) return LIFT_RANK[b.lift ?? 'mode'] > LIFT_RANK[a.lift ?? 'mode'] ? b : a;
  return GENERIC.test(a.rule) && !GENERIC.test(b.rule) ? b : a;
}

function typed(d: PolicyDecision): PolicyDecision {
  const effect = effectOf(d.rule);
  const t = effect ? { ...d, effect } : d;
  return FIXED.test(d.rule) ? { ...t, fixed: true } : t;
}
export const ALLOW = (reason: string, rule: string): PolicyDecision => typed({ decision: 'allow', reason, rule });
export const ASK = (reason: string, rule: string): PolicyDecision => typed({ decision: 'ask', reason, rule, lift: liftOf(rule) });
export const DENY = (reason: string, rule: string): PolicyDecision => typed({ decision: 'deny', reason, rule });

export type PathIntent = 'read' | 'write' | 'list';

/** One path a tool call touches, with what it does there. */
export interface Location {
  path: string;
  intent: PathIntent;
}

/** What the policy needs to know of a tool (tools/types.ts's Tool satisfies it). */
export interface PolicyTool {
  name: string;
  kind: 'read' | 'write' | 'execute' | 'meta';
  commandFor?: (args: Record<string, unknown>) => string;
  confirm?: boolean;
  /** A meta tool that writes what outlives the session (MEMORY.md, the knowledge store): plan mode refuses it. */
  writesState?: boolean;
  locations?: (args: Record<string, unknown>) => Location[];
  aliases?: string[];
  /** Set for a tool of an MCP server. */
  mcp?: McpToolPolicy;
  /** For a tool that fetches a URL (web_fetch): the URL, judged by the WebFetch(domain:…) rules. */
  urlFor?: (args: Record<string, unknown>) => string;
}

/** What the policy knows of an MCP server's tool. */
export interface McpToolPolicy {
  server: string;
  /** `trust: true` in the server's settings. */
  trusted: boolean;
  /** A directory the server was pointed at outside the project (a filesystem server's root): every call asks. */
  outsideRoot?: string;
}
