// Turns a finished `gemini -o json` process into a response or a typed failure.
// Exit codes measured with @google/gemini-cli 0.61: API errors exit with the HTTP status mod 256
// (429 -> 173, 400 -> 144, 500 -> 244, 503 -> 247), 41 auth, 52 config, 55 untrusted folder.
import { BackendError, type BackendErrorKind, type TokenUsage } from '../types.js';
import type { RunResult } from '../../util/processRunner.js';
import { apiFault, faultMessage } from '../apiFault.js';

interface GeminiJson {
  session_id?: string;
  response?: unknown;
  stats?: { models?: Record<string, { tokens?: { input?: number; prompt?: number; candidates?: number; total?: number; cached?: number } }> };
  error?: { type?: string; message?: string; code?: number | string };
}

/** Finds the last parseable JSON object that starts at a line start (stderr has noise before it). */
export function lastJsonObject(text: string): GeminiJson | null {
  const starts: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '{' && (i === 0 || text[i - 1] === '\n')) starts.push(i);
  for (let k = starts.length - 1; k >= 0; k--) {
    try {
      const v = JSON.parse(text.slice(starts[k]).trim());
      if (v && typeof v === 'object') return v as GeminiJson;
    } catch {
      /* try an earlier start */
    }
  }
  return null;
}

export function kindForHttpStatus(status: number): BackendErrorKind | null {
  if (status === 429) return 'quota';
  if (status === 401 || status === 403) return 'auth';
  if (status === 400 || status === 404 || status === 413) return 'bad_request';
  if (status >= 500 && status <= 599) return 'server';
  return null;
}

function kindForExit(code: number): BackendErrorKind | null {
  if (code === 41) return 'auth';
  if (code === 52) return 'config';
  if (code === 55) return 'untrusted';
  for (const status of [429, 401, 403, 400, 404, 413, 500, 501, 502, 503, 504]) if (status % 256 === code) return kindForHttpStatus(status);
  return null;
}

export const GEMINI_HINTS: Partial<Record<BackendErrorKind, string>> = {
  auth: 'gemini is not authenticated: run `gemini` once to log in, or set GEMINI_API_KEY (accounts go in ~/.devx/settings.json under providers.gemini.accounts; project files cannot set them)',
  quota: 'the Gemini quota or rate limit was hit',
  bad_request: 'the Gemini API rejected the request',
  server: 'the Gemini API returned a server error',
  untrusted: 'gemini refused the folder as untrusted',
  config: 'gemini reported a configuration error',
  network: 'cannot reach the Gemini API: check your network connection, proxy settings and GOOGLE_GEMINI_BASE_URL',
  empty: 'the model returned an empty reply (gemini also returns nothing when it stops a reply it judges repetitive)',
};

/** gemini's words when it has no way to log in (no key, no login, no auth method chosen). */
const NO_AUTH = /API key is missing|Please set an Auth method|not configured to use|GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI|Login required|not logged in/i;

/**
 * gemini is installed but cannot log in: the person's next step, and gemini's own words without the path of
 * devx's private copy of its settings (nothing the person should edit). Null when `said` is about something else.
 */
export function geminiNotLoggedIn(said: string, account?: string, exitCode: number | null = null): BackendError | null {
  if (!NO_AUTH.test(said)) return null;
  const words = said
    .replace(/\s*in your \S*gemini-home\S*settings\.json or/i, ' or')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
  return new BackendError('auth', `${GEMINI_HINTS.auth} (gemini said: ${words})`, exitCode, account);
}

/**
 * A transport fault gemini reported (apiFault): the API unreachable (gemini wraps that in a 500 over ACP),
 * gone quiet, cut mid-reply, or answering with something that is not its JSON. `why` is gemini's message
 * (with its stderr when there is one); `quietMs` how long it had heard nothing from the API.
 */
export function geminiFault(why: string, account?: string, quietMs = 0): BackendError | null {
  const fault = apiFault(why, quietMs);
  if (!fault) return null;
  const first = why.trim().split('\n')[0].slice(0, 300);
  if (fault === 'network') {
    const url = process.env.GOOGLE_GEMINI_BASE_URL;
    return new BackendError('network', `${GEMINI_HINTS.network}${url ? ` (now ${url})` : ''}: ${first}`, null, account);
  }
  const cause = /\[cause\]:\s*(.*)|\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+)\b/.exec(why);
  const detail = cause && !first.includes(cause[1] ?? cause[2]) ? `${first} (${(cause[1] ?? cause[2]).trim().slice(0, 120)})` : first;
  return new BackendError(fault, `${faultMessage(fault, 'the Gemini API', fault === 'stalled' ? quietMs : undefined)}: gemini said ${detail}`, null, account);
}

/** @deprecated the name before apiFault: an unreachable API only. */
export function networkError(why: string, account?: string): BackendError | null {
  const e = geminiFault(why, account);
  return e?.kind === 'network' ? e : null;
}

/**
 * gemini retries failed API calls on its own for minutes ("Attempt 1 failed ... Retrying with
 * backoff"). devx reads that first line from stderr, stops gemini and takes over: a refused
 * connection is reported at once, a quota error moves to the next account.
 */
export function geminiInternalRetry(line: string, account?: string, elapsedMs = 0): BackendError | null {
  const withStatus = /Attempt \d+ failed with status (\d+)\. Retrying with backoff\.\.\.\s*(.*)$/.exec(line);
  if (withStatus) {
    const status = Number(withStatus[1]);
    const kind = kindForHttpStatus(status) ?? 'server';
    let message = withStatus[2];
    const json = /\{.*\}/.exec(message)?.[0];
    try {
      if (json) message = (JSON.parse(json) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      /* keep the line */
    }
    return new BackendError(kind, `${GEMINI_HINTS[kind] ?? 'the Gemini API failed'} (${status}): ${message.slice(0, 300)}`, null, account);
  }
  const plain = /Attempt \d+ failed\. Retrying with backoff\.\.\.\s*(.*)$/.exec(line);
  if (!plain) return null;
  const why = plain[1].replace(/^Error:\s*/, '').slice(0, 300);
  return geminiFault(why, account, elapsedMs) ?? new BackendError('failed', `gemini failed and was retrying: ${why}`, null, account);
}

export interface ParsedSuccess {
  text: string;
  usage?: TokenUsage;
  sessionId?: string;
}

export function classifyGeminiResult(r: RunResult, model: string, account?: string): ParsedSuccess {
  if (r.exitCode === 0) {
    const json = lastJsonObject(r.stdout);
    if (!json || typeof json.response !== 'string') {
      if (json?.error) throw errorFromJson(json, 0, account, r);
      throw unreadableOutput(r, account);
    }
    if (!json.response.trim()) throw new BackendError('empty', GEMINI_HINTS.empty!, 0, account);
    const tokens = json.stats?.models?.[model]?.tokens ?? Object.values(json.stats?.models ?? {})[0]?.tokens;
    return {
      text: json.response,
      sessionId: json.session_id,
      usage: tokens ? { input: tokens.prompt ?? tokens.input, output: tokens.candidates, total: tokens.total, cached: tokens.cached } : undefined,
    };
  }
  const json = lastJsonObject(r.stderr) ?? lastJsonObject(r.stdout);
  if (json?.error) throw errorFromJson(json, r.exitCode, account, r);
  const kind = (r.exitCode !== null && kindForExit(r.exitCode)) || 'failed';
  const tail = r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400);
  if (kind === 'auth') {
    const login = geminiNotLoggedIn(tail, account, r.exitCode);
    if (login) throw login;
  }
  throw new BackendError(kind, `${GEMINI_HINTS[kind] ?? 'gemini failed'} (exit ${r.exitCode ?? r.signal}): ${tail}`, r.exitCode, account);
}

/** Output of a successful exit devx could not read, said as what it is: nothing, cut off, or not gemini's JSON. */
function unreadableOutput(r: RunResult, account?: string): BackendError {
  const out = r.stdout.trim();
  const bytes = Buffer.byteLength(r.stdout);
  if (!out)
    return new BackendError(
      'unparseable',
      `gemini exited 0 without printing its answer${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}` : ''}`,
      0,
      account,
    );
  if (out.startsWith('{')) {
    return new BackendError(
      'unparseable',
      `gemini's answer ends after ${bytes} bytes, before its JSON is complete (its output was cut off): ${JSON.stringify(out.slice(-120))}`,
      0,
      account,
    );
  }
  return new BackendError(
    'unparseable',
    `gemini exited 0 but printed something other than its JSON answer (${bytes} bytes): ${JSON.stringify(out.slice(0, 200))}`,
    0,
    account,
  );
}

function errorFromJson(json: GeminiJson, exitCode: number | null, account?: string, r?: RunResult): BackendError {
  const e = json.error!;
  const status = typeof e.code === 'number' ? e.code : Number(e.code);
  let kind = (Number.isFinite(status) && kindForHttpStatus(status)) || (exitCode !== null && kindForExit(exitCode)) || 'failed';
  let message = e.message ?? 'unknown error';
  // The API's own error often arrives as a JSON string inside message.
  try {
    const inner = JSON.parse(message) as { error?: { message?: string; code?: number } };
    if (inner.error?.message) message = inner.error.message;
    if (kind === 'failed' && inner.error?.code) kind = kindForHttpStatus(inner.error.code) ?? kind;
  } catch {
    /* plain message */
  }
  // No HTTP status: the request failed on the way (gemini's stderr names the cause: ECONNRESET...).
  if (kind === 'failed') {
    const fault = geminiFault(`${message}\n${r?.stderr ?? ''}`, account, r?.durationMs ?? 0);
    if (fault) return new BackendError(fault.kind, fault.message, exitCode, account);
  }
  const login = kind === 'auth' ? geminiNotLoggedIn(message, account, exitCode) : null;
  if (login) return login;
  // The API's status when it sent one (as gemini's own retry line gives it), else gemini's exit code.
  const said = Number.isFinite(status) && status >= 400 && status < 600 ? `${status}` : `exit ${exitCode}`;
  return new BackendError(kind, `${GEMINI_HINTS[kind] ?? 'gemini failed'} (${said}): ${message}`, exitCode, account);
}

interface StreamEvent {
  type?: string;
  role?: string;
  content?: string;
  delta?: boolean;
  status?: string;
  severity?: string;
  message?: string;
  session_id?: string;
  stats?: { input_tokens?: number; output_tokens?: number; total_tokens?: number; cached?: number };
}

/** One line of `gemini -o stream-json`: the assistant text it adds, or the final result. */
export function streamLine(line: string): { delta?: string; result?: StreamEvent; init?: StreamEvent; error?: StreamEvent } | null {
  let e: StreamEvent;
  try {
    e = JSON.parse(line) as StreamEvent;
  } catch {
    return null;
  }
  if (e.type === 'message' && e.role === 'assistant' && typeof e.content === 'string') return { delta: e.content };
  if (e.type === 'result') return { result: e };
  if (e.type === 'init') return { init: e };
  if (e.type === 'error') return { error: e };
  return null;
}

/** A finished `gemini -o stream-json` process: the assembled reply, or the same failures as `-o json`. */
export function classifyGeminiStream(r: RunResult, model: string, account?: string): ParsedSuccess {
  // Failures end with a result line holding `error`, read exactly as -o json's error object is.
  if (r.exitCode !== 0) return classifyGeminiResult(r, model, account);
  let text = '';
  let result: StreamEvent | undefined;
  let sessionId: string | undefined;
  for (const line of r.stdout.split('\n')) {
    const e = line.trim() ? streamLine(line) : null;
    if (e?.delta) text += e.delta;
    if (e?.result) result = e.result;
    if (e?.init) sessionId = e.init.session_id;
    // gemini stopped the reply it judged a loop; what streamed before is only a part (-o json returns nothing then).
    if (e?.error && /loop detected/i.test(e.error.message ?? '')) throw new BackendError('empty', GEMINI_HINTS.empty!, 0, account);
  }
  if (!result) throw new BackendError('unparseable', `gemini exited 0 but its stream had no result line: ${r.stdout.slice(-200)}`, 0, account);
  if (result.status !== 'success') return classifyGeminiResult({ ...r, exitCode: 1 }, model, account);
  if (!text.trim()) throw new BackendError('empty', GEMINI_HINTS.empty!, 0, account);
  const s = result.stats;
  return { text, sessionId, usage: s ? { input: s.input_tokens, output: s.output_tokens, total: s.total_tokens, cached: s.cached } : undefined };
}
