// devx settings: ~/.devx/settings.json (user), .devx/settings.json (project, shared) and
// .devx/settings.local.json (project, personal), merged in that order. Invalid files are fatal
// with the file, key and reason. Settings that run programs (accounts, gemini.bin) are honoured only
// from the user file: a cloned repository must not be able to make devx execute its scripts.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { AccountSchema, type Account } from '../backend/accounts.js';
import { parseRule, validateRule, type PermissionRule, type RuleSource } from '../policy/permissions.js';

const RuleList = z.array(
  z.string().superRefine((v, ctx) => {
    const err = validateRule(v);
    if (err) ctx.addIssue({ code: 'custom', message: `invalid rule ${JSON.stringify(v)}: ${err}` });
  }),
);

export const SettingsSchema = z
  .object({
    model: z.string().min(1).optional(),
    fallbackModel: z.string().min(1).optional(),
    accounts: z.array(AccountSchema).optional(),
    gemini: z
      .object({
        bin: z.string().min(1).optional(),
        timeoutSec: z.number().positive().optional(),
        maxRetries: z.number().int().min(0).max(10).optional(),
        retryBaseMs: z.number().int().min(0).optional(),
        retryMaxMs: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
    maxToolRounds: z.number().int().min(1).max(500).optional(),
    contextBudgetChars: z.number().int().min(10_000).optional(),
    commandTimeoutSec: z.number().int().min(1).max(3600).optional(),
    maxToolOutputChars: z.number().int().min(1000).optional(),
    permissions: z.object({ allow: RuleList.optional(), ask: RuleList.optional(), deny: RuleList.optional() }).strict().optional(),
    approvalMode: z.enum(['default', 'auto-edit', 'yolo', 'plan']).optional(),
    handoff: z.enum(['model', 'plain', 'off']).optional(),
    spawnConcurrency: z.number().int().min(1).max(16).optional(),
    autoDelegate: z.enum(['off', 'suggest', 'apply']).optional(),
    knowledge: z
      .object({
        collection: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
        embeddings: z.union([z.enum(['none', 'gemini']), z.object({ command: z.array(z.string().min(1)).min(1), dims: z.number().int().min(1).max(8192) }).strict()]).optional(),
      })
      .strict()
      .optional(),
    rateLimits: z.object({ toolCallsPerMinute: z.number().int().min(1).optional(), commandsPerMinute: z.number().int().min(1).optional() }).strict().optional(),
  })
  .strict();

export type Settings = z.infer<typeof SettingsSchema>;

export interface ResolvedSettings {
  model: string;
  fallbackModel?: string;
  accounts: Account[];
  geminiBin: string;
  geminiTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
  maxToolRounds: number;
  contextBudgetChars: number;
  commandTimeoutMs: number;
  maxToolOutputChars: number;
  permissionRules: PermissionRule[];
  approvalMode: 'default' | 'auto-edit' | 'yolo' | 'plan';
  /** How HANDOFF.md is written when a session ends. */
  handoff: 'model' | 'plain' | 'off';
  spawnConcurrency: number;
  /** Autodelegation: suggest an agent for free-form prompts, or (opt-in) offer to apply it. */
  autoDelegate: 'off' | 'suggest' | 'apply';
  knowledge: { collection?: string; embeddings?: 'none' | 'gemini' | { command: string[]; dims: number } };
  rateLimits: { toolCallsPerMinute: number; commandsPerMinute: number };
  /** Project `allow` rules that were not applied because the project is not trusted. */
  untrustedAllows: string[];
  warnings: string[];
  files: string[];
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_MODEL = 'gemini-2.5-pro';

export function readSettingsFile(file: string): Settings | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`${file}: cannot read it (${(err as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: invalid JSON (${(err as Error).message})`);
  }
  const parsed = SettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]].join('.') : issue.path.join('.') || '(top level)';
    const reason = issue.code === 'unrecognized_keys' ? 'unknown setting' : issue.message;
    throw new ConfigError(`${file}: invalid setting "${key}": ${reason}`);
  }
  return parsed.data;
}

export interface SettingsSources {
  devxHome: string;
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  overrides?: Partial<Settings>;
  /** Whether the user trusted this project (its allow rules may widen the defaults). */
  trusted?: boolean;
}

export function loadSettings(src: SettingsSources): ResolvedSettings {
  const warnings: string[] = [];
  const files: string[] = [];
  const userFile = path.join(src.devxHome, 'settings.json');
  const projectFiles = [path.join(src.projectRoot, '.devx', 'settings.json'), path.join(src.projectRoot, '.devx', 'settings.local.json')];
  const merged: Settings = {};
  const rules: PermissionRule[] = [];
  const untrustedAllows: string[] = [];
  const addRules = (s: Settings, source: RuleSource) => {
    for (const kind of ['allow', 'ask', 'deny'] as const) {
      for (const raw of s.permissions?.[kind] ?? []) {
        // A project may tighten the policy freely; widening it needs the user's trust.
        if (kind === 'allow' && source !== 'user' && !src.trusted) untrustedAllows.push(raw);
        else rules.push(parseRule(raw, kind, source));
      }
    }
  };
  const user = readSettingsFile(userFile);
  if (user) {
    addRules(user, 'user');
    files.push(userFile);
    Object.assign(merged, user, { gemini: { ...user.gemini } });
  }
  for (const file of projectFiles) {
    const s = readSettingsFile(file);
    if (!s) continue;
    addRules(s, file.endsWith('.local.json') ? 'local' : 'project');
    files.push(file);
    if (s.accounts) warnings.push(`${file}: "accounts" is ignored in project settings (it can run commands); set it in ${userFile}`);
    if (s.knowledge?.embeddings && typeof s.knowledge.embeddings === 'object') {
      warnings.push(`${file}: "knowledge.embeddings.command" is ignored in project settings (it runs a program); set it in ${userFile}`);
      s.knowledge = { ...s.knowledge, embeddings: undefined };
    }
    if (s.gemini?.bin) warnings.push(`${file}: "gemini.bin" is ignored in project settings (it runs a program); set it in ${userFile}`);
    if (s.approvalMode && (s.approvalMode === 'yolo' || s.approvalMode === 'auto-edit') && !src.trusted) {
      warnings.push(`${file}: "approvalMode": "${s.approvalMode}" loosens approvals and is ignored until you trust the project with \`devx trust\``);
      delete s.approvalMode;
    }
    const { accounts: _a, gemini, ...rest } = s;
    const { bin: _b, ...geminiRest } = gemini ?? {};
    const knowledge = { ...merged.knowledge, ...Object.fromEntries(Object.entries(rest.knowledge ?? {}).filter(([, v]) => v !== undefined)) };
    Object.assign(merged, rest, { gemini: { ...merged.gemini, ...geminiRest }, knowledge });
  }
  const o = src.overrides ?? {};
  const envNum = (name: string) => (src.env[name] ? Number(src.env[name]) : undefined);
  return {
    model: o.model ?? src.env.DEVX_MODEL ?? merged.model ?? DEFAULT_MODEL,
    fallbackModel: o.fallbackModel ?? merged.fallbackModel,
    accounts: merged.accounts ?? [],
    geminiBin: src.env.DEVX_GEMINI_BIN ?? merged.gemini?.bin ?? 'gemini',
    geminiTimeoutMs: (envNum('DEVX_TURN_TIMEOUT_SEC') ?? merged.gemini?.timeoutSec ?? 600) * 1000,
    maxRetries: envNum('DEVX_MAX_RETRIES') ?? merged.gemini?.maxRetries ?? 3,
    retryBaseMs: envNum('DEVX_RETRY_BASE_MS') ?? merged.gemini?.retryBaseMs ?? 2000,
    retryMaxMs: merged.gemini?.retryMaxMs ?? 60_000,
    maxToolRounds: o.maxToolRounds ?? merged.maxToolRounds ?? 25,
    contextBudgetChars: merged.contextBudgetChars ?? 400_000,
    commandTimeoutMs: (merged.commandTimeoutSec ?? 120) * 1000,
    maxToolOutputChars: merged.maxToolOutputChars ?? 50_000,
    permissionRules: rules,
    approvalMode: o.approvalMode ?? merged.approvalMode ?? 'default',
    knowledge: { ...merged.knowledge },
    spawnConcurrency: merged.spawnConcurrency ?? 4,
    autoDelegate: merged.autoDelegate ?? 'suggest',
    handoff: (['model', 'plain', 'off'].includes(src.env.DEVX_HANDOFF ?? '') ? (src.env.DEVX_HANDOFF as 'model') : undefined) ?? merged.handoff ?? 'model',
    rateLimits: { toolCallsPerMinute: merged.rateLimits?.toolCallsPerMinute ?? 120, commandsPerMinute: merged.rateLimits?.commandsPerMinute ?? 30 },
    untrustedAllows,
    warnings: untrustedAllows.length
      ? [...warnings, `this project's settings allow ${untrustedAllows.join(', ')}; they are ignored until you trust the project with \`devx trust\``]
      : warnings,
    files,
  };
}
