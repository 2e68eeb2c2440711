// Hooks: programs devx runs at points of a session, given a JSON description of the moment on stdin, in
// the formats the person already keeps them in:
//   devx settings and Claude Code's settings.json (`"hooks": { "PreToolUse": [ { "matcher": "Bash|Edit", "hooks": [ { "type": "command", "command": "…", "timeout": 30 } ] } ] }`),
//   Gemini CLI's settings.json (the same shape, its own event names: BeforeTool, AfterTool…, timeouts in ms).
// Every event name is accepted: one devx has no moment for is named once and skipped, never the file.
// What each event may do is runtime/hooks.ts's; this file only reads them.
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { READ_LIMITS, readTextIfPresentSync, UnreadableFileError } from '../util/readRegularFileSync.js';

/** The moments devx runs hooks at, in Claude Code's names. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'Notification',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's events devx has no moment for: named once, skipped. */
const CLAUDE_ONLY = [
  'PermissionRequest',
  'SubagentStart',
  'TeammateIdle',
  'TaskCompleted',
  'InstructionsLoaded',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
];

/** Gemini CLI's event names for devx's moments (BeforeModel, AfterModel and BeforeToolSelection have none). */
export const GEMINI_EVENTS: Record<string, HookEvent> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  SessionStart: 'SessionStart',
  SessionEnd: 'SessionEnd',
  PreCompress: 'PreCompact',
  Notification: 'Notification',
};

export type HookDialect = 'claude' | 'gemini';

/** devx settings keep hooks loosely typed: each group is checked on its own, so one bad entry never drops the rest. */
export const HooksSchema = z.lazy(() => z.record(z.string(), z.unknown()));
export type HooksSetting = z.infer<typeof HooksSchema>;

const HookCommand = z.object({ type: z.string(), command: z.string().min(1).optional(), timeout: z.number().positive().optional() }).passthrough();
const HookGroup = z.object({ matcher: z.string().optional(), hooks: z.array(HookCommand).min(1) }).passthrough();

/** One hook command, flattened, with where it came from. */
export interface HookEntry {
  event: HookEvent;
  /** The event's name in the file (Gemini CLI's BeforeTool for PreToolUse): what the hook is told. */
  name: string;
  /** Whose format the hook expects: its input's names and tool names follow it. */
  dialect: HookDialect;
  /** A tool name, `A|B`, a regex; empty or `*` matches every tool. */
  matcher?: string;
  command: string;
  /** Its name in the file, where it has one (Gemini CLI's `name`). */
  label?: string;
  timeoutSec: number;
  file: string;
  /** Variables its command is given besides the session's (an extension's CLAUDE_PLUGIN_ROOT). */
  env?: Record<string, string>;
}

export interface ParsedHooks {
  hooks: HookEntry[];
  /** One line per event or entry skipped, naming the file. */
  notes: string[];
}

/** The hooks of one file's `hooks` value; what devx cannot run is named, the rest kept. */
export function parseHooks(value: unknown, file: string, dialect: HookDialect = 'claude'): ParsedHooks {
  const out: ParsedHooks = { hooks: [], notes: [] };
  if (value === undefined) return out;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    out.notes.push(`${file}: "hooks" is not an object of events; its hooks were not loaded`);
    return out;
  }
  const skipped: string[] = [];
  for (const [name, groups] of Object.entries(value as Record<string, unknown>)) {
    const event = dialect === 'gemini' ? GEMINI_EVENTS[name] : (HOOK_EVENTS as readonly string[]).includes(name) ? (name as HookEvent) : undefined;
    if (!event) {
      // Gemini CLI's own switches live beside its events ("enabled", "disabled").
      if (dialect === 'gemini' && !/^[A-Z]/.test(name)) continue;
      skipped.push(name);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.notes.push(`${file}: hooks.${name} is not a list; those hooks were skipped`);
      continue;
    }
    groups.forEach((g, i) => addGroup(out, g, { event, name, dialect, file, where: `hooks.${name}[${i}]` }));
  }
  if (skipped.length) {
    const known = skipped.filter((s) => CLAUDE_ONLY.includes(s) || dialect === 'gemini');
    const unknown = skipped.filter((s) => !known.includes(s));
    if (known.length) out.notes.push(`${file}: devx has no moment for ${known.join(', ')} hooks; they are skipped (the others run)`);
    if (unknown.length) out.notes.push(`${file}: unknown hook event ${unknown.join(', ')}; skipped (devx knows ${HOOK_EVENTS.join(', ')})`);
  }
  return out;
}

function addGroup(out: ParsedHooks, g: unknown, o: { event: HookEvent; name: string; dialect: HookDialect; file: string; where: string }): void {
  const parsed = HookGroup.safeParse(g);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    out.notes.push(`${o.file}: ${o.where}.${i.path.join('.')}: ${i.message}; that entry was skipped`);
    return;
  }
  for (const c of parsed.data.hooks) {
    if (c.type !== 'command' || !c.command) {
      out.notes.push(`${o.file}: ${o.where}: a "${c.type}" hook (devx runs only "command" hooks) was skipped`);
      continue;
    }
    // Gemini CLI's timeouts are in milliseconds, Claude Code's in seconds.
    const timeoutSec = c.timeout === undefined ? 60 : o.dialect === 'gemini' ? Math.max(1, Math.ceil(c.timeout / 1000)) : c.timeout;
    const label = typeof c.name === 'string' ? c.name : undefined;
    out.hooks.push({
      event: o.event,
      name: o.name,
      dialect: o.dialect,
      matcher: parsed.data.matcher,
      command: c.command,
      ...(label ? { label } : {}),
      timeoutSec,
      file: o.file,
    });
  }
}

/** A settings file's `hooks`, in the file's own dialect; a file that does not read or parse is one note. */
function readHooksFile(file: string, dialect: HookDialect): ParsedHooks {
  let raw: unknown;
  try {
    const text = readTextIfPresentSync(file, READ_LIMITS.definition, 'any');
    if (text === undefined) return { hooks: [], notes: [] };
    raw = JSON.parse(text);
  } catch (err) {
    return { hooks: [], notes: [`${err instanceof UnreadableFileError ? err.message : `${file}: ${(err as Error).message}`}; its hooks were not loaded`] };
  }
  const parsed = parseHooks((raw as { hooks?: unknown })?.hooks, file, dialect);
  if (dialect !== 'gemini') return parsed;
  // Gemini CLI's own switches: hooksConfig.enabled false turns every hook off, hooksConfig.disabled some by name or command.
  const cfg = (raw as { hooksConfig?: { enabled?: unknown; disabled?: unknown } })?.hooksConfig;
  if (cfg?.enabled === false) return { hooks: [], notes: parsed.notes };
  const off = new Set(Array.isArray(cfg?.disabled) ? cfg.disabled.filter((d): d is string => typeof d === 'string') : []);
  return { ...parsed, hooks: parsed.hooks.filter((h) => !off.has(h.command) && !(h.label && off.has(h.label))) };
}

/** The hooks of a project's Claude Code and Gemini CLI settings (only their `hooks`; the rest is theirs). */
export function readProjectHooks(root: string): ParsedHooks {
  return merge([
    readHooksFile(path.join(root, '.claude', 'settings.json'), 'claude'),
    readHooksFile(path.join(root, '.claude', 'settings.local.json'), 'claude'),
    readHooksFile(path.join(root, '.gemini', 'settings.json'), 'gemini'),
  ]);
}

/** The person's own Claude Code and Gemini CLI hooks (~/.claude/settings.json, ~/.gemini/settings.json), run as those tools run them. */
export function readUserHooks(home: string = os.homedir()): ParsedHooks {
  return merge([readHooksFile(path.join(home, '.claude', 'settings.json'), 'claude'), readHooksFile(path.join(home, '.gemini', 'settings.json'), 'gemini')]);
}

function merge(parts: ParsedHooks[]): ParsedHooks {
  return { hooks: parts.flatMap((p) => p.hooks), notes: parts.flatMap((p) => p.notes) };
}

/** devx settings' hooks (Claude Code's format). */
export function flattenHooks(h: HooksSetting | undefined, file: string): HookEntry[] {
  return parseHooks(h, file, 'claude').hooks;
}
