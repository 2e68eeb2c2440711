// A scripted fake of the Gemini HTTP API on 127.0.0.1, for driving the real `gemini` binary.
// Serves streamGenerateContent (SSE), generateContent and countTokens, and records every request.
import http from 'node:http';
import { FakeServer } from './fakeServer.js';

export interface FakeReply {
  /** Model text (sent in a few SSE chunks). */
  text?: string;
  /** HTTP error status; the body is a Google API error. */
  status?: number;
  /** Extra `details` for the error body (e.g. a QuotaFailure). */
  details?: unknown[];
  /** Wait before answering. */
  delayMs?: number;
  /** Answer only once this settles: an event of the test's own (what it typed, what else arrived), not a guess at time. */
  after?: Promise<unknown>;
  /** Never answer (the socket stays open until the server closes). */
  hang?: boolean;
  /** Pause between the SSE chunks of a streamed reply (to see streaming on the client). */
  chunkDelayMs?: number;
  /** Before each SSE chunk after the first, wait for this (the test has looked at what arrived so far). */
  nextChunk?: () => Promise<unknown>;
  /** Send the first part of the reply, then cut the connection with a TCP reset (a connection lost mid-reply). */
  reset?: boolean;
  /** Send the first part of the reply, then nothing more (the API stops answering mid-reply). */
  stall?: boolean;
  /** A 200 whose body is this text instead of the API's JSON (garbage, or a body of the wrong shape). */
  garbage?: string;
  /** An image the model returns as inlineData after the text (an image model's generateContent answer). */
  image?: { mimeType: string; data: Buffer };
  /** A function call the model makes after the text (gemini's own tools, for comparing with `gemini --acp`). */
  functionCall?: { name: string; args: Record<string, unknown> };
  /** Token counts to report in usageMetadata instead of ones derived from the text's length. */
  usage?: { prompt: number; candidates: number; cached?: number };
}

export type Script = FakeReply | ((req: RecordedRequest) => FakeReply);

export interface RecordedRequest {
  method: string;
  path: string;
  model: string;
  kind: 'stream' | 'generate' | 'countTokens' | 'embed' | 'other';
  apiKey: string | undefined;
  body: any;
  /** All user-part text of the request, joined. */
  promptText: string;
  systemText: string;
  functionDeclarations: number;
  at: number;
  /** When the first SSE chunk of a streamed reply was written. */
  firstChunkAt?: number;
  /** The usageMetadata the reply carried. */
  usageSent?: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number; cachedContentTokenCount?: number };
}

/** A gate for `after`/`nextChunk`: the reply waits until the test calls open(). */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** A 429 that gemini treats as terminal (daily quota), so it exits 173 at once instead of retrying. */
export const DAILY_QUOTA_429: FakeReply = {
  status: 429,
  details: [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel' }],
    },
  ],
};

export class FakeGeminiApi extends FakeServer<FakeReply, RecordedRequest> {
  /** Used when the queue is empty. */
  fallback: Script = { status: 500 };

  constructor(script: Script[] = []) {
    super();
    this.queue = [...script];
  }

  /** Model calls made so far (stream + generate). */
  get modelCalls(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'stream' || r.kind === 'generate');
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, body: any, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /models\/([^:]+):(\w+)/.exec(url.pathname);
    const method = m?.[2] ?? '';
    const kind =
      method === 'streamGenerateContent'
        ? 'stream'
        : method === 'generateContent'
          ? 'generate'
          : method === 'countTokens'
            ? 'countTokens'
            : method === 'batchEmbedContents'
              ? 'embed'
              : 'other';
    const texts = (body?.contents ?? []).flatMap((c: any) => (c.parts ?? []).map((p: any) => p.text ?? '')).join('\n');
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      model: m?.[1] ?? '',
      kind,
      apiKey: (req.headers['x-goog-api-key'] as string | undefined) ?? url.searchParams.get('key') ?? undefined,
      body,
      promptText: texts,
      systemText: (body?.systemInstruction?.parts ?? []).map((p: any) => p.text ?? '').join('\n'),
      functionDeclarations: (body?.tools ?? []).reduce((n: number, t: any) => n + (t.functionDeclarations?.length ?? 0), 0),
      at: Date.now(),
    };
    this.requests.push(rec);
    if (kind === 'embed') {
      // Deterministic bag-of-words vectors: texts sharing words get similar vectors.
      const embeddings = (body?.requests ?? []).map((r: any) => {
        const dims = r.outputDimensionality ?? 8;
        const v = new Array(dims).fill(0);
        for (const w of String(r.content?.parts?.[0]?.text ?? '')
          .toLowerCase()
          .match(/[a-z]+/g) ?? [])
          v[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % dims, 7)] += 1;
        const n = Math.hypot(...v) || 1;
        return { values: v.map((x: number) => x / n) };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ embeddings }));
      return;
    }
    if (kind === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: Math.ceil(raw.length / 4) }));
      return;
    }
    // A failing script keeps the run going (an unanswered request would hang gemini) and is reported.
    const reply = this.next(rec, this.fallback, (err) => ({ text: `fake API script error: ${err.message}` }));
    const send = () => this.reply(res, kind, reply, rec);
    if (reply.hang) return;
    const delayed = () => (reply.delayMs ? setTimeout(send, reply.delayMs) : send());
    if (reply.after) void reply.after.then(delayed, delayed);
    else delayed();
  }

  private reply(res: http.ServerResponse, kind: RecordedRequest['kind'], reply: FakeReply, rec: RecordedRequest): void {
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            code: reply.status,
            message: `fake API error ${reply.status}`,
            status: reply.status === 429 ? 'RESOURCE_EXHAUSTED' : 'ERROR',
            details: reply.details ?? [],
          },
        }),
      );
      return;
    }
    if (reply.garbage !== undefined) {
      res.writeHead(200, { 'content-type': kind === 'stream' ? 'text/event-stream' : 'application/json' });
      res.end(reply.garbage);
      return;
    }
    const text = reply.text ?? '';
    const usage: NonNullable<RecordedRequest['usageSent']> = reply.usage
      ? { promptTokenCount: reply.usage.prompt, candidatesTokenCount: reply.usage.candidates, totalTokenCount: 0 }
      : { promptTokenCount: Math.ceil(rec.promptText.length / 4), candidatesTokenCount: Math.ceil(text.length / 4) + 1, totalTokenCount: 0 };
    if (reply.usage?.cached !== undefined) usage.cachedContentTokenCount = reply.usage.cached;
    usage.totalTokenCount = usage.promptTokenCount + usage.candidatesTokenCount;
    rec.usageSent = usage;
    const image = [
      ...(reply.image ? [{ inlineData: { mimeType: reply.image.mimeType, data: reply.image.data.toString('base64') } }] : []),
      ...(reply.functionCall ? [{ functionCall: reply.functionCall }] : []),
    ];
    const chunk = (t: string, last: boolean) => ({
      candidates: [
        {
          content: { role: 'model', parts: [...(t || !image.length ? [{ text: t }] : []), ...(last ? image : [])] },
          ...(last ? { finishReason: 'STOP' } : {}),
          index: 0,
        },
      ],
      ...(last ? { usageMetadata: usage } : {}),
      modelVersion: rec.model,
    });
    if (kind === 'stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Split into chunks on line boundaries to exercise gemini's stream assembly.
      const third = Math.ceil(text.length / 3);
      const parts = text.length > 30 ? [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)] : [text];
      const sendPart = (i: number) => {
        if (res.destroyed) return;
        if (i === 1 && (reply.reset || reply.stall)) return void (reply.reset && resetAfterFlush(res));
        if (i === parts.length) return void res.end();
        if (i === 0) rec.firstChunkAt = Date.now();
        res.write(`data: ${JSON.stringify(chunk(parts[i], i === parts.length - 1))}\r\n\r\n`);
        if (reply.nextChunk && i + 1 < parts.length) void reply.nextChunk().then(() => sendPart(i + 1));
        else if (reply.chunkDelayMs) setTimeout(() => sendPart(i + 1), reply.chunkDelayMs);
        else sendPart(i + 1);
      };
      sendPart(0);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const body = JSON.stringify(chunk(text, true));
    if (reply.reset || reply.stall) {
      res.write(body.slice(0, body.length >> 1));
      if (reply.reset) resetAfterFlush(res);
      return;
    }
    res.end(body);
  }
}

/** Cuts the connection with a TCP reset once what was written so far has left (the client sees a part, then ECONNRESET). */
export function resetAfterFlush(res: http.ServerResponse): void {
  setTimeout(() => res.socket?.resetAndDestroy(), 100);
}
