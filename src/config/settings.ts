// devx settings: ~/.devx/settings.json (user), .devx/settings.json (project, shared) and
// .devx/settings.local.json (project, personal), merged in that order. Invalid files are fatal
// with the file, key and reason. Settings that run programs (accounts, gemini.bin) are honoured only
// from the user file: a cloned repository must not be able to make devx execute its scripts.
import { READ_LIMITS, readTextIfPresentSync, UnreadableFileError } from '../util/readRegularFileSync.js';
import path from 'node:path';
import * as z from 'zod';
import { AccountSchema } from '../providers/accounts.js';
import type { ProviderSettings } from '../providers/types.js';
import { DEFAULT_PROVIDER, findProvider, getProvider, providerIds, providerNames } from '../providers/registry.js';
import { parseRule, validateRule, type PermissionRule, type RuleSource } from '../policy/permissions.js';
import { McpServersSchema, type McpServerEntry } from './mcpSettings.js';
import { HooksSchema, flattenHooks, readClaudeHooks, type HookEntry } from './hookSettings.js';
import { readForeignMcp } from './foreignMcp.js';

// Schemas are built on first use (z.lazy): a run without settings files never pays the ~1 ms each
// costs, and that time is taken from the model CLI a one-shot run starts beside devx.
const RuleList = z.lazy(() =>
  z.array(
    z.string().superRefine((v, ctx) => {
      const err = validateRule(v);
      if (err) ctx.addIssue({ code: 'custom', message: `invalid rule ${JSON.stringify(v)}: ${err}` });
    }),
  ),
);

const ProviderSection = z.lazy(() =>
  z
    .object({
      bin: z.string().min(1).optional(),
      timeoutSec: z.number().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      retryBaseMs: z.number().int().min(0).optional(),
      retryMaxMs: z.number().int().min(0).optional(),
      accounts: z.array(AccountSchema).optional(),
      mode: z.enum(['spawn', 'warm']).optional(),
    })
    .strict(),
);
type ProviderSectionT = z.infer<typeof ProviderSection>;

export const SettingsSchema = z.lazy(() =>
  z
    .object({
      model: z.string().min(1).optional(),
      fallbackModel: z.string().min(1).optional(),
      accounts: z.array(AccountSchema).optional(),
      provider: z.string().min(1).optional(),
      providers: z.record(z.string(), ProviderSection).optional(),
      /** Deprecated spelling of providers.gemini; still loads, with a warning. */
      gemini: ProviderSection.optional(),
      maxToolRounds: z.number().int().min(1).max(500).optional(),
      contextBudgetChars: z.number().int().min(10_000).optional(),
      /** Compact the older turns when the conversation passes this share of the budget (1: never on its own). */
      compactThreshold: z.number().min(0.2).max(1).optional(),
      commandTimeoutSec: z.number().int().min(1).max(3600).optional(),
      maxToolOutputChars: z.number().int().min(1000).optional(),
      permissions: z
        .object({
          allow: RuleList.optional(),
          ask: RuleList.optional(),
          deny: RuleList.optional(),
          additionalDirectories: z.array(z.string().min(1)).optional(),
        })
        .strict()
        .optional(),
      approvalMode: z.enum(['default', 'auto-edit', 'yolo', 'plan']).optional(),
      handoff: z.enum(['model', 'plain', 'off']).optional(),
      spawnConcurrency: z.number().int().min(1).max(16).optional(),
      autoDelegate: z.enum(['off', 'suggest', 'apply']).optional(),
      knowledge: z
        .object({
          collection: z
            .string()
            .regex(/^[A-Za-z0-9_-]+$/)
            .optional(),
          embeddings: z
            .union([z.enum(['none', 'gemini']), z.object({ command: z.array(z.string().min(1)).min(1), dims: z.number().int().min(1).max(8192) }).strict()])
            .optional(),
        })
        .strict()
        .optional(),
      /** MCP servers whose tools become devx tools (mcp__<server>__<tool>). */
      mcpServers: McpServersSchema.optional(),
      /** The persona (an agent's name) a session starts with. */
      defaultAgent: z.string().min(1).optional(),
      rateLimits: z
        .object({ toolCallsPerMinute: z.number().int().min(1).optional(), commandsPerMinute: z.number().int().min(1).optional() })
        .strict()
        .optional(),
      /** The project's test command, which workflows run to confirm a developer's claim (else detected). */
      testCommand: z.string().min(1).optional(),
      /** Where the task queue lives: "file" (.devx/agents/, the default) or a postgres:// URL (queue/openQueue.ts). */
      queue: z
        .string()
        .regex(/^(file|postgres(ql)?:\/\/.*)$/i, 'must be "file" or a postgres:// URL')
        .optional(),
      /** Programs run at points of a session, in Claude Code's format (config/hookSettings.ts). */
      hooks: HooksSchema.optional(),
      /** Use the MCP servers, skills, commands and hooks kept for Claude Code and Gemini CLI (default true). */
      importSetup: z.boolean().optional(),
    })
    .strict(),
);

export type Settings = z.infer<typeof SettingsSchema>;

export interface ResolvedSettings {
  /** The provider a session starts with (flag > project > user > "gemini"). */
  provider: string;
  model: string;
  fallbackModel?: string;
  /** Every registered provider's resolved settings; `model` is the session model or that provider's default. */
  providers: Record<string, ProviderSettings>;
  maxToolRounds: number;
  contextBudgetChars: number;
  /** The share of the context budget at which the older turns are compacted into a summary (1: only on /compact). */
  compactThreshold: number;
  commandTimeoutMs: number;
  maxToolOutputChars: number;
  permissionRules: PermissionRule[];
  /** Folders outside the project the model may read (Claude Code's permissions.additionalDirectories, --add-dir): absolute. */
  additionalDirectories: string[];
  approvalMode: 'default' | 'auto-edit' | 'yolo' | 'plan';
  /** How HANDOFF.md is written when a session ends. */
  handoff: 'model' | 'plain' | 'off';
  spawnConcurrency: number;
  /** Autodelegation: suggest an agent for free-form prompts, or (opt-in) offer to make it the persona. */
  autoDelegate: 'off' | 'suggest' | 'apply';
  knowledge: { collection?: string; embeddings?: 'none' | 'gemini' | { command: string[]; dims: number } };
  rateLimits: { toolCallsPerMinute: number; commandsPerMinute: number };
  testCommand?: string;
  /** The task queue: "file" or a postgres:// URL (DEVX_QUEUE_URL wins). */
  queue?: string;
  /** The user trusted this project (`devx trust`): its own tools, agents' home imports and allow rules apply. */
  trusted: boolean;
  /** Project `allow` rules that were not applied because the project is not trusted. */
  untrustedAllows: string[];
  /** MCP servers from every scope (project over user by name); a project's only once it is trusted. */
  mcpServers: McpServerEntry[];
  /** The persona a session starts with (project over user). */
  defaultAgent?: string;
  /** Hooks from every scope, user first; a project's (and its .claude settings') only once it is trusted. */
  hooks: HookEntry[];
  /** Whether Claude Code's and Gemini CLI's files (MCP servers, skills, commands, hooks) are read too. */
  importSetup: boolean;
  warnings: string[];
  files: string[];
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `links: 'any'` for the user's own file in their home (a dotfiles manager may hard-link it); a project's must be its own. */
export function readSettingsFile(file: string, links: 'one' | 'any' = 'one'): Settings | null {
  let text: string;
  try {
    const t = readTextIfPresentSync(file, READ_LIMITS.definition, links);
    if (t === undefined) return null;
    text = t;
  } catch (err) {
    if (err instanceof UnreadableFileError) throw new ConfigError(`${err.message}; move it aside and start again`);
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
  const data = parsed.data;
  // "provider" may name one by an alias ("openai" for codex); a "providers" section uses its id.
  if (data.provider !== undefined && !findProvider(data.provider))
    throw new ConfigError(`${file}: unknown provider "${data.provider}"; devx has: ${providerNames()}`);
  for (const id of Object.keys(data.providers ?? {})) {
    if (!providerIds().includes(id)) throw new ConfigError(`${file}: unknown provider "${id}"; devx has: ${providerIds().join(', ')}`);
  }
  return data;
}

/** The old `gemini` key folds into providers.gemini (the new key wins), with a deprecation line. */
function foldLegacy(file: string, s: Settings, warnings: string[]): Settings {
  if (!s.gemini) return s;
  warnings.push(`${file}: "gemini" is deprecated; move it to "providers": { "gemini": { ... } }`);
  const { gemini, ...rest } = s;
  return { ...rest, providers: { ...rest.providers, gemini: { ...gemini, ...rest.providers?.gemini } } };
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
  const extraDirs: string[] = [];
  const untrustedDirs: string[] = [];
  const addRules = (s: Settings, source: RuleSource) => {
    for (const d of s.permissions?.additionalDirectories ?? []) {
      // A folder outside the project widens what the model reads: a project's own list needs trust.
      if (source !== 'user' && !src.trusted) untrustedDirs.push(d);
      else extraDirs.push(d.startsWith('~/') || d === '~' ? path.join(src.env.HOME ?? '/', d.slice(1)) : path.resolve(src.projectRoot, d));
    }
    for (const kind of ['allow', 'ask', 'deny'] as const) {
      for (const raw of s.permissions?.[kind] ?? []) {
        // A project may tighten the policy freely; widening it needs the user's trust.
        if (kind === 'allow' && source !== 'user' && !src.trusted) untrustedAllows.push(raw);
        else rules.push(parseRule(raw, kind, source));
      }
    }
  };
  const sections: Record<string, ProviderSectionT> = {};
  const mcp = new Map<string, McpServerEntry>();
  const untrustedMcp: string[] = [];
  const addMcp = (s: Settings, file: string, project: boolean) => {
    for (const [name, cfg] of Object.entries(s.mcpServers ?? {})) {
      // A project's servers run programs of its choosing: like its allow rules, they need the user's trust.
      if (project && !src.trusted) untrustedMcp.push(name);
      else mcp.set(name, { ...cfg, name, file });
    }
  };
  const hooks: HookEntry[] = [];
  const untrustedHooks: string[] = [];
  const userRaw = readSettingsFile(userFile, 'any');
  const user = userRaw && foldLegacy(userFile, userRaw, warnings);
  if (user) {
    hooks.push(...flattenHooks(user.hooks, userFile));
    addRules(user, 'user');
    addMcp(user, userFile, false);
    files.push(userFile);
    Object.assign(merged, user);
    for (const [id, sec] of Object.entries(user.providers ?? {})) sections[id] = { ...sec };
  }
  for (const file of projectFiles) {
    const raw = readSettingsFile(file);
    if (!raw) continue;
    const s = foldLegacy(file, raw, warnings);
    addRules(s, file.endsWith('.local.json') ? 'local' : 'project');
    addMcp(s, file, true);
    // A project's hooks run programs of its choosing: like its MCP servers, they need the user's trust.
    if (s.hooks && !src.trusted) untrustedHooks.push(path.relative(src.projectRoot, file));
    else hooks.push(...flattenHooks(s.hooks, file));
    files.push(file);
    if (s.accounts) warnings.push(`${file}: "accounts" is ignored in project settings (it can run commands); set it in ${userFile}`);
    if (s.knowledge?.embeddings && typeof s.knowledge.embeddings === 'object') {
      warnings.push(`${file}: "knowledge.embeddings.command" is ignored in project settings (it runs a program); set it in ${userFile}`);
      s.knowledge = { ...s.knowledge, embeddings: undefined };
    }
    for (const [id, sec] of Object.entries(s.providers ?? {})) {
      if (sec.bin) warnings.push(`${file}: "providers.${id}.bin" is ignored in project settings (it runs a program); set it in ${userFile}`);
      if (sec.accounts) warnings.push(`${file}: "providers.${id}.accounts" is ignored in project settings (it can run commands); set it in ${userFile}`);
      const { bin: _b, accounts: _acc, ...safe } = sec;
      sections[id] = { ...sections[id], ...safe };
    }
    if (s.testCommand && !src.trusted) {
      warnings.push(`${file}: "testCommand" runs a program and is ignored until you trust the project with \`devx trust\``);
      delete s.testCommand;
    }
    if (s.queue && s.queue !== 'file' && !src.trusted) {
      // A repository's own settings must not send your tasks to (or take tasks from) a database of its choosing.
      warnings.push(`${file}: "queue" names a database for the task queue and is ignored until you trust the project with \`devx trust\``);
      delete s.queue;
    }
    if (s.defaultAgent && !src.trusted) {
      warnings.push(
        `${file}: "defaultAgent": "${s.defaultAgent}" chooses the persona (that agent's prompt, imports and tools) every session starts with; it is ignored until you trust the project with \`devx trust\``,
      );
      delete s.defaultAgent;
    }
    if (s.approvalMode && (s.approvalMode === 'yolo' || s.approvalMode === 'auto-edit') && !src.trusted) {
      warnings.push(`${file}: "approvalMode": "${s.approvalMode}" loosens approvals and is ignored until you trust the project with \`devx trust\``);
      delete s.approvalMode;
    }
    const { accounts: _a, providers: _p, mcpServers: _m, hooks: _h, ...rest } = s;
    const knowledge = { ...merged.knowledge, ...Object.fromEntries(Object.entries(rest.knowledge ?? {}).filter(([, v]) => v !== undefined)) };
    Object.assign(merged, rest, { knowledge });
  }
  // MCP servers from Claude Code's and Gemini CLI's files, under devx's own by name.
  const importSetup = user?.importSetup ?? true;
  const foreign = importSetup
    ? readForeignMcp({ root: src.projectRoot, userHome: src.env.HOME ?? path.dirname(src.devxHome), trusted: src.trusted === true })
    : { user: [], project: [], untrusted: [], errors: [] };
  for (const e of [...foreign.project, ...foreign.user]) if (!mcp.has(e.name)) mcp.set(e.name, e);
  untrustedMcp.push(...foreign.untrusted);
  warnings.push(...foreign.errors);
  const claude = importSetup ? readClaudeHooks(src.projectRoot) : { hooks: [], errors: [] };
  if (claude.hooks.length && !src.trusted) untrustedHooks.push(...new Set(claude.hooks.map((h) => path.relative(src.projectRoot, h.file))));
  else hooks.push(...claude.hooks);
  if (src.trusted) warnings.push(...claude.errors);
  const o = src.overrides ?? {};
  // Rules the invoking program adds with the user's authority (a workflow step's `allow`).
  if (o.permissions) addRules({ permissions: o.permissions }, 'user');
  const envNum = (name: string) => (src.env[name] ? Number(src.env[name]) : undefined);
  const named = o.provider ?? merged.provider ?? DEFAULT_PROVIDER;
  const provider = findProvider(named)?.id;
  if (!provider) throw new ConfigError(`unknown provider "${named}"; devx has: ${providerNames()}`);
  const chosenModel = o.model ?? src.env.DEVX_MODEL ?? merged.model;
  const fallbackModel = o.fallbackModel ?? merged.fallbackModel;
  const providers: Record<string, ProviderSettings> = {};
  for (const id of providerIds()) {
    const sec = sections[id] ?? {};
    const p = getProvider(id);
    const own = id === provider;
    providers[id] = {
      bin: src.env[`DEVX_${id.toUpperCase()}_BIN`] ?? sec.bin ?? p.defaultBin,
      // The session's model and fallback belong to its provider; another provider (an agent's) uses its own default.
      model: (own ? chosenModel : undefined) ?? p.defaultModel,
      fallbackModel: own ? fallbackModel : undefined,
      // Top-level "accounts" is the older spelling of providers.gemini.accounts.
      accounts: sec.accounts ?? (id === 'gemini' ? merged.accounts : undefined) ?? [],
      timeoutMs: (envNum('DEVX_TURN_TIMEOUT_SEC') ?? sec.timeoutSec ?? 600) * 1000,
      maxRetries: envNum('DEVX_MAX_RETRIES') ?? sec.maxRetries ?? 3,
      retryBaseMs: envNum('DEVX_RETRY_BASE_MS') ?? sec.retryBaseMs ?? 2000,
      retryMaxMs: sec.retryMaxMs ?? 60_000,
      mode: (src.env.DEVX_PROVIDER_MODE === 'warm' || src.env.DEVX_PROVIDER_MODE === 'spawn' ? src.env.DEVX_PROVIDER_MODE : undefined) ?? sec.mode ?? 'auto',
    };
  }
  return {
    provider,
    model: providers[provider].model,
    fallbackModel,
    providers,
    maxToolRounds: o.maxToolRounds ?? merged.maxToolRounds ?? 25,
    contextBudgetChars: merged.contextBudgetChars ?? 400_000,
    compactThreshold: merged.compactThreshold ?? 0.8,
    commandTimeoutMs: (merged.commandTimeoutSec ?? 120) * 1000,
    maxToolOutputChars: merged.maxToolOutputChars ?? 50_000,
    permissionRules: rules,
    additionalDirectories: [...new Set(extraDirs)],
    approvalMode: o.approvalMode ?? merged.approvalMode ?? 'default',
    knowledge: { ...merged.knowledge },
    spawnConcurrency: merged.spawnConcurrency ?? 4,
    autoDelegate: merged.autoDelegate ?? 'suggest',
    handoff: (['model', 'plain', 'off'].includes(src.env.DEVX_HANDOFF ?? '') ? (src.env.DEVX_HANDOFF as 'model') : undefined) ?? merged.handoff ?? 'model',
    rateLimits: { toolCallsPerMinute: merged.rateLimits?.toolCallsPerMinute ?? 120, commandsPerMinute: merged.rateLimits?.commandsPerMinute ?? 30 },
    testCommand: merged.testCommand,
    queue: merged.queue,
    trusted: src.trusted === true,
    untrustedAllows,
    mcpServers: [...mcp.values()],
    defaultAgent: merged.defaultAgent,
    hooks,
    importSetup,
    warnings: [
      ...warnings,
      ...(untrustedAllows.length
        ? [`this project's settings allow ${untrustedAllows.join(', ')}; they are ignored until you trust the project with \`devx trust\``]
        : []),
      ...(untrustedDirs.length
        ? [
            `this project's settings add the folders ${untrustedDirs.join(', ')} to what the model may read; they are ignored until you trust the project with \`devx trust\``,
          ]
        : []),
      ...(untrustedHooks.length
        ? [
            `this project asks for hooks (in ${untrustedHooks.join(', ')}), which run programs; they are not run until you trust the project with \`devx trust\``,
          ]
        : []),
      ...(untrustedMcp.length
        ? [`this project's MCP servers (${untrustedMcp.join(', ')}) run programs; they are not started until you trust the project with \`devx trust\``]
        : []),
    ],
    files,
  };
}
