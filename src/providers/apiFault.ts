// What went wrong between a model CLI and its API, read from the CLI's own words, for every provider.
// The CLIs report a transport fault in a handful of shapes (measured with gemini-cli 0.61 and Claude Code
// 2.1 against a fake API that refuses, hangs, resets mid-reply or sends garbage):
//   refused / DNS:   gemini "fetch failed sending request" within a second or two; claude "Connection refused (ECONNREFUSED)"
//   hung:            gemini the same "fetch failed sending request", but only after its 60 s headers timeout
//                    (300 s once the reply began); claude "Request timed out" after API_TIMEOUT_MS (600 s)
//   reset mid-reply: gemini "terminated" (undici: the body was cut; cause ECONNRESET); claude "Connection to the API was lost (ECONNRESET)"
//   garbage:         gemini "Incomplete JSON segment at the end", or a TypeError from reading the chunk
//                    (`chunk?.candidates?.find is not a function`); claude "JSON Parse error: ..."
// gemini's "fetch failed" names no cause, so a slow one is told apart by time: a refused connection or a
// failed DNS lookup is reported within seconds, a headers timeout only after a minute.
import type { BackendErrorKind } from './types.js';

export type ApiFault = Extract<BackendErrorKind, 'network' | 'stalled' | 'cut' | 'unreadable'>;

/** How long a CLI's "fetch failed" may take and still be a connection that failed, not one that went quiet. */
export const QUIET_AFTER_MS = 45_000;

const STALLED = /Headers Timeout|Body Timeout|UND_ERR_(?:HEADERS|BODY)_TIMEOUT|Request timed out|stream idle timeout/i;
const CUT =
  /ECONNRESET|socket hang up|other side closed|Connection to the API was lost|premature close|UND_ERR_SOCKET|ERR_STREAM_PREMATURE_CLOSE|\bterminated\b/i;
const UNREADABLE =
  /Incomplete JSON segment|JSON Parse error|Unexpected token|Unexpected identifier|Unexpected end of JSON|is not valid JSON|Invalid JSON|in JSON at position|processStreamResponse|candidates\??\.\S+ is not a function|Cannot read properties of (?:undefined|null) \(reading '(?:candidates|content|parts|type|delta|message)'\)/i;
const UNREACHABLE =
  /fetch failed|ECONNREFUSED|Connection refused|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|Connection error|connection_failed|getaddrinfo/i;

/**
 * The transport fault `text` (a CLI's error message, and its stderr when there is one) describes, or null.
 * `quietMs`: how long the API had been silent when the CLI gave up (since the request, or the last text that arrived).
 */
export function apiFault(text: string, quietMs = 0): ApiFault | null {
  if (STALLED.test(text)) return 'stalled';
  if (UNREADABLE.test(text)) return 'unreadable';
  // A "fetch failed" or a cut that came only after a long silence is the API going quiet (gemini's own timeouts).
  if ((UNREACHABLE.test(text) || /\bterminated\b/.test(text)) && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET/.test(text) && quietMs >= QUIET_AFTER_MS)
    return 'stalled';
  if (CUT.test(text)) return 'cut';
  if (UNREACHABLE.test(text)) return 'network';
  return null;
}

/** The sentence for a fault of `api` ("the Gemini API"), before the CLI's own words. */
export function faultMessage(fault: ApiFault, api: string, quietMs?: number): string {
  switch (fault) {
    case 'stalled':
      return `${api} stopped answering${quietMs ? ` (no reply for ${Math.round(quietMs / 1000)}s)` : ''}`;
    case 'cut':
      return `the connection to ${api} was cut mid-reply`;
    case 'unreadable':
      return `${api} sent a reply devx could not read (not the API's JSON)`;
    case 'network':
      return `cannot reach ${api}`;
  }
}

/**
 * The message for a call the turn's time limit ended while the CLI was still waiting for its API.
 * `received`: characters of the reply that had arrived, when the provider shows them as they come.
 */
export function turnTimeoutMessage(api: string, cli: string, seconds: number, settingsKey: string, received = 0): string {
  const what = received ? `mid-reply, after ${received} characters: no more of it` : 'no reply';
  return `${api} stopped answering: ${what} within ${seconds}s, the turn timeout (DEVX_TURN_TIMEOUT_SEC, or "timeoutSec" under ${settingsKey} in settings); ${cli} was stopped`;
}
