// One headless `gemini` process per model attempt. The prompt goes on stdin (never argv), gemini
// runs in an empty scratch directory devx owns (never the user's project), all its native tools are
// removed by a deny-all policy, and its system prompt is replaced through GEMINI_SYSTEM_MD.
// Accounts, retries and fallback are the shared RetryingBackend's.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { BackendError, type BackendEvent, type ModelBackend, type ModelRequest, type ModelResponse } from '../types.js';
import { classifyGeminiResult } from './classifyGeminiExit.js';
import { BinaryMissingError, type ProcessRunner } from '../../util/processRunner.js';
import type { Account } from '../accounts.js';
import { RetryingBackend, type Attempt, type RetryOptions } from '../retrying.js';

export interface GeminiCliOptions extends RetryOptions {
  /** The gemini executable (default `gemini` on PATH). */
  bin: string;
  /** Directory devx owns; gemini runs here, with TMPDIR and the policy/system files beside it. */
  workDir: string;
  runner: ProcessRunner;
  /** Extra environment for every call (tests use it to reach the fake API). */
  env?: Record<string, string>;
}

export const DENY_ALL_POLICY = `# devx: gemini must not run any of its own tools; devx executes tools itself.
[[rule]]
toolName = "*"
decision = "deny"
priority = 999
`;

export const INSTALL_HINT =
  'devx needs the Gemini CLI. Install it with `npm install -g @google/gemini-cli` (then run `gemini` once to log in), or point devx at it with DEVX_GEMINI_BIN or "providers.gemini.bin" in settings.';

export class GeminiCliBackend implements ModelBackend {
  private readonly scratch: string;
  private readonly tmp: string;
  private readonly policyFile: string;
  private systemFile: string | null = null;
  private systemHash = '';
  private readonly retrying: RetryingBackend;

  constructor(private readonly opts: GeminiCliOptions) {
    this.scratch = path.join(opts.workDir, 'scratch');
    this.tmp = path.join(opts.workDir, 'tmp');
    fs.mkdirSync(this.scratch, { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.tmp, { recursive: true, mode: 0o700 });
    this.policyFile = path.join(opts.workDir, 'deny-all-tools.toml');
    fs.writeFileSync(this.policyFile, DENY_ALL_POLICY);
    this.retrying = new RetryingBackend((a) => this.runOnce(a), opts);
  }

  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    return this.retrying.complete(req, onEvent);
  }

  /** Writes the system prompt once per distinct content. */
  private systemPromptFile(content: string): string {
    const hash = crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);
    if (hash !== this.systemHash || !this.systemFile) {
      this.systemFile = path.join(this.opts.workDir, `system-${hash}.md`);
      fs.writeFileSync(this.systemFile, content);
      this.systemHash = hash;
    }
    return this.systemFile;
  }

  private async runOnce({ account, model, req, timeoutMs }: Attempt) {
    const geminiArgs = ['-m', model, '-o', 'json', '--policy', this.policyFile, '-e', 'none'];
    const [file, args] = commandFor(account, this.opts.bin, geminiArgs);
    const env: Record<string, string> = {
      // gemini re-launches itself in a second node process only to raise its heap limit; one headless
      // call does not need that, and skipping it cut a call from ~1.7 s to ~1.1 s (`npm run bench`). Overridable.
      GEMINI_CLI_NO_RELAUNCH: 'true',
      ...this.opts.env,
      ...account.env,
      GEMINI_SYSTEM_MD: this.systemPromptFile(req.systemPrompt),
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      TMPDIR: this.tmp,
      NO_COLOR: '1',
    };
    let r;
    try {
      r = await this.opts.runner(file, args, { cwd: this.scratch, input: req.prompt, env, timeoutMs, signal: req.signal });
    } catch (err) {
      if (err instanceof BinaryMissingError) throw new BackendError('binary_missing', `${err.file} was not found. ${INSTALL_HINT}`, null, account.name);
      throw err;
    }
    if (r.cancelled) throw new BackendError('cancelled', 'the model call was cancelled', null, account.name);
    if (r.timedOut) throw new BackendError('timeout', `gemini did not answer within ${Math.round(timeoutMs / 1000)}s; its process tree was killed`, null, account.name);
    return classifyGeminiResult(r, model, account.name);
  }
}

/** An account is either extra environment or a wrapper command that execs the CLI with devx's arguments. */
export function commandFor(account: Account, bin: string, args: string[]): [string, string[]] {
  return account.command ? [account.command[0], [...account.command.slice(1), ...args]] : [bin, args];
}
