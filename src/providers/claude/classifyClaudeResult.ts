// Turns a finished `claude -p --output-format json` process into a response or a typed failure.
// Measured with @anthropic-ai/claude-code 2.1: one JSON object on stdout with `is_error`,
// `api_error_status` and `result`; exit 1 on an API error.
import { BackendError, type BackendErrorKind, type TokenUsage } from '../types.js';
import type { RunResult } from '../../util/processRunner.js';
import { apiFault, faultMessage } from '../apiFault.js';

interface ClaudeJson {
  type?: string;
  is_error?: boolean;
  result?: unknown;
  api_error_status?: number | null;
  api_error_type?: string;
  session_id?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number };
}

function kindForStatus(status: number): BackendErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'quota';
  if (status === 529) return 'overloaded';
  if (status === 400 || status === 404 || status === 413) return 'bad_request';
  if (status >= 500) return 'server';
  return 'failed';
}

const HINTS: Partial<Record<BackendErrorKind, string>> = {
  auth: 'claude is not authenticated: run `claude` once to log in, or set ANTHROPIC_API_KEY (accounts go in ~/.devx/settings.json under providers.claude.accounts)',
  quota: 'the Anthropic API refused the request for rate or quota limits (429)',
  overloaded: 'the Anthropic API is overloaded (529); devx retries with backoff',
  bad_request: 'the Anthropic API rejected the request as invalid',
  server: 'the Anthropic API had a server error',
};

function lastJson(text: string): ClaudeJson | null {
  const lines = text.trim().split('\n').reverse();
  for (const l of lines) {
    if (!l.trim().startsWith('{')) continue;
    try {
      return JSON.parse(l) as ClaudeJson;
    } catch {
      /* an earlier line */
    }
  }
  return null;
}

export function classifyClaudeResult(r: RunResult, model: string, account: string): { text: string; usage?: TokenUsage; sessionId?: string } {
  const j = lastJson(r.stdout);
  if (!j) {
    const why = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ').slice(0, 400);
    if (/not logged in|please run \/login|invalid api key/i.test(why)) throw new BackendError('auth', `${HINTS.auth} (${why})`, r.exitCode, account);
    throw new BackendError(
      r.exitCode === 0 ? 'unparseable' : 'failed',
      `claude exited ${r.exitCode ?? r.signal} without a JSON result${why ? `: ${why}` : ''}`,
      r.exitCode,
      account,
    );
  }
  const text = typeof j.result === 'string' ? j.result : '';
  if (j.is_error) {
    const status = j.api_error_status ?? undefined;
    // No HTTP status: the request failed on the way (refused, gone quiet, cut mid-reply, an unreadable body).
    const fault = status ? null : apiFault(text, r.durationMs);
    if (fault) {
      const url = fault === 'network' ? process.env.ANTHROPIC_BASE_URL : undefined;
      const hint = fault === 'network' ? ': check your network connection, proxy settings and ANTHROPIC_BASE_URL' : '';
      throw new BackendError(
        fault,
        `${faultMessage(fault, 'the Anthropic API', fault === 'stalled' ? r.durationMs : undefined)}${hint}${url ? ` (now ${url})` : ''}: claude said ${text.slice(0, 300)}`,
        r.exitCode,
        account,
      );
    }
    const kind: BackendErrorKind = status ? kindForStatus(status) : /not logged in|login|api key/i.test(text) ? 'auth' : 'failed';
    throw new BackendError(
      kind,
      `${HINTS[kind] ? `${HINTS[kind]}: ` : ''}${text.slice(0, 400) || `claude reported an error (${j.api_error_type ?? 'unknown'})`}`,
      r.exitCode,
      account,
    );
  }
  if (!text.trim()) throw new BackendError('empty', `the model (${model}) returned an empty reply`, r.exitCode, account);
  const usage: TokenUsage | undefined = j.usage
    ? { input: j.usage.input_tokens, output: j.usage.output_tokens, cached: j.usage.cache_read_input_tokens }
    : undefined;
  return { text, usage, sessionId: j.session_id };
}
