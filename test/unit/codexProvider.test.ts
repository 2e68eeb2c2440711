// The codex provider's pure parts: reading `codex exec --json` output (shapes measured with codex 0.169),
// its argv, its sealed home, and the `openai` alias.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyCodexResult, codexFailureKind } from '../../src/providers/codex/classifyCodexResult.js';
import { codexArgs, codexSpec } from '../../src/providers/codex/codexCli.js';
import { sealedCodexHome } from '../../src/providers/codex/sealedCodexHome.js';
import { findProvider, getProvider } from '../../src/providers/registry.js';
import { BackendError } from '../../src/providers/types.js';
import { loadSettings } from '../../src/config/settings.js';
import type { RunResult } from '../../src/util/processRunner.js';
import { tempDir } from '../helpers/env.js';

const run = (lines: unknown[], exitCode = 0): RunResult => ({
  exitCode,
  signal: null,
  stdout: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
  stderr: '',
  timedOut: false,
  cancelled: false,
  outputCapped: false,
  durationMs: 300,
});

const failed = (message: string) =>
  run([{ type: 'thread.started', thread_id: 't' }, { type: 'turn.started' }, { type: 'error', message }, { type: 'turn.failed', error: { message } }], 1);

function kindOf(r: RunResult): string {
  try {
    classifyCodexResult(r, 'gpt-6.1-sol', 'default');
  } catch (err) {
    return (err as BackendError).kind;
  }
  return 'ok';
}

describe('codex exec --json output', () => {
  it('a finished turn is its agent messages, with the usage and the thread id; warning items are skipped', () => {
    const r = classifyCodexResult(
      run([
        { type: 'thread.started', thread_id: 'thread-1' },
        { type: 'item.completed', item: { id: 'item_0', type: 'error', message: 'Model metadata for `gpt-6.1-sol` not found.' } },
        { type: 'turn.started' },
        { type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: 'TOOL_CALL: read_file | path=a.txt' } },
        { type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 3, output_tokens: 2 } },
      ]),
      'gpt-6.1-sol',
      'default',
    );
    expect(r).toEqual({ text: 'TOOL_CALL: read_file | path=a.txt', usage: { input: 10, output: 2, cached: 3 }, sessionId: 'thread-1' });
  });

  it('each failure codex reports is named by its cause', () => {
    expect(kindOf(failed('unexpected status 401 Unauthorized: bad key, url: http://x/v1/responses'))).toBe('auth');
    expect(kindOf(failed('exceeded retry limit, last status: 429 Too Many Requests'))).toBe('quota');
    expect(kindOf(failed('We’re currently experiencing high demand, which may cause temporary errors.'))).toBe('server');
    expect(kindOf(failed('unexpected status 503 Service Unavailable: x'))).toBe('overloaded');
    expect(kindOf(failed('{"error":{"message":"bad","type":"invalid_request_error"}}'))).toBe('bad_request');
    expect(kindOf(failed('Connection failed: error sending request'))).toBe('network');
    expect(kindOf(failed('stream disconnected before completion: Transport error: network error: error decoding response body'))).toBe('cut');
    expect(kindOf(failed('Missing environment variable: `OPENAI_API_KEY`.'))).toBe('auth');
    expect(codexFailureKind('unexpected status 500 Internal Server Error: x')).toEqual({ kind: 'server', status: 500 });
  });

  it('no finished turn, or an empty reply, is a failure', () => {
    expect(kindOf({ ...run([{ type: 'thread.started', thread_id: 't' }], 1), stderr: 'panic' })).toBe('failed');
    expect(kindOf(run([{ type: 'turn.started' }, { type: 'turn.completed', usage: {} }]))).toBe('empty');
  });
});

describe('the codex launch', () => {
  it('reads the prompt from stdin, takes devx system prompt from its file and turns codex tools off', () => {
    const args = codexArgs('gpt-6.1-sol', '/w/system-1.md');
    expect(args.slice(0, 2)).toEqual(['exec', '--json']);
    expect(args.at(-1)).toBe('-');
    expect(args).toContain('model_instructions_file="/w/system-1.md"');
    for (const f of ['shell_tool', 'unified_exec', 'view_image', 'multi_agent', 'goals', 'plugins']) expect(args.join(' ')).toContain(`--disable ${f}`);
    expect(args.join(' ')).toContain('--sandbox read-only');
  });

  it('runs with a sealed home of devx: its own config.toml and model catalog, the key read from CODEX_API_KEY when that is the one set', () => {
    const work = tempDir();
    const spec = codexSpec(work);
    const env = spec.env({ CODEX_API_KEY: 'sk-codex', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/', HOME: '/nonexistent' }, { systemFile: '/w/s.md' });
    // The key stays where it was: codex is told which variable holds it.
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.CODEX_HOME).toBe(path.join(env.HOME, '.codex'));
    expect(env.HOME.startsWith(path.join(work, 'codex-home'))).toBe(true);
    const config = fs.readFileSync(path.join(env.CODEX_HOME, 'config.toml'), 'utf8');
    expect(config).toContain('base_url = "http://127.0.0.1:9/v1"');
    expect(config).toContain('env_key = "CODEX_API_KEY"');
    expect(config).toContain(`model_catalog_json = "${path.join(env.CODEX_HOME, 'devx-models.json')}"`);
    expect(fs.statSync(env.HOME).mode & 0o777).toBe(0o700);
    // The same environment gives the same seal; another base URL another one.
    expect(sealedCodexHome({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, work, 'CODEX_API_KEY')).toBe(env.HOME);
    expect(sealedCodexHome({ OPENAI_BASE_URL: 'http://127.0.0.1:10/v1' }, work, 'CODEX_API_KEY')).not.toBe(env.HOME);
    expect(sealedCodexHome({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, work, 'OPENAI_API_KEY')).not.toBe(env.HOME);
  });

  it('without a key the call fails at once as an auth error', () => {
    expect(() => codexSpec(tempDir()).env({ HOME: '/nonexistent' }, { systemFile: '/w/s.md' })).toThrow(/codex has no API key: set OPENAI_API_KEY/);
  });
});

describe('provider: openai', () => {
  it('names codex, in the registry and in settings', () => {
    expect(findProvider('openai')?.id).toBe('codex');
    expect(getProvider('codex').aliases).toEqual(['openai']);
    const home = tempDir();
    const root = tempDir();
    fs.writeFileSync(path.join(home, 'settings.json'), JSON.stringify({ provider: 'openai' }));
    const s = loadSettings({ devxHome: home, projectRoot: root, env: {} });
    expect(s.provider).toBe('codex');
    expect(s.providers.codex.bin).toBe('codex');
    expect(loadSettings({ devxHome: tempDir(), projectRoot: root, env: {}, overrides: { provider: 'openai' } }).provider).toBe('codex');
  });
});
