// devx settings: ~/.devx/settings.json (user), .devx/settings.json (project, shared) and
// .devx/settings.local.json (project, personal), merged in that order. Invalid files are fatal
// with the file, key and reason. Which layer may set which key, and what waits for `devx trust`, is one
// table (settingsLayers.ts): a cloned repository must not be able to make devx execute its scripts.
import { READ_LIMITS, readTextIfPresentSync, UnreadableFileError } from '../util/readRegularFileSync.js';
import path from 'node:path';
import type { ProviderSettings } from '../providers/types.js';
import { DEFAULT_PROVIDER, findProvider, getProvider, providerIds, providerNames } from '../providers/registry.js';
import { parseRule, type PermissionRule, type RuleSource } from '../policy/permissions.js';
import type { McpServerEntry } from './mcpSettings.js';
import { parseHooks, readProjectHooks, readUserHooks, type HookEntry } from './hookSettings.js';
import { readForeignMcp } from './foreignMcp.js';
import { readExtensionSettings } from './extensionSettings.js';
import { gateLayer, type Layer, type LayerName } from './settingsLayers.js';

export { SettingsSchema, type Settings } from './settingsSchema.js';
import { SettingsSchema, type Settings } from './settingsSchema.js';

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
  /** MCP servers from every scope (project over user over extensions by name); a project's only once it is trusted. */
  mcpServers: McpServerEntry[];
  /** The persona a session starts with (project over user). */
  defaultAgent?: string;
  /** Hooks from every scope, user first; a project's (and its .claude settings') only once it is trusted; extensions' last. */
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
  const userFile = path.join(src.devxHome, 'settings.json');
  const layers = readLayers(src, userFile, warnings);
  const gated = layers.map((l) => ({ layer: l, ...gateLayer(l, src.trusted === true, userFile) }));
  for (const g of gated) warnings.push(...g.warnings);
  const merged = mergeLayers(gated.map((g) => g.settings));
  const perms = collectPermissions(
    gated.map((g) => ({ settings: g.layer.settings, name: g.layer.name })),
    src,
  );
  const mcp = new Map<string, McpServerEntry>();
  const hooks: HookEntry[] = [];
  for (const g of gated) {
    for (const [name, cfg] of Object.entries(g.settings.mcpServers ?? {})) mcp.set(name, { ...cfg, name, file: g.layer.file });
    const own = parseHooks(g.settings.hooks, g.layer.file);
    hooks.push(...own.hooks);
    warnings.push(...own.notes);
  }
  const untrustedMcp = gated.flatMap((g) => g.waiting.filter((w) => w.key === 'mcpServers').flatMap((w) => Object.keys(w.value as object)));
  const untrustedHooks = gated.flatMap((g) => g.waiting.filter((w) => w.key === 'hooks').map(() => path.relative(src.projectRoot, g.layer.file)));
  // MCP servers and hooks from Claude Code's and Gemini CLI's files, under devx's own by name.
  const importSetup = layers.find((l) => l.name === 'user')?.settings.importSetup ?? true;
  const foreign = importSetup
    ? readForeignMcp({ root: src.projectRoot, userHome: src.env.HOME ?? path.dirname(src.devxHome), trusted: src.trusted === true })
    : { user: [], project: [], untrusted: [], errors: [] };
  for (const e of [...foreign.project, ...foreign.user]) if (!mcp.has(e.name)) mcp.set(e.name, e);
  untrustedMcp.push(...foreign.untrusted);
  warnings.push(...foreign.errors);
  // The person's own Claude Code and Gemini CLI hooks run as those tools run them (named at start); a project's wait for trust.
  const userHome = src.env.HOME ?? path.dirname(src.devxHome);
  const mine = importSetup ? readUserHooks(userHome) : { hooks: [], notes: [] };
  hooks.unshift(...mine.hooks);
  warnings.push(...mine.notes, ...namedHooks(mine.hooks, userHome));
  const theirs = importSetup ? readProjectHooks(src.projectRoot) : { hooks: [], notes: [] };
  if (theirs.hooks.length && !src.trusted) untrustedHooks.push(...new Set(theirs.hooks.map((h) => path.relative(src.projectRoot, h.file))));
  else hooks.push(...theirs.hooks);
  if (src.trusted) warnings.push(...theirs.notes);
  // Installed extensions: the user's own choice (every project), under everything else by name.
  const ext = readExtensionSettings(src.devxHome, src.projectRoot);
  for (const e of ext.mcpServers) {
    if (!mcp.has(e.name)) mcp.set(e.name, e);
    else warnings.push(`${e.file}: MCP server "${e.name}" is not started: ${mcp.get(e.name)!.file} has a server of that name, which wins`);
  }
  hooks.push(...ext.hooks);
  perms.rules.push(...ext.denyRules);
  warnings.push(...ext.warnings);
  const o = src.overrides ?? {};
  // Rules the invoking program adds with the user's authority (a workflow step's `allow`).
  if (o.permissions) perms.rules.push(...rulesOf(o.permissions, 'user'));
  return {
    ...resolveValues(merged, o, src),
    permissionRules: perms.rules,
    additionalDirectories: [...new Set(perms.dirs)],
    trusted: src.trusted === true,
    untrustedAllows: perms.untrustedAllows,
    mcpServers: [...mcp.values()],
    hooks,
    importSetup,
    warnings: [...warnings, ...untrustedLines(perms.untrustedAllows, perms.untrustedDirs, untrustedHooks, untrustedMcp)],
    files: layers.map((l) => l.file),
  };
}

/** The settings files that exist, parsed (the user's, the project's shared, the project's personal), each a layer. */
function readLayers(src: SettingsSources, userFile: string, warnings: string[]): Layer[] {
  const candidates: [LayerName, string][] = [
    ['user', userFile],
    ['project', path.join(src.projectRoot, '.devx', 'settings.json')],
    ['local', path.join(src.projectRoot, '.devx', 'settings.local.json')],
  ];
  const layers: Layer[] = [];
  for (const [name, file] of candidates) {
    const raw = readSettingsFile(file, name === 'user' ? 'any' : 'one');
    if (raw) layers.push({ name, file, settings: foldLegacy(file, raw, warnings) });
  }
  return layers;
}

/** Later layers win key by key; knowledge and provider sections merge field by field. */
function mergeLayers(layers: Settings[]): Settings {
  const merged: Settings = {};
  for (const s of layers) {
    const { providers, mcpServers: _m, hooks: _h, permissions: _p, ...rest } = s;
    const knowledge = { ...merged.knowledge, ...Object.fromEntries(Object.entries(rest.knowledge ?? {}).filter(([, v]) => v !== undefined)) };
    const sections = { ...merged.providers };
    for (const [id, sec] of Object.entries(providers ?? {})) sections[id] = { ...sections[id], ...sec };
    Object.assign(merged, rest, { knowledge, providers: sections });
  }
  return merged;
}

/** Permission rules and extra folders from every layer; a project's allow rules and folders wait for trust. */
function collectPermissions(layers: { settings: Settings; name: LayerName }[], src: SettingsSources) {
  const out = { rules: [] as PermissionRule[], dirs: [] as string[], untrustedAllows: [] as string[], untrustedDirs: [] as string[] };
  for (const { settings, name } of layers) {
    const source: RuleSource = name;
    const widens = name !== 'user' && !src.trusted;
    for (const d of settings.permissions?.additionalDirectories ?? []) {
      // A folder outside the project widens what the model reads: a project's own list needs trust.
      if (widens) out.untrustedDirs.push(d);
      else out.dirs.push(d.startsWith('~/') || d === '~' ? path.join(src.env.HOME ?? '/', d.slice(1)) : path.resolve(src.projectRoot, d));
    }
    // A project may tighten the policy freely; widening it needs the user's trust.
    if (widens) out.untrustedAllows.push(...(settings.permissions?.allow ?? []));
    out.rules.push(...rulesOf(widens ? { ...settings.permissions, allow: [] } : settings.permissions, source));
  }
  return out;
}

function rulesOf(p: Settings['permissions'], source: RuleSource): PermissionRule[] {
  return (['allow', 'ask', 'deny'] as const).flatMap((kind) => (p?.[kind] ?? []).map((raw) => parseRule(raw, kind, source)));
}

/** The plain values: flags over the environment over the merged files over the defaults. */
function resolveValues(merged: Settings, o: Partial<Settings>, src: SettingsSources) {
  const envNum = (name: string) => (src.env[name] ? Number(src.env[name]) : undefined);
  const named = o.provider ?? merged.provider ?? DEFAULT_PROVIDER;
  const provider = findProvider(named)?.id;
  if (!provider) throw new ConfigError(`unknown provider "${named}"; devx has: ${providerNames()}`);
  const chosenModel = o.model ?? src.env.DEVX_MODEL ?? merged.model;
  const fallbackModel = o.fallbackModel ?? merged.fallbackModel;
  const providers: Record<string, ProviderSettings> = {};
  for (const id of providerIds()) {
    const sec = merged.providers?.[id] ?? {};
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
    approvalMode: o.approvalMode ?? merged.approvalMode ?? 'default',
    knowledge: { ...merged.knowledge },
    spawnConcurrency: merged.spawnConcurrency ?? 4,
    autoDelegate: merged.autoDelegate ?? 'suggest',
    handoff: (['model', 'plain', 'off'].includes(src.env.DEVX_HANDOFF ?? '') ? (src.env.DEVX_HANDOFF as 'model') : undefined) ?? merged.handoff ?? 'model',
    rateLimits: { toolCallsPerMinute: merged.rateLimits?.toolCallsPerMinute ?? 120, commandsPerMinute: merged.rateLimits?.commandsPerMinute ?? 30 },
    testCommand: merged.testCommand,
    queue: merged.queue,
    defaultAgent: merged.defaultAgent,
  };
}

/** One line naming the person's own hooks devx runs (each file, its events), so none runs unseen. */
function namedHooks(hooks: HookEntry[], home: string): string[] {
  const byFile = new Map<string, Set<string>>();
  for (const h of hooks) byFile.set(h.file, (byFile.get(h.file) ?? new Set()).add(h.name));
  const files = [...byFile].map(([f, events]) => `${f.replace(home, '~')} (${[...events].join(', ')})`);
  return files.length ? [`running your hooks from ${files.join(' and ')}; set "importSetup": false in ~/.devx/settings.json to leave them out`] : [];
}

/** One line per kind of thing an untrusted project asked for and did not get. */
function untrustedLines(allows: string[], dirs: string[], hooks: string[], mcp: string[]): string[] {
  return [
    ...(allows.length ? [`this project's settings allow ${allows.join(', ')}; they are ignored until you trust the project with \`devx trust\``] : []),
    ...(dirs.length
      ? [
          `this project's settings add the folders ${dirs.join(', ')} to what the model may read; they are ignored until you trust the project with \`devx trust\``,
        ]
      : []),
    ...(hooks.length
      ? [`this project asks for hooks (in ${hooks.join(', ')}), which run programs; they are not run until you trust the project with \`devx trust\``]
      : []),
    ...(mcp.length
      ? [`this project's MCP servers (${mcp.join(', ')}) run programs; they are not started until you trust the project with \`devx trust\``]
      : []),
  ];
}
