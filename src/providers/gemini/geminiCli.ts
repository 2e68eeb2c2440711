// The Gemini CLI, one headless `gemini` process per attempt. gemini runs in an empty scratch
// directory devx owns (never the user's project), all its native tools are removed by a deny-all
// policy, its system prompt is replaced through GEMINI_SYSTEM_MD, and its home is a sealed one of
// devx's (sealedHome.ts): the person's login, none of their hooks, MCP servers, context files or extensions.
import fs from 'node:fs';
import path from 'node:path';
import { writeStateSync } from '../../util/atomicWrite.js';
import { CliBackend, type CliBackendOptions, type CliSpec } from '../cliBackend.js';
import { classifyGeminiResult, classifyGeminiStream, geminiInternalRetry, streamLine } from './classifyGeminiExit.js';
import { sealedGeminiHome } from './sealedHome.js';
import { dropLeftRegistryLock } from './registryLock.js';
import { geminiCompileCacheEnv } from './compileCache.js';
import { mkdirOwnedSync } from '../../util/ownedFile.js';

export type GeminiCliOptions = CliBackendOptions;

export const DENY_ALL_POLICY = `# devx: gemini must not run any of its own tools; devx executes tools itself.
[[rule]]
toolName = "*"
decision = "deny"
priority = 999
`;

export const INSTALL_HINT =
  'devx needs the Gemini CLI. Install it with `npm install -g @google/gemini-cli` (then run `gemini` once to log in), or point devx at it with DEVX_GEMINI_BIN or "providers.gemini.bin" in settings.';

/**
 * Workspace settings of the folder gemini runs in (they override user settings). One attempt per call:
 * gemini's own retries would hide an API error from devx for minutes, and after a connection cut
 * mid-reply a one-shot gemini retried and then exited 0 with the part it had (measured, 0.61), a
 * truncated answer passed off as whole. Besides, a second wall behind the sealed home (sealedHome.ts),
 * for a gemini that would read the person's own settings anyway (one older than GEMINI_CLI_HOME, or an
 * account wrapper that sets its home): hooks off, none of their extra context file names (0.61 always
 * adds GEMINI.md, so only the seal keeps ~/.gemini/GEMINI.md out), and no memory-file search above this
 * folder. MCP servers and tool discovery have no such switch: only the seal stops them. And no built-in
 * tool is even built (`tools.core` is an allowlist; empty, gemini constructs none): a wall behind the
 * deny-all policy, and a cheaper start, since its shell tool loads a bash parser (WebAssembly) as it is
 * built and its search tools look for ripgrep (`npm run bench`, "gemini start").
 */
export const GEMINI_WORKSPACE_SETTINGS = {
  general: { maxAttempts: 1 },
  tools: { core: [] as string[], useRipgrep: false },
  hooksConfig: { enabled: false },
  context: { fileName: 'DEVX-NO-CONTEXT-FILE.md', memoryBoundaryMarkers: [], loadMemoryFromIncludeDirectories: false },
};

/** Makes `cwd` a folder gemini runs in with devx's workspace settings; returns the settings file. */
export function geminiWorkspace(cwd: string): string {
  const file = path.join(cwd, '.gemini', 'settings.json');
  const text = JSON.stringify(GEMINI_WORKSPACE_SETTINGS);
  mkdirOwnedSync(path.dirname(file), 0o700);
  if (!sameContent(file, text)) writeStateSync(file, text);
  return file;
}

export function geminiSpec(workDir: string): CliSpec & { acpArgs(model: string): string[] } {
  const policyFile = path.join(workDir, 'deny-all-tools.toml');
  const tmp = path.join(workDir, 'tmp');
  mkdirOwnedSync(tmp, 0o700);
  // A pre-started gemini (util/prestart) may be reading the file this run's head start wrote.
  if (!sameContent(policyFile, DENY_ALL_POLICY)) writeStateSync(policyFile, DENY_ALL_POLICY);
  // The folder a per-call gemini runs in (CliBackend's scratch).
  const workspaceSettings = geminiWorkspace(path.join(workDir, 'scratch'));
  return {
    name: 'gemini',
    api: 'the Gemini API',
    installHint: INSTALL_HINT,
    // `--model=<name>`: a name that starts with '-' (a project's setting, an agent file's) stays a name, not an option.
    args: (model) => [`--model=${model}`, '-o', 'json', '--policy', policyFile, '-e', 'none'],
    acpArgs: (model) => [`--model=${model}`, '--policy', policyFile, '-e', 'none', '--acp'],
    streaming: {
      args: (model) => [`--model=${model}`, '-o', 'stream-json', '--policy', policyFile, '-e', 'none'],
      delta: (line) => streamLine(line)?.delta ?? null,
      classify: classifyGeminiStream,
      answerMarker: /"type":\s*"result"/,
    },
    env: (base, { systemFile, account }) => ({
      // gemini re-launches itself in a second node process only to raise its heap limit; one headless
      // call does not need that, and skipping it shortens every call (`npm run bench`, "gemini call"). Overridable.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      ...geminiCompileCacheEnv(base, workDir),
      ...base,
      // Sealed relative to the home this call's gemini would use (an account's own GEMINI_CLI_HOME, else
      // HOME). An account that is a wrapper command chooses gemini's home itself (it may set HOME or
      // GEMINI_CLI_HOME for its login), so devx does not override it.
      ...(account?.command ? {} : { GEMINI_CLI_HOME: sealedHomeFor(base, workDir) }),
      GEMINI_SYSTEM_MD: systemFile,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      TMPDIR: tmp,
      NO_COLOR: '1',
    }),
    // A registry lock gemini exited with would hold up the next gemini until it went stale (registryLock.ts). Only in
    // devx's own sealed home: never in the home an account's wrapper command chose.
    afterExit: (env, startedAt) => {
      if (env.GEMINI_CLI_HOME && sealedHomes.has(env.GEMINI_CLI_HOME)) dropLeftRegistryLock(env.GEMINI_CLI_HOME, { since: startedAt });
    },
    classify: classifyGeminiResult,
    // gemini spends a while shutting down after it prints its JSON; devx goes on meanwhile.
    answerMarker: /\}\s*$/,
    earlyFailure: geminiInternalRetry,
    launch: {
      dirs: [tmp, path.dirname(workspaceSettings)],
      files: { [policyFile]: DENY_ALL_POLICY, [workspaceSettings]: JSON.stringify(GEMINI_WORKSPACE_SETTINGS) },
      tooEarly: /missing system prompt file|No input provided via stdin/,
    },
  };
}

/** The sealed homes this process gave its gemini calls: the only homes a left registry lock is removed from. */
const sealedHomes = new Set<string>();

function sealedHomeFor(base: Record<string, string>, workDir: string): string {
  const home = sealedGeminiHome(base, workDir);
  sealedHomes.add(home);
  // One left by a gemini that was killed, or that exited with it before this devx started.
  dropLeftRegistryLock(home, {});
  return home;
}

function sameContent(file: string, content: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

export class GeminiCliBackend extends CliBackend {
  constructor(opts: GeminiCliOptions) {
    super(geminiSpec(opts.workDir), opts);
  }
}
