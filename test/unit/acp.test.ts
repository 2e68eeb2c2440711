// The ACP surface's pure parts: the prose stream, tool kinds and calls, MCP servers from the client.
import { describe, expect, it } from 'vitest';
import { createProseStream } from '../../src/acp/proseStream.js';
import { acpKind } from '../../src/acp/toolCalls.js';

function collect() {
  const sent: string[] = [];
  return { sent, stream: createProseStream((t) => sent.push(t)) };
}

describe('prose stream', () => {
  it('sends text as it arrives, within a line too, and the whole prose exactly once', () => {
    const { sent, stream } = collect();
    stream.reset();
    stream.add('Hello ');
    expect(sent.join('')).toBe('Hello ');
    stream.add('there.\nSecond');
    expect(sent.join('')).toBe('Hello there.\nSecond');
    stream.add(' line.');
    stream.finish('Hello there.\nSecond line.', true);
    expect(sent.join('')).toBe('Hello there.\nSecond line.');
  });

  it('holds back only what may still become a TOOL_CALL line', () => {
    const { sent, stream } = collect();
    stream.reset();
    stream.add('Reading it now.\nTOO');
    expect(sent.join('')).toBe('Reading it now.\n');
    stream.add('L_CALL: read_file | path=a.txt\n');
    expect(sent.join('')).toBe('Reading it now.\n');
    // A line of markup only waits (a near-miss like **TOOL_CALL** would follow); "The tool" is prose.
    const b = collect();
    b.stream.reset();
    b.stream.add('**');
    expect(b.sent).toEqual([]);
    b.stream.add('The tool');
    expect(b.sent.join('')).toBe('**The ');
    b.stream.add(' works.');
    b.stream.finish('**The tool works.', true);
    expect(b.sent.join('')).toBe('**The tool works.');
  });

  it('never sends a TOOL_CALL line or what follows it while streaming', () => {
    const { sent, stream } = collect();
    stream.reset();
    stream.add('Looking.\nTOOL_CALL: read_file | path=a.txt\nmore\n');
    expect(sent.join('')).toBe('Looking.\n');
    stream.finish('Looking.', false);
    expect(sent.join('')).toBe('Looking.\n');
  });

  it('prose followed by a blank line and then the calls (the usual shape) is sent once, not twice', () => {
    const { sent, stream } = collect();
    stream.reset();
    stream.add('I will read the file first.\n\nTOOL_CALL: read_file | path=a.txt\n');
    stream.finish('I will read the file first.', false);
    expect(sent.join('').match(/I will read the file first\./g)).toHaveLength(1);
    // Two paragraphs before the calls: still once each.
    const two = collect();
    two.stream.reset();
    two.stream.add('First.\n\nSecond.\n\nTOOL_CALL: read_file | path=a.txt\n');
    two.stream.finish('First.\n\nSecond.', false);
    expect(two.sent.join('')).toBe('First.\n\nSecond.\n\n');
  });

  it('a reply that did not stream is sent whole; a later reply starts a new paragraph', () => {
    const { sent, stream } = collect();
    stream.reset();
    stream.finish('First reply.', false);
    stream.reset();
    stream.finish('Final answer.', true);
    expect(sent.join('')).toBe('First reply.\n\nFinal answer.');
  });
});

describe('acpKind', () => {
  it('maps devx tool kinds to ACP kinds, searches apart', () => {
    expect(acpKind({ name: 'read_file', kind: 'read' })).toBe('read');
    expect(acpKind({ name: 'search_code', kind: 'read' })).toBe('search');
    expect(acpKind({ name: 'edit_file', kind: 'write' })).toBe('edit');
    expect(acpKind({ name: 'run_command', kind: 'execute' })).toBe('execute');
    expect(acpKind({ name: 'todo', kind: 'meta' })).toBe('other');
    expect(acpKind(undefined)).toBe('other');
  });
});

describe('ToolCallTracker', () => {
  it('a permission request for a call the loop did not announce (a sub-agent) is announced, and closed at the end of the turn', async () => {
    const { ToolCallTracker } = await import('../../src/acp/toolCalls.js');
    const { builtinTools } = await import('../../src/tools/registry.js');
    const tools = new Map(builtinTools().map((t) => [t.name, t]));
    const tracker = new ToolCallTracker(
      () => '/proj',
      () => tools,
    );
    const started = tracker.start('agent', { name: 'helper', input: 'x' });
    const p = tracker.forPermission({
      tool: 'write_file',
      args: { path: 'a.txt', content: 'hi' },
      decision: { decision: 'ask', reason: 'r', rule: 'tool:write' },
      summary: 'write a.txt (1 lines)',
      locations: [{ path: 'a.txt', intent: 'write' }],
      plan: { kind: 'create', path: '/proj/a.txt', shown: 'a.txt', oldText: null, newText: 'hi' },
    });
    expect(p.announce).toMatchObject({ sessionUpdate: 'tool_call', kind: 'edit', locations: [{ path: '/proj/a.txt' }] });
    expect(p.toolCall).toMatchObject({ toolCallId: p.id, content: [{ type: 'diff', path: '/proj/a.txt', oldText: null, newText: 'hi' }] });
    expect(tracker.closeDetached()).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: p.id, status: 'completed' }]);
    // The loop's own call is still the open one.
    const end = tracker.end({ tool: 'agent', args: {}, status: 'ok', content: 'done', durationMs: 1, summary: 'agent helper' });
    expect(end).toMatchObject({ toolCallId: (started as { toolCallId: string }).toolCallId, status: 'completed' });
  });
});

describe('mcpServerSettings', () => {
  it('turns ACP MCP servers into the mcpServers settings shape', async () => {
    const { mcpServerSettings } = await import('../../src/acp/mcpServers.js');
    expect(
      mcpServerSettings([
        { name: 'files', command: 'npx', args: ['server-filesystem', '/tmp'], env: [{ name: 'TOKEN', value: 't' }] },
        { type: 'http', name: 'web', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
        { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
      ]),
    ).toEqual({
      files: { command: 'npx', args: ['server-filesystem', '/tmp'], env: { TOKEN: 't' } },
      web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' }, transport: 'http' },
      old: { url: 'http://127.0.0.1:9/sse', headers: {}, transport: 'sse' },
    });
  });
});

describe('promptText', () => {
  it('joins text, file links and embedded files; images and audio go as they are (promptImages)', async () => {
    const { promptText } = await import('../../src/acp/promptText.js');
    expect(
      promptText([
        { type: 'text', text: 'Explain this:' },
        { type: 'resource', resource: { uri: 'file:///p/a.ts', text: 'const a = 1;' } },
        { type: 'resource_link', uri: 'file:///p/b.ts', name: 'b.ts' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ]),
    ).toBe('Explain this:\n<file uri="file:///p/a.ts">\nconst a = 1;\n</file>\n@file:///p/b.ts');
  });
});
