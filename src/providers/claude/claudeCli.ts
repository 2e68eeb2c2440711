// One headless `claude -p` process per model attempt, driven exactly as gemini is: the prompt on
// stdin, its own tools off (--tools ""), devx's system prompt in place of its own, JSON output, a
// scratch working directory, and none of the machine's settings, CLAUDE.md or MCP servers
// (--setting-sources "", --strict-mcp-config). Its own retries are off: devx's RetryingBackend owns
// accounts, backoff and fallback.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { BackendError, type BackendEvent, type ModelBackend, type ModelRequest, type ModelResponse } from '../types.js';
import { BinaryMissingError, type ProcessRunner } from '../../util/processRunner.js';
import { RetryingBackend, type Attempt, type RetryOptions } from '../retrying.js';
import { commandFor } from '../gemini/geminiCli.js';
import { classifyClaudeResult } from './classifyClaudeResult.js';

export interface ClaudeCliOptions extends RetryOptions {
  bin: string;
  workDir: string;
  runner: ProcessRunner;
  env?: Record<string, string>;
}

export const CLAUDE_INSTALL_HINT =
  'devx needs Claude Code for the claude provider. Install it with `npm install -g @anthropic-ai/claude-code` (then run `claude` once to log in, or set ANTHROPIC_API_KEY), or point devx at it with DEVX_CLAUDE_BIN or "providers.claude.bin" in settings.';

/** Flags that make claude a plain text-in, text-out model call. */
export function claudeArgs(model: string, systemFile: string): string[] {
  return [
    '-p',
    '--output-format', 'json',
    '--model', model,
    '--tools', '',
    '--system-prompt-file', systemFile,
    '--setting-sources', '',
    '--strict-mcp-config',
    '--disable-slash-commands',
    '--no-session-persistence',
  ];
}

export class ClaudeCliBackend implements ModelBackend {
  private readonly scratch: string;
  private readonly retrying: RetryingBackend;
  private systemFile: string | null = null;
  private systemHash = '';

  constructor(private readonly opts: ClaudeCliOptions) {
    this.scratch = path.join(opts.workDir, 'scratch');
    fs.mkdirSync(this.scratch, { recursive: true, mode: 0o700 });
    this.retrying = new RetryingBackend((a) => this.runOnce(a), opts);
  }

  complete(req: ModelRequest, onEvent?: (e: BackendEvent) => void): Promise<ModelResponse> {
    return this.retrying.complete(req, onEvent);
  }

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
    const [file, args] = commandFor(account, this.opts.bin, claudeArgs(model, this.systemPromptFile(req.systemPrompt)));
    const env: Record<string, string> = {
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      ...this.opts.env,
      ...account.env,
      // devx retries (with accounts and fallback); claude's own loop would wait minutes inside one call.
      CLAUDE_CODE_MAX_RETRIES: '0',
      NO_COLOR: '1',
    };
    let r;
    try {
      r = await this.opts.runner(file, args, { cwd: this.scratch, input: req.prompt, env, timeoutMs, signal: req.signal });
    } catch (err) {
      if (err instanceof BinaryMissingError) throw new BackendError('binary_missing', `${err.file} was not found. ${CLAUDE_INSTALL_HINT}`, null, account.name);
      throw err;
    }
    if (r.cancelled) throw new BackendError('cancelled', 'the model call was cancelled', null, account.name);
    if (r.timedOut) throw new BackendError('timeout', `claude did not answer within ${Math.round(timeoutMs / 1000)}s; its process tree was killed`, null, account.name);
    return classifyClaudeResult(r, model, account.name);
  }
}
