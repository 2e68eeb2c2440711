// OpenAI's Codex CLI, one `codex exec --json` process per attempt, driven as gemini and claude are: the
// prompt on stdin, devx's system prompt in place of codex's own (model_instructions_file), none of its
// tools, a read-only sandbox (devx runs the tools, under its own policy), a scratch working directory,
// and a sealed home of devx's (sealedCodexHome.ts): none of the person's ~/.codex config, AGENTS.md,
// skills, plugins, hooks or MCP servers. Its own retries are off: the shared RetryingBackend owns
// accounts, backoff and fallback.
//
// What each switch removes was measured with @openai/codex 0.169 against a fake Responses API (the
// request's `tools` and `input`): without it the request carries
//   --disable shell_tool          exec_command, write_stdin      --disable view_image   view_image
//   --disable multi_agent         multi_agent_v1                 --disable goals        get_goal, create_goal, update_goal
//   web_search="disabled"         web_search                     tools.experimental_request_user_input  request_user_input
//   skills.*                      a <skills_instructions> message listing ~/.agents/skills and codex's own
//   include_permissions_instructions, include_environment_context   messages on the sandbox, cwd, shell and date
//   project_doc_max_bytes=0       AGENTS.md files from the working folder up to its repository root
//   --disable plugins             a DNS look-up of github.com at start-up (its plugin marketplace)
//   --disable unbounded_connection_retries   an API that refuses connections makes codex wait for the network for ever
import { BackendError } from '../types.js';
import { CliBackend, type CliBackendOptions, type CliSpec } from '../cliBackend.js';
import { classifyCodexResult, CODEX_KEY_HINT } from './classifyCodexResult.js';
import { sealedCodexHome } from './sealedCodexHome.js';

export const CODEX_INSTALL_HINT =
  'devx needs the Codex CLI for the codex provider. Install it with `npm install -g @openai/codex` (and set OPENAI_API_KEY), or point devx at it with DEVX_CODEX_BIN or "providers.codex.bin" in settings.';

const DISABLED_FEATURES = [
  'shell_tool',
  'unified_exec',
  'view_image',
  'multi_agent',
  'goals',
  'image_generation',
  'plugins',
  'apps',
  'hooks',
  'unbounded_connection_retries',
];

const CONFIG = [
  'include_permissions_instructions=false',
  'include_apps_instructions=false',
  'include_environment_context=false',
  'project_doc_max_bytes=0',
  'web_search="disabled"',
  'skills.bundled.enabled=false',
  'skills.include_instructions=false',
  'tools.experimental_request_user_input.enabled=false',
];

export function codexArgs(model: string, systemFile: string): string[] {
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--ephemeral',
    '--ignore-rules',
    '--sandbox',
    'read-only',
    `--model=${model}`,
    '-c',
    `model_instructions_file=${JSON.stringify(systemFile)}`,
    ...CONFIG.flatMap((c) => ['-c', c]),
    ...DISABLED_FEATURES.flatMap((f) => ['--disable', f]),
    // The prompt: stdin.
    '-',
  ];
}

/**
 * The variable holding the call's API key: the account's own first, then devx's environment; CODEX_API_KEY
 * before OPENAI_API_KEY in each. codex is told its name (never a copy of the key, which would then be an
 * environment entry devx adds, and be recorded for a head start).
 */
function keyVarOf(base: Record<string, string>, accountEnv: Record<string, string> = {}): string | undefined {
  return ['CODEX_API_KEY', 'OPENAI_API_KEY'].find((v) => accountEnv[v]) ?? ['CODEX_API_KEY', 'OPENAI_API_KEY'].find((v) => base[v]);
}

export function codexSpec(workDir: string): CliSpec {
  return {
    name: 'codex',
    api: 'the OpenAI API',
    installHint: CODEX_INSTALL_HINT,
    args: codexArgs,
    env: (base, { account }) => {
      // An account that is a wrapper command sets up codex itself (its home, its key): devx leaves it be.
      if (account?.command) return { ...base, NO_COLOR: '1' };
      const keyEnv = keyVarOf(base, account?.env);
      if (!keyEnv) throw new BackendError('auth', `codex has no API key: ${CODEX_KEY_HINT}`, null, account?.name);
      const home = sealedCodexHome(base, workDir, keyEnv);
      return { ...base, HOME: home, CODEX_HOME: `${home}/.codex`, NO_COLOR: '1' };
    },
    classify: classifyCodexResult,
    // The turn's last event; codex still closes its session after it.
    answerMarker: /"type":\s*"turn\.completed"/,
    // The next one-shot run may start codex ahead (util/prestart): the sealed home outlives runs, and
    // devx's system prompt file is written before the head start. codex waits for its stdin; a devx that
    // dies first closes it, and codex exits with "No prompt provided via stdin." and makes no request.
    launch: { dirs: [], files: {}, tooEarly: /failed to read model instructions file|No prompt provided via stdin/ },
  };
}

export class CodexCliBackend extends CliBackend {
  constructor(opts: CliBackendOptions) {
    super(codexSpec(opts.workDir), opts);
  }
}
