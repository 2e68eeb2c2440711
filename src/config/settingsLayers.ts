// Settings come in layers: the user's own file, the project's shared one, the project's personal one.
// One table says, for every key, which layers may set it and what a project's value does before the user
// trusts the project. Adding a key to the schema without a line here does not compile.
import type { Settings } from './settingsSchema.js';

export type LayerName = 'user' | 'project' | 'local';

/** One parsed settings file. */
export interface Layer {
  name: LayerName;
  file: string;
  settings: Settings;
}

/** What a key may do outside the user's own file. */
interface KeyRule {
  /** Only the user's file may set it: it runs a program or reaches outside (the reason says which). */
  userOnly?: string;
  /** A project's value waits for `devx trust` (the reason is said once); `when` limits that to some values. */
  trust?: { why: string; when?: (value: unknown) => boolean; show?: boolean };
}

const RUNS = 'runs a program';
export const KEY_RULES: { [K in keyof Settings]-?: KeyRule } = {
  model: {},
  fallbackModel: {},
  provider: {},
  providers: {}, // its bin and accounts are user-only: gateProviders below
  gemini: {},
  accounts: { userOnly: 'it can run commands' },
  maxToolRounds: {},
  contextBudgetChars: {},
  compactThreshold: {},
  commandTimeoutSec: {},
  maxToolOutputChars: {},
  permissions: {}, // allow rules and additionalDirectories wait for trust: gatePermissions below
  approvalMode: { trust: { why: 'loosens approvals', when: (v) => v === 'yolo' || v === 'auto-edit', show: true } },
  handoff: {},
  spawnConcurrency: {},
  autoDelegate: {},
  knowledge: {}, // a command for embeddings is user-only: gateKnowledge below
  mcpServers: { trust: { why: 'its servers run programs' } },
  defaultAgent: { trust: { why: "chooses the persona (that agent's prompt, imports and tools) every session starts with", show: true } },
  rateLimits: {},
  testCommand: { trust: { why: RUNS } },
  queue: { trust: { why: 'names a database for the task queue', when: (v) => v !== 'file' } },
  hooks: { trust: { why: 'its hooks run programs' } },
  importSetup: { userOnly: 'it chooses which of your own Claude Code and Gemini CLI files devx reads' },
};

/** What gating a layer left out, for the start-up lines. */
export interface Gated {
  settings: Settings;
  /** `file: "key" … ignored …` lines. */
  warnings: string[];
  /** Values that wait for trust (hooks and MCP servers: said in one line each by the caller). */
  waiting: { key: keyof Settings; file: string; value: unknown }[];
}

/** A layer with what it may not set taken out, each removal named. The user's own layer passes whole. */
export function gateLayer(layer: Layer, trusted: boolean, userFile: string): Gated {
  if (layer.name === 'user') return { settings: layer.settings, warnings: [], waiting: [] };
  const s: Settings = { ...layer.settings };
  const warnings: string[] = [];
  const waiting: Gated['waiting'] = [];
  for (const key of Object.keys(s) as (keyof Settings)[]) {
    const rule = KEY_RULES[key];
    if (rule.userOnly) {
      warnings.push(`${layer.file}: "${key}" is ignored in project settings (${rule.userOnly}); set it in ${userFile}`);
      delete s[key];
    } else if (rule.trust && !trusted && (!rule.trust.when || rule.trust.when(s[key]))) {
      waiting.push({ key, file: layer.file, value: s[key] });
      if (key !== 'hooks' && key !== 'mcpServers')
        warnings.push(
          `${layer.file}: "${key}"${rule.trust.show ? `: "${String(s[key])}"` : ''} ${rule.trust.why} and is ignored until you trust the project with \`devx trust\``,
        );
      delete s[key];
    }
  }
  gateProviders(s, layer.file, userFile, warnings);
  gateKnowledge(s, layer.file, userFile, warnings);
  return { settings: s, warnings, waiting };
}

/** A project's provider sections keep their tuning but not `bin` or `accounts` (they run programs). */
function gateProviders(s: Settings, file: string, userFile: string, warnings: string[]): void {
  if (!s.providers) return;
  const out: NonNullable<Settings['providers']> = {};
  for (const [id, sec] of Object.entries(s.providers)) {
    if (sec.bin) warnings.push(`${file}: "providers.${id}.bin" is ignored in project settings (it runs a program); set it in ${userFile}`);
    if (sec.accounts) warnings.push(`${file}: "providers.${id}.accounts" is ignored in project settings (it can run commands); set it in ${userFile}`);
    const { bin: _b, accounts: _a, ...safe } = sec;
    out[id] = safe;
  }
  s.providers = out;
}

/** A project's knowledge settings keep the collection, not an embeddings command. */
function gateKnowledge(s: Settings, file: string, userFile: string, warnings: string[]): void {
  if (s.knowledge?.embeddings && typeof s.knowledge.embeddings === 'object') {
    warnings.push(`${file}: "knowledge.embeddings.command" is ignored in project settings (it runs a program); set it in ${userFile}`);
    s.knowledge = { ...s.knowledge, embeddings: undefined };
  }
}
