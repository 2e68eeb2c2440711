// A scripted fake of the Anthropic Messages API on 127.0.0.1, for driving the real `claude` binary
// (ANTHROPIC_BASE_URL). Answers POST /v1/messages with SSE (message_start, content_block_delta,
// message_stop) or JSON, Anthropic-shaped errors, and records every request.
import http from 'node:http';
import { FakeServer } from './fakeServer.js';
import { resetAfterFlush } from './fakeGeminiApi.js';

export interface FakeClaudeReply {
  text?: string;
  /** HTTP error status with an Anthropic error body (401, 429, 529, 500, ...). */
  status?: number;
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
  /** Send the first part of the reply, then cut the connection with a TCP reset (a connection lost mid-reply). */
  reset?: boolean;
  /** Send the first part of the reply, then nothing more (the API stops answering mid-reply). */
  stall?: boolean;
  /** A 200 whose body is this text instead of the API's JSON (garbage, or a body of the wrong shape). */
  garbage?: string;
  /** A tool call after the text (claude's own tools: Bash, Read…), ending the message with stop_reason tool_use. */
  toolUse?: { name: string; input: Record<string, unknown> };
}

export type ClaudeScript = FakeClaudeReply | ((req: RecordedClaudeRequest) => FakeClaudeReply);

export interface RecordedClaudeRequest {
  method: string;
  path: string;
  model: string;
  stream: boolean;
  apiKey: string | undefined;
  body: any;
  /** The system prompt as sent (blocks joined). */
  systemText: string;
  /** The user-side text of the conversation (text blocks joined). */
  promptText: string;
  /** Tool definitions offered to the model. */
  tools: number;
  /** Image blocks in user content: their media type and base64 data. */
  images: { mediaType: string; data: string }[];
  at: number;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: any) => (b?.type === 'text' ? String(b.text) : b?.type === 'tool_result' ? textOf(b.content) : '')).join('\n');
}

export class FakeAnthropicApi extends FakeServer<FakeClaudeReply, RecordedClaudeRequest> {
  /** Used when the queue is empty. */
  fallback: ClaudeScript = { status: 500 };

  /** Model calls (POST /v1/messages), not token counts or other traffic. */
  get modelCalls(): RecordedClaudeRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && /\/v1\/messages$/.test(r.path));
  }

  protected handle(req: http.IncomingMessage, res: http.ServerResponse, body: any, raw: string): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const system = Array.isArray(body?.system) ? body.system.map((b: any) => b.text ?? '').join('\n') : String(body?.system ?? '');
    const rec: RecordedClaudeRequest = {
      method: req.method ?? '',
      path: url.pathname,
      model: String(body?.model ?? ''),
      stream: Boolean(body?.stream),
      apiKey: (req.headers['x-api-key'] as string | undefined) ?? (req.headers.authorization as string | undefined),
      body,
      systemText: system,
      promptText: messages
        .filter((m) => m.role === 'user')
        .map((m) => textOf(m.content))
        .join('\n'),
      tools: Array.isArray(body?.tools) ? body.tools.length : 0,
      images: messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: any) => b?.type === 'image')
        .map((b: any) => ({ mediaType: b.source?.media_type, data: b.source?.data })),
      at: Date.now(),
    };
    this.requests.push(rec);
    if (url.pathname.endsWith('/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      return;
    }
    if (!(req.method === 'POST' && /\/v1\/messages$/.test(url.pathname))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no such endpoint ${url.pathname}` } }));
      return;
    }
    const reply = this.next(rec, this.fallback, (err) => ({ text: `fake API script error: ${err.message}` }));
    if (reply.hang) return;
    const send = () => this.reply(res, rec, reply);
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  }

  private reply(res: http.ServerResponse, rec: RecordedClaudeRequest, reply: FakeClaudeReply): void {
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
      res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[reply.status] ?? 'api_error', message: `fake API error ${reply.status}` } }));
      return;
    }
    if (reply.garbage !== undefined) {
      res.writeHead(200, { 'content-type': rec.stream ? 'text/event-stream' : 'application/json' });
      res.end(reply.garbage);
      return;
    }
    const text = reply.text ?? '';
    const input = Math.ceil((rec.systemText.length + rec.promptText.length) / 4);
    const output = Math.ceil(text.length / 4) + 1;
    const message = {
      id: `msg_${this.requests.length}`,
      type: 'message',
      role: 'assistant',
      model: rec.model,
      content: [] as unknown[],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: input, output_tokens: 1 },
    };
    const toolBlock = reply.toolUse
      ? { type: 'tool_use', id: `toolu_fake_${this.requests.length}`, name: reply.toolUse.name, input: reply.toolUse.input }
      : null;
    const stopReason = toolBlock ? 'tool_use' : 'end_turn';
    if (!rec.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({
        ...message,
        content: [{ type: 'text', text }, ...(toolBlock ? [toolBlock] : [])],
        stop_reason: stopReason,
        usage: { input_tokens: input, output_tokens: output },
      });
      if (!reply.reset && !reply.stall) return void res.end(body);
      res.write(body.slice(0, body.length >> 1));
      if (reply.reset) resetAfterFlush(res);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    event('message_start', { type: 'message_start', message });
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    // A few deltas, split on no particular boundary, to exercise the client's assembly.
    const n = text.length > 30 ? 3 : 1;
    const size = Math.ceil(text.length / n);
    for (let i = 0; i < n; i++) {
      if (i === 1 && (reply.reset || reply.stall)) return void (reply.reset && resetAfterFlush(res));
      event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(i * size, (i + 1) * size) } });
    }
    event('content_block_stop', { type: 'content_block_stop', index: 0 });
    if (toolBlock) {
      event('content_block_start', { type: 'content_block_start', index: 1, content_block: { ...toolBlock, input: {} } });
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(toolBlock.input) },
      });
      event('content_block_stop', { type: 'content_block_stop', index: 1 });
    }
    event('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: output } });
    event('message_stop', { type: 'message_stop' });
    res.end();
  }
}
