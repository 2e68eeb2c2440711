// Each line of a streamed reply is shown once, whatever its chunks: trailing spaces, wide characters and
// blank lines included, in the REPL's renderer and in ACP's prose stream alike.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRenderer } from '../../src/cli/renderEvents.js';
import { createProseStream } from '../../src/acp/proseStream.js';
import { parseToolCalls } from '../../src/protocol/parseToolCalls.js';

const REPLIES = [
  'Done: the tests pass. ',
  'First line \nsecond line   ',
  'Ein Überblick 日本語の文章 😀 \n\n  indented line \nlast one  ',
  'Plain answer.',
  'Trailing tab\t',
];

/** `text` cut into `n` pieces at code-point boundaries (as a stream may deliver it). */
function chunks(text: string, n: number): string[] {
  const cps = [...text];
  const size = Math.max(1, Math.ceil(cps.length / n));
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

function rendered(reply: string, n: number): string {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d) => (text += d));
  const r = createRenderer({ out: out as never, answerOut: out as never, env: { NO_COLOR: '1' } });
  r.onEvent({ type: 'model_request', round: 1 } as never);
  for (const c of chunks(reply, n)) r.onEvent({ type: 'backend', event: { type: 'text_delta', text: c } } as never);
  r.onEvent({ type: 'model_response' } as never);
  r.onEvent({ type: 'assistant_text', text: parseToolCalls(reply).prose, final: true });
  r.stop();
  return text;
}

function sent(reply: string, n: number): string {
  let text = '';
  const s = createProseStream((t) => (text += t));
  s.newTurn();
  s.reset();
  for (const c of chunks(reply, n)) s.add(c);
  s.finish(parseToolCalls(reply).prose, true);
  return text;
}

describe('a streamed reply is shown once', () => {
  for (const reply of REPLIES)
    for (const n of [1, 2, 8, 40])
      it(`${JSON.stringify(reply)} in ${n} chunk(s)`, () => {
        const want = parseToolCalls(reply).prose;
        const norm = (t: string) =>
          t
            .split('\n')
            .map((l) => l.trimEnd())
            .join('\n')
            .trim();
        expect(norm(rendered(reply, n))).toBe(norm(want));
        expect(norm(sent(reply, n))).toBe(norm(want));
      });
});

describe('a reply cut by a retry', () => {
  it('ends its shown part on a line of its own, and shows the retried reply once', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const r = createRenderer({ out: out as never, answerOut: out as never, env: { NO_COLOR: '1' } });
    r.onEvent({ type: 'model_request', round: 1 } as never);
    r.onEvent({ type: 'backend', event: { type: 'text_delta', text: 'This is the first part of a long' } } as never);
    r.onEvent({ type: 'backend', event: { type: 'retry', kind: 'network', delayMs: 500, message: 'connection cut mid-reply' } } as never);
    for (const c of ['Second ', 'attempt answer.']) r.onEvent({ type: 'backend', event: { type: 'text_delta', text: c } } as never);
    r.onEvent({ type: 'model_response' } as never);
    r.onEvent({ type: 'assistant_text', text: 'Second attempt answer.', final: true });
    r.stop();
    expect(text).toMatch(/first part of a long\n\s*↻ /);
    expect(text.split('Second attempt answer.')).toHaveLength(2);
    expect(text).toMatch(/Second attempt answer\.\n$/);
  });
});
