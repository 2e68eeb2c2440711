// A tool's planned change (Tool.plan) as every surface records or shows it: the audit log keeps its
// summary (kind, path, lines added and removed, a hash of the whole diff), a dry run shows the tool's
// preview of it, and an ACP editor gets its text before and after. One plan, computed once per call.
import crypto from 'node:crypto';
import * as z from 'zod';
import { wholeUnifiedDiff } from './diffPreview.js';
import { narrowContext, type PlannedChange, type Tool, type ToolContext } from './types.js';

export interface PlanSummary {
  kind: PlannedChange['kind'];
  /** The file as the person sees it named (project-relative). */
  path: string;
  added: number;
  removed: number;
  /** sha256 of the whole unified diff (wholeUnifiedDiff), hex. */
  diffSha256: string;
  refused?: string;
}

/** The plan's whole unified diff. */
export function planDiff(p: PlannedChange): string {
  return wholeUnifiedDiff(p.shown, p.oldText ?? '', p.newText);
}

export function summarizePlan(p: PlannedChange): PlanSummary {
  const diff = planDiff(p);
  const lines = diff.split('\n').filter((l) => !l.startsWith('+++ ') && !l.startsWith('--- '));
  return {
    kind: p.kind,
    path: p.shown,
    added: lines.filter((l) => l.startsWith('+')).length,
    removed: lines.filter((l) => l.startsWith('-')).length,
    diffSha256: crypto.createHash('sha256').update(diff).digest('hex'),
    ...(p.refused ? { refused: p.refused } : {}),
  };
}

/**
 * What a call would change without running it (a dry run): the tool's plan and the preview the person
 * would be asked with, from the same code as a real call. Nothing for arguments the tool would refuse or a tool that does not plan.
 */
export async function planCall(tool: Tool, rawArgs: Record<string, string>, ctx: ToolContext): Promise<{ plan?: PlannedChange; preview?: string }> {
  if (!tool.plan) return {};
  const parsed = (tool.schema as unknown as z.ZodObject).strict().safeParse(rawArgs);
  if (!parsed.success) return {};
  const own = narrowContext(ctx, tool.needs);
  const plan = await tool.plan(own, parsed.data as never).catch(() => undefined);
  if (!plan) return {};
  const preview = await tool.preview?.(own, parsed.data as never, plan).catch(() => undefined);
  return { plan, ...(preview ? { preview } : {}) };
}
