// A workflow is data: named steps, each a role (an agent, the step's persona) with the artifacts it reads, the
// artifact or verdict it produces, and the transitions its verdict selects. Definitions are YAML;
// a broken one is rejected at load with its file and line (see docs in prompts/workflows/README.md).
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import * as z from 'zod';
import { VERDICT_KINDS } from './verdict.js';
import { artifactTemplateProblem } from './artifactPath.js';

const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** Where a transition may lead besides another step. */
export const END = '$done';
/** Back to the step whose artifact the reviewer judged (the latest step this one reads). */
export const PREVIOUS = '$previous';

const Cap = z.union([z.number().int().min(0).max(100), z.literal('none')]);
const Target = z.union([z.string().min(1), z.object({ to: z.string().min(1), maxLoops: Cap.optional() }).strict()]);
const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

const StepSchema = z
  .object({
    role: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'a role is an agent name'),
    description: z.string().optional(),
    /** Steps whose artifacts this one is given ("request" is the user's request). */
    reads: z.array(z.string()).default([]),
    /** The artifact path this step produces; {id} and {slug} are filled in. */
    writes: z
      .string()
      .min(1)
      .superRefine((p, ctx) => {
        const problem = artifactTemplateProblem(p);
        if (problem) ctx.addIssue({ code: 'custom', message: `"writes" ${problem}` });
      })
      .optional(),
    /** A verdict schema name, or a list of verdict words. */
    verdict: z.union([z.enum(VERDICT_KINDS), z.array(z.string().regex(/^[A-Z][A-Z_]*$/)).min(1)]).optional(),
    /** Claims devx checks itself: the commit exists on the branch, the test command passes. */
    check: z.array(z.enum(['commit', 'tests'])).default([]),
    /** Verdict word → step (or $done, $previous). */
    on: z.record(z.string(), Target).optional(),
    /** The step after this one when there is no verdict (or no `on` entry for it). */
    next: z.string().optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    approval: z.enum(['default', 'auto-edit', 'yolo', 'plan']).optional(),
    /** Extra permission rules for this step (Claude Code syntax), e.g. Bash(git commit:*). */
    allow: z.array(z.string()).default([]),
    /** Pause for a person after this step (also --gate <step>). */
    gate: z.boolean().default(false),
  })
  .strict();

const DefinitionSchema = z
  .object({
    name: z.string().regex(NAME),
    description: z.string().default(''),
    /** --mode <name> → the step to start at. */
    modes: z.record(z.string(), z.string()).default({}),
    start: z.string().optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    /** The cap on every back-edge that does not set its own (default 3); "none" leaves them uncapped. */
    maxLoops: Cap.default(3),
    gates: z.array(z.string()).default([]),
    git: z
      .object({
        branch: z.boolean().default(true),
        // Part of a branch name on git's command line: never an option.
        branchPrefix: z
          .string()
          .regex(/^(?!-)[A-Za-z0-9._/-]*$/, 'letters, digits, ".", "_", "/" and "-", not starting with "-"')
          .default('task/'),
        merge: z.enum(['no-ff', 'ff', 'none']).default('no-ff'),
        archiveDir: z
          .string()
          .superRefine((p, ctx) => {
            const problem = artifactTemplateProblem(p);
            if (problem) ctx.addIssue({ code: 'custom', message: `"archiveDir" ${problem}` });
          })
          .default('docs/dev_docs/archived'),
      })
      .strict()
      .default({ branch: true, branchPrefix: 'task/', merge: 'no-ff', archiveDir: 'docs/dev_docs/archived' }),
    steps: z.record(z.string().regex(NAME), StepSchema),
  })
  .strict();

export type StepDef = z.infer<typeof StepSchema>;
export interface Transition {
  to: string;
  /** Set on back-edges: how many times the edge may be taken. */
  cap?: number;
}
export interface WorkflowDef extends Omit<z.infer<typeof DefinitionSchema>, 'steps'> {
  steps: Record<string, StepDef & { transitions: Record<string, Transition>; after?: Transition }>;
  file: string;
  hash: string;
  scope: 'builtin' | 'user' | 'project';
}

export class WorkflowDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowDefinitionError';
  }
}

/** Parses and checks one definition. `roleExists` says whether an agent of that name loads. */
export function parseWorkflow(text: string, file: string, scope: WorkflowDef['scope'], roleExists: (role: string) => boolean): WorkflowDef {
  const Y = yaml();
  const lines = new Y.LineCounter();
  const doc = Y.parseDocument(text, { lineCounter: lines, prettyErrors: true });
  const at = (p: (string | number)[]): string => {
    for (let i = p.length; i >= 0; i--) {
      const node = doc.getIn(p.slice(0, i), true) as { range?: [number, number] } | undefined;
      const pair = i > 0 ? findKeyNode(doc, p.slice(0, i)) : undefined;
      const off = pair ?? node?.range?.[0];
      if (off !== undefined) return `${file}:${lines.linePos(off).line}`;
    }
    return file;
  };
  if (doc.errors.length) {
    const e = doc.errors[0];
    throw new WorkflowDefinitionError(`${file}:${e.linePos?.[0].line ?? '?'}: invalid YAML: ${e.message.split('\n')[0]}`);
  }
  const parsed = DefinitionSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const p = issue.path as (string | number)[];
    const what = issue.code === 'unrecognized_keys' ? `unknown key "${issue.keys[0]}"` : `${p.join('.') || '(top level)'}: ${issue.message}`;
    throw new WorkflowDefinitionError(`${at(issue.code === 'unrecognized_keys' ? [...p, issue.keys[0]] : p)}: ${what}`);
  }
  const d = parsed.data;
  const names = Object.keys(d.steps);
  if (!names.length) throw new WorkflowDefinitionError(`${at(['steps'])}: a workflow needs at least one step`);
  const isTarget = (t: string) => t === END || t === PREVIOUS || names.includes(t);
  const missing = (p: (string | number)[], t: string) =>
    new WorkflowDefinitionError(`${at(p)}: transition to a missing step "${t}"; steps are ${names.join(', ')} (or ${END}, ${PREVIOUS})`);
  for (const [mode, step] of Object.entries(d.modes)) if (!names.includes(step)) throw missing(['modes', mode], step);
  if (d.start && !names.includes(d.start)) throw missing(['start'], d.start);
  for (const g of d.gates) if (!names.includes(g)) throw new WorkflowDefinitionError(`${at(['gates'])}: gate on a missing step "${g}"`);
  const steps: WorkflowDef['steps'] = {};
  for (const [name, s] of Object.entries(d.steps)) {
    if (!roleExists(s.role))
      throw new WorkflowDefinitionError(
        `${at(['steps', name, 'role'])}: unknown role "${s.role}" (no agent of that name in prompts/agents, ~/.devx/agents or .devx/agents)`,
      );
    for (const r of s.reads)
      if (r !== 'request' && !names.includes(r)) throw new WorkflowDefinitionError(`${at(['steps', name, 'reads'])}: reads a missing step "${r}"`);
    const transitions: Record<string, Transition> = {};
    for (const [word, t] of Object.entries(s.on ?? {})) {
      const to = typeof t === 'string' ? t : t.to;
      if (!isTarget(to)) throw missing(['steps', name, 'on', word], to);
      const own = typeof t === 'string' ? undefined : t.maxLoops;
      transitions[word] = { to, ...(own !== undefined && own !== 'none' ? { cap: own } : {}) };
      if (own === 'none') (transitions[word] as Transition & { uncapped?: true }).uncapped = true;
    }
    if (s.next && !isTarget(s.next)) throw missing(['steps', name, 'next'], s.next);
    if (s.on && !s.verdict) throw new WorkflowDefinitionError(`${at(['steps', name, 'on'])}: "on" needs a "verdict" to choose by`);
    if (Array.isArray(s.verdict) || s.verdict) {
      const words = verdictWords(s.verdict);
      for (const w of Object.keys(s.on ?? {}))
        if (words && !words.includes(w))
          throw new WorkflowDefinitionError(`${at(['steps', name, 'on', w])}: "${w}" is not a verdict of this step (${words.join(', ')})`);
    }
    steps[name] = { ...s, transitions, after: s.next ? { to: s.next } : undefined };
  }
  const start = d.start ?? Object.values(d.modes)[0] ?? names[0];
  capBackEdges(steps, [start, ...Object.values(d.modes)], d.maxLoops, (p) => at(p));
  const hash = crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);
  return { ...d, start, steps, file, hash, scope };
}

function findKeyNode(doc: import('yaml').Document, p: (string | number)[]): number | undefined {
  const parent = doc.getIn(p.slice(0, -1), true) as { items?: { key?: { value?: unknown; range?: [number, number] } }[] } | undefined;
  const item = parent?.items?.find((i) => i.key?.value === p[p.length - 1]);
  return item?.key?.range?.[0];
}

/** The verdict words a step may answer with, or null for a schema without words (commit). */
export function verdictWords(v: StepDef['verdict']): string[] | null {
  if (!v) return null;
  if (Array.isArray(v)) return v;
  return { review: ['APPROVE', 'REJECT', 'ESCALATE'], approve_reject: ['APPROVE', 'REJECT'], pass_fail: ['PASS', 'FAIL'], commit: null }[v];
}

/**
 * Every verdict transition gets its cap (its own maxLoops, else the workflow's): at run time it counts
 * the times the edge leads back to a step that already ran. A cycle (found by depth-first search from
 * the entry steps) none of whose edges is capped would loop forever: an error at load.
 */
function capBackEdges(steps: WorkflowDef['steps'], entries: string[], dflt: number | 'none', at: (p: (string | number)[]) => string): void {
  type Edge = { key: (string | number)[]; capped: boolean; from: string };
  for (const s of Object.values(steps)) {
    for (const t of Object.values(s.transitions) as (Transition & { uncapped?: true })[]) {
      if (t.cap === undefined && !t.uncapped && dflt !== 'none') t.cap = dflt;
    }
  }
  const edgesOf = (n: string): (Edge & { targets: string[] })[] => {
    const s = steps[n];
    const targetsOf = (to: string) => (to === PREVIOUS ? s.reads.filter((r) => r !== 'request') : to === END ? [] : [to]);
    const out = Object.entries(s.transitions).map(([w, t]) => ({ key: ['steps', n, 'on', w], capped: t.cap !== undefined, from: n, targets: targetsOf(t.to) }));
    if (s.after) out.push({ key: ['steps', n, 'next'], capped: false, from: n, targets: targetsOf(s.after.to) });
    return out;
  };
  const state = new Map<string, 'open' | 'done'>();
  const stack: { node: string; via?: Edge }[] = [];
  const visit = (n: string, via?: Edge) => {
    state.set(n, 'open');
    stack.push({ node: n, via });
    for (const e of edgesOf(n)) {
      for (const to of e.targets) {
        if (state.get(to) === 'open') {
          const i = stack.findIndex((f) => f.node === to);
          const cycleEdges = [...stack.slice(i + 1).map((f) => f.via!), e];
          if (!cycleEdges.some((c) => c.capped)) {
            const cycle = [...stack.slice(i).map((f) => f.node), to];
            throw new WorkflowDefinitionError(
              `${at(e.key)}: the cycle ${cycle.join(' -> ')} has no cap; give one of its verdict transitions a maxLoops (or the workflow one)`,
            );
          }
        } else if (!state.has(to)) visit(to, e);
      }
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const e of entries) if (!state.has(e)) visit(e);
}
