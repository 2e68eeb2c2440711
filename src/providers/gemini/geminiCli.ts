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

export function geminiSpec(workDir: string): CliSpec & { acpArgs(model: string): string[] } {
  const policyFile = path.join(workDir, 'deny-all-tools.toml');
  const tmp = path.join(workDir, 'tmp');
  mkdirOwnedSync(tmp, 0o700);
  // A pre-started gemini (util/prestart) may be reading the file this run's head start wrote.
  if (!sameContent(policyFile, DENY_ALL_POLICY)) writeStateSync(policyFile, DENY_ALL_POLICY);
  return {
    name: 'gemini',
    installHint: INSTALL_HINT,
    args: (model) => ['-m', model, '-o', 'json', '--policy', policyFile, '-e', 'none'],
    acpArgs: (model) => ['-m', model, '--policy', policyFile, '-e', 'none', '--acp'],
    streaming: {
      args: (model) => ['-m', model, '-o', 'stream-json', '--policy', policyFile, '-e', 'none'],
      delta: (line) => streamLine(line)?.delta ?? null,
      classify: classifyGeminiStream,
      answerMarker: /"type":\s*"result"/,
    },
    env: (base, { systemFile, account }) => ({
      // gemini re-launches itself in a second node process only to raise its heap limit; one headless
      // call does not need that, and skipping it cut a call from ~1.7 s to ~1.1 s (`npm run bench`). Overridable.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      ...base,
      // Sealed relative to the home this call's gemini would use (an account's own GEMINI_CLI_HOME, else
      // HOME). An account that is a wrapper command chooses gemini's home itself (it may set HOME or
      // GEMINI_CLI_HOME for its login), so devx does not override it.
      ...(account?.command ? {} : { GEMINI_CLI_HOME: sealedGeminiHome(base, workDir) }),
      GEMINI_SYSTEM_MD: systemFile,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      TMPDIR: tmp,
      NO_COLOR: '1',
    }),
    classify: classifyGeminiResult,
    // gemini spends ~50 ms shutting down after it prints its JSON (measured); devx goes on meanwhile.
    answerMarker: /\}\s*$/,
    earlyFailure: geminiInternalRetry,
    launch: { dirs: [tmp], files: { [policyFile]: DENY_ALL_POLICY }, tooEarly: /missing system prompt file|No input provided via stdin/ },
  };
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
