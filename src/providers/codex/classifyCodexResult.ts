// Turns a finished `codex exec --json` process into a response or a typed failure. Measured with
// @openai/codex 0.169 against a fake Responses API: one JSON event a line on stdout, `thread.started`,
// `turn.started`, `item.completed` (the reply is an `agent_message` item; an `error` item is a warning),
// then `turn.completed` with the usage, or `error` and `turn.failed` and exit 1. What a failure says:
//   401, 403, 404, 502, 503...: "unexpected status 401 Unauthorized: <the API's message>, url: ..."
//   429:                        "exceeded retry limit, last status: 429 Too Many Requests"
//   500:                        "We're currently experiencing high demand, which may cause temporary errors."
//   400:                        the API's error body as it came
//   refused:                    "Connection failed: error sending request"
//   cut mid-reply:              "stream disconnected before completion: ... error decoding response body"
//   not SSE / ended early:      "stream disconnected before completion: stream closed before response.completed"
//   no key:                     "Missing environment variable: `OPENAI_API_KEY`."
import { BackendError, type BackendErrorKind, type TokenUsage } from '../types.js';
import type { RunResult } from '../../util/processRunner.js';
import { apiFault, faultMessage } from '../apiFault.js';

interface CodexEvent {
  type?: string;
  thread_id?: string;
  message?: string;
  error?: { message?: string };
  item?: { type?: string; text?: string; message?: string };
  usage?: { input_tokens?: number; cached_input_tokens?: number; output_tokens?: number };
}

const API = 'the OpenAI API';

export const CODEX_KEY_HINT =
  'set OPENAI_API_KEY (or CODEX_API_KEY) to an OpenAI API key (accounts go in ~/.devx/settings.json under providers.codex.accounts)';

const HINTS: Partial<Record<BackendErrorKind, string>> = {
  auth: `${API} refused the API key: ${CODEX_KEY_HINT}`,
  quota: `${API} refused the request for rate or quota limits (429)`,
  overloaded: `${API} is overloaded; devx retries with backoff`,
  bad_request: `${API} rejected the request as invalid`,
  server: `${API} had a server error`,
};

function kindForStatus(status: number): BackendErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'quota';
  if (status === 503 || status === 529) return 'overloaded';
  if (status === 400 || status === 404 || status === 413 || status === 422) return 'bad_request';
  if (status >= 500) return 'server';
  return 'failed';
}

/** The events of codex's JSONL output (lines that are not JSON are skipped). */
export function codexEvents(stdout: string): CodexEvent[] {
  const out: CodexEvent[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as CodexEvent);
    } catch {
      /* a line cut short */
    }
  }
  return out;
}

/** What a codex failure message says went wrong. */
export function codexFailureKind(message: string): { kind: BackendErrorKind; status?: number } {
  const status = /\b(?:unexpected status|last status:)\s*(\d{3})\b/.exec(message)?.[1];
  if (status) return { kind: kindForStatus(Number(status)), status: Number(status) };
  if (/Missing environment variable|invalid api key|incorrect api key/i.test(message)) return { kind: 'auth' };
  if (/high demand|temporary errors|internal server error/i.test(message)) return { kind: 'server', status: 500 };
  if (/usage limit|insufficient_quota|quota/i.test(message)) return { kind: 'quota' };
  if (/^\s*\{.*"error"/s.test(message)) return { kind: 'bad_request', status: 400 };
  if (/Connection failed|error sending request/i.test(message)) return { kind: 'network' };
  if (/error decoding response body/i.test(message)) return { kind: 'cut' };
  if (/stream closed before response\.completed/i.test(message)) return { kind: 'cut' };
  return { kind: apiFault(message) ?? 'failed' };
}

function failure(message: string, r: RunResult, account: string): BackendError {
  const { kind, status } = codexFailureKind(message);
  const said = message.trim().slice(0, 400);
  if (kind === 'network' || kind === 'cut' || kind === 'stalled' || kind === 'unreadable') {
    const url = kind === 'network' ? process.env.OPENAI_BASE_URL : undefined;
    const hint = kind === 'network' ? `: check your network connection, proxy settings and OPENAI_BASE_URL${url ? ` (now ${url})` : ''}` : '';
    return new BackendError(kind, `${faultMessage(kind, API)}${hint}: codex said ${said}`, r.exitCode, account);
  }
  const hint = HINTS[kind];
  return new BackendError(kind, `${hint ? `${hint}${status && kind !== 'quota' ? ` (${status})` : ''}: ` : ''}codex said ${said}`, r.exitCode, account);
}

export function classifyCodexResult(r: RunResult, model: string, account: string): { text: string; usage?: TokenUsage; sessionId?: string } {
  const events = codexEvents(r.stdout);
  const failed = events.find((e) => e.type === 'turn.failed');
  if (failed) throw failure(failed.error?.message ?? 'the turn failed', r, account);
  const done = events.find((e) => e.type === 'turn.completed');
  if (!done) {
    const lastError = events.filter((e) => e.type === 'error').at(-1)?.message;
    if (lastError) throw failure(lastError, r, account);
    const why = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ').slice(0, 400);
    throw new BackendError(
      r.exitCode === 0 ? 'unparseable' : 'failed',
      `codex exited ${r.exitCode ?? r.signal} without finishing its turn${why ? `: ${why}` : ''}`,
      r.exitCode,
      account,
    );
  }
  const text = events
    .filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message' && typeof e.item.text === 'string')
    .map((e) => e.item!.text!)
    .join('\n\n');
  if (!text.trim()) throw new BackendError('empty', `the model (${model}) returned an empty reply`, r.exitCode, account);
  const u = done.usage;
  const usage: TokenUsage | undefined = u ? { input: u.input_tokens, output: u.output_tokens, cached: u.cached_input_tokens } : undefined;
  return { text, usage, sessionId: events.find((e) => e.type === 'thread.started')?.thread_id };
}
