// What devx and a warm gemini say to each other over ACP, apart from the process: a model request as
// ACP content blocks, and what the agent answers with instead of a reply, as devx's error kinds
// (warmGemini.ts runs the process and the calls).
import type * as acp from '@agentclientprotocol/sdk';
import { BackendError, type BackendErrorKind, type ModelRequest } from '../types.js';
import { GEMINI_HINTS, geminiFault, kindForHttpStatus } from './classifyGeminiExit.js';

/** The process died, hung or broke the protocol (not an answer from the API). */
export class WarmFailure extends Error {
  /** Characters of the reply that had arrived (a call the deadline ended). */
  received = 0;
}

/**
 * The text, then each attachment as ACP content: images as `image` blocks, audio as `audio` blocks (both
 * become the API's inlineData in gemini), video and PDF as embedded `resource` blobs (gemini has no block
 * for them; it sends a blob resource as inlineData with its mimeType). Once a prompt holds a resource,
 * gemini 0.61 rebuilds it from its text and resources only, dropping image and audio blocks
 * (`#resolvePrompt`), so then every attachment goes as a blob resource.
 */
export function promptBlocks(req: ModelRequest): acp.ContentBlock[] {
  const media = req.images ?? [];
  const asResources = media.some((i) => !i.mimeType.startsWith('image/') && !i.mimeType.startsWith('audio/'));
  return [
    { type: 'text', text: req.prompt },
    ...media.map((i): acp.ContentBlock => {
      if (asResources) return { type: 'resource', resource: { uri: i.path, mimeType: i.mimeType, blob: i.data } };
      return i.mimeType.startsWith('audio/') ? { type: 'audio', data: i.data, mimeType: i.mimeType } : { type: 'image', data: i.data, mimeType: i.mimeType };
    }),
  ];
}

/** An ACP error's message with its details, for the line that names a failed start or session. */
export function acpErrorText(err: unknown): string {
  const e = err as { message?: string; data?: { details?: string } };
  return [e.message ?? String(err), e.data?.details].filter(Boolean).join(': ');
}

/** An error the agent returned for a prompt: the API's status when it carries one. */
export function apiError(err: unknown, account: string, quietMs: number): BackendError | WarmFailure {
  const e = err as { code?: number; message?: string };
  const status = typeof e.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : undefined;
  if (!status) return new WarmFailure(`the warm gemini process answered with a protocol error: ${e.message ?? String(err)}`);
  let message = e.message ?? '';
  try {
    message = (JSON.parse(message) as { error?: { message?: string } }).error?.message ?? message;
  } catch {
    /* plain text */
  }
  // gemini reports every failure on the way as a 500 whose message is its own error: an unreachable
  // API (the fetch error), a connection cut mid-reply ("terminated"), a body it could not read. Only
  // an error the API itself returned is what its status says.
  const fault = geminiFault(`${message}\n${(e as { data?: { details?: string } }).data?.details ?? ''}`, account, quietMs);
  if (fault) return fault;
  const kind: BackendErrorKind = kindForHttpStatus(status) ?? 'failed';
  return new BackendError(kind, `${GEMINI_HINTS[kind] ?? 'the Gemini API failed'} (${status}): ${message}`, null, account);
}
