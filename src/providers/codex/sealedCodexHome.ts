// The home devx's codex calls run with, sealed from the person's own Codex set-up. codex 0.169 reads
// everything it knows about a person from $CODEX_HOME (else ~/.codex): config.toml (model providers, MCP
// servers, hooks, profiles, features), AGENTS.md and AGENTS.override.md (sent to the model as
// instructions even with project docs off: measured), auth.json, skills/, plugins/, rules/; and from
// $HOME it reads ~/.agents/skills (a person's skills, listed to the model: measured). A folder of
// devx's own as both closes all of these at once, and whatever codex adds there later.
//
// Nothing of the person's carries over: devx's codex calls authenticate with an API key in the
// environment (OPENAI_API_KEY or CODEX_API_KEY), never a ChatGPT login. The seal's config.toml is
// devx's: one model provider of its own (the Responses API at OPENAI_BASE_URL, else OpenAI's; the key
// from whichever of CODEX_API_KEY and OPENAI_API_KEY holds it, named, never copied; no websocket transport and no retries of codex's own, since devx retries with
// accounts and fallback), analytics off, and a model catalog of devx's (MODEL_CATALOG).
//
// The catalog: codex's bundled metadata for its own models (gpt-6.1-sol...) turns on tools that no
// switch turns off (the model's tool_mode wins over the code_mode feature): a JavaScript `exec` tool,
// `clock.sleep`, and the sub-agent tools of its multi-agent mode, with messages describing them
// (measured, 0.169). A catalog that names only a placeholder gives every model codex's fallback
// metadata instead: the plain Responses request, whose tools devx's switches remove (codexCli.ts).
// codex notes it ("Model metadata for `...` not found") as a warning event; the request is valid.
//
// The seal is a folder under ~/.devx/codex-home (mode 0700) named by a hash of what it holds, so one
// name always holds the same content and runs with different base URLs never share one. codex keeps
// its own state there (sqlite files, installation_id).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { devxHome } from '../../util/devxHome.js';
import { writeStateSync } from '../../util/atomicWrite.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';

/** OpenAI's Responses API, when OPENAI_BASE_URL does not name another. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** TOML for a string value: a JSON string is a valid TOML basic string. */
const tomlString = (s: string) => JSON.stringify(s);

/** A model catalog with one hidden placeholder (codex wants at least one): every real model gets the fallback metadata. */
export const MODEL_CATALOG = `${JSON.stringify({
  models: [
    {
      slug: 'devx-placeholder',
      display_name: 'devx placeholder',
      supported_reasoning_levels: [],
      shell_type: 'default',
      visibility: 'hide',
      supported_in_api: true,
      priority: 0,
      support_verbosity: false,
      truncation_policy: { mode: 'tokens', limit: 10000 },
      experimental_supported_tools: [],
      base_instructions: '',
    },
  ],
})}\n`;

/** devx's config.toml for codex: its own model provider (the Responses API at `baseUrl`, the key in `keyEnv`) and model catalog. */
export function codexConfigToml(baseUrl: string, keyEnv: string, catalogFile: string): string {
  return [
    '# devx: the configuration of its own codex calls (providers/codex/sealedCodexHome.ts); none of ~/.codex.',
    'model_provider = "devx"',
    `model_catalog_json = ${tomlString(catalogFile)}`,
    '',
    '[model_providers.devx]',
    'name = "devx"',
    `base_url = ${tomlString(baseUrl)}`,
    `env_key = ${tomlString(keyEnv)}`,
    'wire_api = "responses"',
    'supports_websockets = false',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}

/** The Responses API base URL for a call with this environment. */
export function codexBaseUrl(env: Record<string, string | undefined>): string {
  return (env.OPENAI_BASE_URL || OPENAI_BASE_URL).replace(/\/+$/, '');
}

/**
 * The sealed home for a codex launched with `env` (devx's environment with the account's) that reads its
 * key from the variable `keyEnv`, made or checked now: the folder to use as HOME, with CODEX_HOME at its
 * `.codex`. It lives in the devx home that owns `workDir`; a backend given a work folder elsewhere (tests,
 * embedders) keeps it in that folder.
 */
export function sealedCodexHome(env: Record<string, string | undefined>, workDir: string, keyEnv = 'OPENAI_API_KEY'): string {
  const effective = { ...process.env, ...env };
  const owner = devxHome(effective);
  const inOwner = path.resolve(workDir).startsWith(path.resolve(owner) + path.sep);
  const root = path.join(inOwner ? owner : workDir, 'codex-home');
  const baseUrl = codexBaseUrl(effective);
  // Named by what it holds (the config names the catalog by its path in the seal, so the hash takes its parts).
  const key = crypto
    .createHash('sha256')
    .update(JSON.stringify([codexConfigToml(baseUrl, keyEnv, ''), MODEL_CATALOG]))
    .digest('hex')
    .slice(0, 16);
  const dir = path.join(root, key);
  const codexDir = path.join(dir, '.codex');
  mkdirOwnedSync(codexDir, 0o700);
  for (const d of [root, dir, codexDir]) {
    if ((fs.statSync(d).mode & 0o077) !== 0) fs.chmodSync(d, 0o700);
  }
  const catalog = path.join(codexDir, 'devx-models.json');
  const config = codexConfigToml(baseUrl, keyEnv, catalog);
  // The catalog first: a codex started meanwhile reads a config only once what it names is there.
  if (readOrNull(catalog) !== MODEL_CATALOG) writeStateSync(catalog, MODEL_CATALOG);
  const file = path.join(codexDir, 'config.toml');
  if (readOrNull(file) !== config) writeStateSync(file, config);
  return dir;
}

function readOrNull(p: string): string | null {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
