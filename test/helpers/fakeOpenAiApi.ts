// A scripted fake of OpenAI's Responses API on 127.0.0.1, for driving the real `codex` binary (devx's
// codex provider points codex at OPENAI_BASE_URL). Answers POST /v1/responses with the SSE events codex
// reads (response.created, response.output_item.added, response.output_text.delta,
// response.output_item.done, response.completed), OpenAI-shaped errors, and records every request.
import http from 'node:http';
import { FakeServer } from './fakeServer.js';
import { resetAfterFlush } from './fakeGeminiApi.js';

export interface FakeOpenAiReply {
  text?: string;
  /** HTTP error status with an OpenAI error body (401, 429, 500, ...). */
  status?: number;
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
  /** Send the first part of the reply, then cut the connection with a TCP reset. */
  reset?: boolean;
  /** A 200 whose body is this text instead of the API's event stream. */
  garbage?: string;
}

export type OpenAiScript = FakeOpenAiReply | ((req: RecordedOpenAiRequest) => FakeOpenAiReply);

export interface RecordedOpenAiRequest {
  method: string;
  path: string;
  model: string;
  stream: boolean;
  /** The bearer token sent. */
  apiKey: string | undefined;
  body: any;
  /** `instructions` and every system or developer message, joined. */
  systemText: string;
  /** The text of the user messages, joined. */
  promptText: string;
  /** Tools offered to the model: `tools`, and those of `additional_tools` input items. */
  tools: string[];
  /** Input items that are not messages (function calls and their outputs, tool lists...). */
  otherInput: string[];
  at: number;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'server_error',
  503: 'server_error',
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
}

function toolNames(tools: unknown, prefix = ''): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: any) => (Array.isArray(t?.tools) ? toolNames(t.tools, `${t.name ?? t.type}.`) : [`${prefix}${t?.name ?? t?.type}`]));
}

export class FakeOpenAiApi extends FakeServer<FakeOpenAiReply, RecordedOpenAiRequest> {
  /** Used when the queue is empty. */
  fallback: OpenAiScript = { status: 500 };

  /** Model calls (POST /v1/responses). */
  get modelCalls(): RecordedOpenAiRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/responses$/.test(r.path));
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, body: any): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const messages = input.filter((i) => i?.type === 'message' || (i?.role && i?.type === undefined));
    const auth = req.headers.authorization as string | undefined;
    const rec: RecordedOpenAiRequest = {
      method: req.method ?? '',
      path: url.pathname,
      model: String(body?.model ?? ''),
      stream: Boolean(body?.stream),
      apiKey: auth?.replace(/^Bearer\s+/i, ''),
      body,
      systemText: [
        typeof body?.instructions === 'string' ? body.instructions : '',
        ...messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)),
      ]
        .filter(Boolean)
        .join('\n'),
      promptText: messages
        .filter((m) => m.role === 'user')
        .map((m) => textOf(m.content))
        .join('\n'),
      tools: [...toolNames(body?.tools), ...input.filter((i) => i?.type === 'additional_tools').flatMap((i) => toolNames(i.tools))],
      otherInput: input.filter((i) => !messages.includes(i)).map((i) => String(i?.type)),
      at: Date.now(),
    };
    this.requests.push(rec);
    if (!(req.method === 'POST' && /\/responses$/.test(url.pathname))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no such endpoint ${url.pathname}`, type: 'invalid_request_error', code: null } }));
      return;
    }
    const reply = this.next(rec, this.fallback, (err) => ({ text: `fake API script error: ${err.message}` }));
    if (reply.hang) return;
    const send = () => this.reply(res, rec, reply);
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  }

  private reply(res: http.ServerResponse, rec: RecordedOpenAiRequest, reply: FakeOpenAiReply): void {
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
      const code = reply.status === 401 ? 'invalid_api_key' : reply.status === 429 ? 'rate_limit_exceeded' : null;
      res.end(JSON.stringify({ error: { message: `fake API error ${reply.status}`, type: ERROR_TYPES[reply.status] ?? 'server_error', code } }));
      return;
    }
    if (reply.garbage !== undefined) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(reply.garbage);
      return;
    }
    const text = reply.text ?? '';
    const id = `resp_${this.requests.length}`;
    const itemId = `msg_${this.requests.length}`;
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: rec.model, status: 'in_progress', output: [] as unknown[] };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    event('response.created', { response });
    event('response.output_item.added', { output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
    // A few deltas, split on no particular boundary, to exercise the client's assembly.
    const n = text.length > 30 ? 3 : 1;
    const size = Math.ceil(text.length / n);
    for (let i = 0; i < n; i++) {
      if (i === 1 && reply.reset) return void resetAfterFlush(res);
      event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: text.slice(i * size, (i + 1) * size) });
    }
    const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    event('response.output_item.done', { output_index: 0, item });
    const input = Math.ceil((rec.systemText.length + rec.promptText.length) / 4);
    const output = Math.ceil(text.length / 4) + 1;
    event('response.completed', {
      response: {
        ...response,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: input + output,
        },
      },
    });
    res.end();
  }
}
