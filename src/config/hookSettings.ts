// Hooks in Claude Code's format: programs devx runs at points of a session, given a JSON description of
// the moment on stdin. In devx settings (user always; a project's once trusted) and, for a trusted
// project, in its .claude/settings.json and .claude/settings.local.json:
//   "hooks": { "PreToolUse": [ { "matcher": "Bash|Edit", "hooks": [ { "type": "command", "command": "…", "timeout": 30 } ] } ] }
// What each event may do is runtime/hooks.ts's; this file only reads them.
import path from 'node:path';
import * as z from 'zod';
import { READ_LIMITS, readTextIfPresentSync, UnreadableFileError } from '../util/readRegularFileSync.js';

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionStart'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const HookCommand = z.object({ type: z.literal('command'), command: z.string().min(1), timeout: z.number().positive().max(3600).optional() }).strict();
const HookGroup = z.object({ matcher: z.string().optional(), hooks: z.array(HookCommand).min(1) }).strict();

export const HooksSchema = z.lazy(() =>
  z
    .object(Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.array(HookGroup).optional()])) as Record<HookEvent, z.ZodOptional<z.ZodArray<typeof HookGroup>>>)
    .strict(),
);
export type HooksSetting = z.infer<typeof HooksSchema>;

/** One hook command, flattened, with where it came from. */
export interface HookEntry {
  event: HookEvent;
  /** Claude Code's matcher: a tool name, `A|B`, a regex; empty or `*` matches every tool. */
  matcher?: string;
  command: string;
  timeoutSec: number;
  file: string;
}

export function flattenHooks(h: HooksSetting | undefined, file: string): HookEntry[] {
  const out: HookEntry[] = [];
  for (const event of HOOK_EVENTS)
    for (const g of h?.[event] ?? []) for (const c of g.hooks) out.push({ event, matcher: g.matcher, command: c.command, timeoutSec: c.timeout ?? 60, file });
  return out;
}

/**
 * The `hooks` of a project's Claude Code settings. Only that key is read (the rest is Claude Code's);
 * a file that does not parse, or hooks in another shape, is reported and skipped, never fatal.
 */
export function readClaudeHooks(root: string): { hooks: HookEntry[]; errors: string[] } {
  const hooks: HookEntry[] = [];
  const errors: string[] = [];
  for (const name of ['settings.json', 'settings.local.json']) {
    const file = path.join(root, '.claude', name);
    let raw: unknown;
    try {
      const text = readTextIfPresentSync(file, READ_LIMITS.definition);
      if (text === undefined) continue;
      raw = JSON.parse(text);
    } catch (err) {
      errors.push(`${err instanceof UnreadableFileError ? err.message : `${file}: ${(err as Error).message}`}; its hooks were not loaded`);
      continue;
    }
    const h = (raw as { hooks?: unknown })?.hooks;
    if (h === undefined) continue;
    const parsed = HooksSchema.safeParse(h);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      errors.push(`${file}: hooks.${i.path.join('.')}: ${i.message}; its hooks were not loaded`);
      continue;
    }
    hooks.push(...flattenHooks(parsed.data, file));
  }
  return { hooks, errors };
}
