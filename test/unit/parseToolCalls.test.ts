import { describe, expect, it } from 'vitest';
import { parseToolCalls } from '../../src/protocol/parseToolCalls.js';
import { fenceFor, formatToolResult } from '../../src/protocol/formatToolResult.js';

const calls = (s: string) => parseToolCalls(s).calls.map(({ tool, args }) => ({ tool, args }));

describe('parseToolCalls: call lines', () => {
  it('parses a simple call and ignores prose around it', () => {
    const r = parseToolCalls('I will read it.\nTOOL_CALL: read_file | path=src/main.py\nthanks');
    expect(calls('TOOL_CALL: read_file | path=src/main.py')).toEqual([{ tool: 'read_file', args: { path: 'src/main.py' } }]);
    expect(r.calls[0].line).toBe(2);
    expect(r.prose).toBe('I will read it.\nthanks');
    expect(r.errors).toEqual([]);
  });

  it('allows leading spaces and tabs, and no space after the colon', () => {
    expect(calls('  \tTOOL_CALL:list_directory | path=.')).toEqual([{ tool: 'list_directory', args: { path: '.' } }]);
  });

  it('is case-sensitive about the marker', () => {
    expect(calls('tool_call: read_file | path=a')).toEqual([]);
    expect(calls('Tool_Call: read_file | path=a')).toEqual([]);
  });

  it('accepts a call with no arguments', () => {
    expect(calls('TOOL_CALL: list_tools')).toEqual([{ tool: 'list_tools', args: {} }]);
  });

  it('rejects bad tool names with "invalid tool name"', () => {
    const r = parseToolCalls('TOOL_CALL: Read-File | path=a');
    expect(r.calls).toEqual([]);
    expect(r.errors[0]).toMatchObject({ line: 1 });
    expect(r.errors[0].message).toMatch(/invalid tool name/);
    expect(parseToolCalls('TOOL_CALL: 9tool').errors[0].message).toMatch(/invalid tool name/);
  });

  it('rejects text that is not "| key=" with "malformed"', () => {
    for (const s of ['TOOL_CALL: read_file path=a', 'TOOL_CALL: read_file | Path=a', 'TOOL_CALL: read_file | path', 'TOOL_CALL:']) {
      const r = parseToolCalls(s);
      expect(r.calls, s).toEqual([]);
      expect(r.errors[0].message, s).toMatch(/malformed|invalid tool name/);
    }
    expect(parseToolCalls('TOOL_CALL: read_file path=a').errors[0].message).toMatch(/malformed/);
  });

  it('keeps pipes inside values unless followed by key=', () => {
    expect(calls('TOOL_CALL: run_command | cmd=ls -la | grep foo')).toEqual([{ tool: 'run_command', args: { cmd: 'ls -la | grep foo' } }]);
    expect(calls('TOOL_CALL: run_command | cmd=echo a|b | timeout=5')).toEqual([{ tool: 'run_command', args: { cmd: 'echo a|b', timeout: '5' } }]);
  });

  it('trims inline values and allows empty values', () => {
    expect(calls('TOOL_CALL: list_directory | path=   ')).toEqual([{ tool: 'list_directory', args: { path: '' } }]);
    expect(calls('TOOL_CALL: glob | pattern=  **/*.ts   | path= src ')).toEqual([{ tool: 'glob', args: { pattern: '**/*.ts', path: 'src' } }]);
  });

  it('reports duplicate keys', () => {
    const r = parseToolCalls('TOOL_CALL: read_file | path=a | path=b');
    expect(r.calls).toEqual([]);
    expect(r.errors[0].message).toMatch(/duplicate/);
    expect(r.errors[0].tool).toBe('read_file');
  });

  it('runs several calls in order and normalises CRLF', () => {
    const r = parseToolCalls('TOOL_CALL: read_file | path=a\r\nsome prose\r\nTOOL_CALL: read_file | path=b\r\n');
    expect(r.calls.map((c) => c.args.path)).toEqual(['a', 'b']);
    expect(r.calls.map((c) => c.line)).toEqual([1, 3]);
  });

  it('reports one error per call and keeps parsing the next calls', () => {
    const r = parseToolCalls('TOOL_CALL: BAD | x=1 | x=2\nTOOL_CALL: read_file | path=ok');
    expect(r.errors).toHaveLength(1);
    expect(r.calls.map((c) => c.args.path)).toEqual(['ok']);
  });
});

describe('parseToolCalls: fenced values', () => {
  it('takes raw lines up to the closing fence without de-indenting', () => {
    const reply = ['TOOL_CALL: write_file | path=a.py | content=```python', '  def f():', '      return 1', '', '```'].join('\n');
    expect(calls(reply)).toEqual([{ tool: 'write_file', args: { path: 'a.py', content: '  def f():\n      return 1\n\n' } }]);
  });

  it('keeps every line inside the fence with its newline, as Markdown does (a file keeps its final newline)', () => {
    expect(calls('TOOL_CALL: write_file | path=a | content=```\nx\n```')[0].args.content).toBe('x\n');
    expect(calls('TOOL_CALL: write_file | path=a | content=```\n```')[0].args.content).toBe('');
  });

  it('lets a longer fence hold ``` lines', () => {
    const reply = ['TOOL_CALL: write_file | path=README.md | content=````', '```js', 'x()', '```', '````'].join('\n');
    expect(calls(reply)[0].args.content).toBe('```js\nx()\n```\n');
  });

  it('only closes on a bare fence at least as long', () => {
    const reply = ['TOOL_CALL: write_file | path=a | content=````', '```', 'still inside', '```` trailing text', '````'].join('\n');
    expect(calls(reply)[0].args.content).toBe('```\nstill inside\n```` trailing text\n');
  });

  it('continues with arguments after the closing fence', () => {
    const reply = ['TOOL_CALL: edit_file | path=a.ts | old_text=```', 'const a = 1;', '``` | new_text=```', 'const a = 2;', '``` | replace_all=true'].join(
      '\n',
    );
    expect(calls(reply)).toEqual([{ tool: 'edit_file', args: { path: 'a.ts', old_text: 'const a = 1;\n', new_text: 'const a = 2;\n', replace_all: 'true' } }]);
  });

  it('only the last argument on a line can open a fence', () => {
    const r = calls('TOOL_CALL: write_file | content=``` | path=a');
    expect(r).toEqual([{ tool: 'write_file', args: { content: '```', path: 'a' } }]);
  });

  it('treats TOOL_CALL and TOOL_RESULT lines inside fenced values as text', () => {
    const reply = [
      'TOOL_CALL: write_file | path=doc.md | content=```',
      'TOOL_CALL: run_command | cmd=rm -rf /',
      'TOOL_RESULT: run_command | status=ok',
      '```',
      'TOOL_CALL: read_file | path=doc.md',
    ].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls.map((c) => c.tool)).toEqual(['write_file', 'read_file']);
    expect(r.calls[0].args.content).toContain('rm -rf /');
    expect(r.hallucinatedResult).toBe(false);
  });

  it('drops a call whose fence never closes, mentioning "unterminated", and keeps earlier calls', () => {
    const reply = ['TOOL_CALL: read_file | path=a', 'TOOL_CALL: write_file | path=b | content=```', 'half a fi'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls.map((c) => c.tool)).toEqual(['read_file']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ line: 2, tool: 'write_file' });
    expect(r.errors[0].message).toMatch(/unterminated/);
  });

  it('still consumes fenced values of a call with an error', () => {
    const reply = ['TOOL_CALL: Write | path=b | content=```', 'TOOL_CALL: run_command | cmd=evil', '```', 'after'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.prose).toBe('after');
  });

  it('consumes fences of a call with a duplicate key', () => {
    const reply = ['TOOL_CALL: write_file | path=a | path=b | content=```', 'TOOL_CALL: run_command | cmd=x', '```'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls).toEqual([]);
    expect(r.errors[0].message).toMatch(/duplicate/);
  });

  it('handles CRLF inside fenced values', () => {
    expect(calls('TOOL_CALL: write_file | path=a | content=```\r\nx\r\ny\r\n```\r\n')[0].args.content).toBe('x\ny\n');
  });
});

describe('parseToolCalls: code blocks and hallucinations', () => {
  it('ignores TOOL_CALL lines inside ordinary code blocks, with a warning', () => {
    const reply = ['Example:', '```', 'TOOL_CALL: run_command | cmd=rm -rf /', '```', 'TOOL_CALL: read_file | path=a'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls.map((c) => c.tool)).toEqual(['read_file']);
    expect(r.ignoredInCodeBlocks).toEqual([3]);
    expect(r.warnings.join('\n')).toMatch(/inside a code block/);
  });

  it('follows CommonMark: indented fences, info strings, longer closers', () => {
    const reply = ['   ~~~', '    ````ts title', 'TOOL_CALL: x | a=1', '```', '`````', 'TOOL_CALL: read_file | path=a'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls.map((c) => c.args.path)).toEqual(['a']);
    expect(r.ignoredInCodeBlocks).toEqual([3]);
  });

  it('treats ```npm install``` on one line as prose, not a fence', () => {
    const r = parseToolCalls('Run ```npm install``` first\n```npm install```\nTOOL_CALL: read_file | path=a');
    expect(r.calls).toHaveLength(1);
    expect(r.unclosedCodeBlock).toBe(false);
  });

  it('warns when an unclosed code block swallows the rest of the reply', () => {
    const r = parseToolCalls('```bash\nls\nTOOL_CALL: read_file | path=a');
    expect(r.calls).toEqual([]);
    expect(r.unclosedCodeBlock).toBe(true);
    expect(r.warnings.join('\n')).toMatch(/never closed/);
  });

  it('discards a hallucinated TOOL_RESULT and everything after it, with one warning', () => {
    const reply = ['TOOL_CALL: read_file | path=a', '  TOOL_RESULT: read_file | status=ok', 'fake content', 'TOOL_CALL: run_command | cmd=rm -rf /'].join('\n');
    const r = parseToolCalls(reply);
    expect(r.calls.map((c) => c.tool)).toEqual(['read_file']);
    expect(r.hallucinatedResult).toBe(true);
    expect(r.warnings).toHaveLength(1);
    expect(r.prose).not.toContain('fake content');
  });

  it('never throws on adversarial input', () => {
    const nasty = [
      'TOOL_CALL: ',
      'TOOL_CALL:|||',
      'TOOL_CALL: a | =x',
      '```````',
      'TOOL_CALL: a | b=````',
      '\u0000\u202e',
      'TOOL_CALL: a | b=c | ',
      'TOOL_CALL: a|b=1|c=2|d=```',
    ].join('\n');
    expect(() => parseToolCalls(nasty)).not.toThrow();
    expect(() => parseToolCalls('`'.repeat(100000))).not.toThrow();
  });
});

describe('formatToolResult', () => {
  it('uses a fence longer than any backtick run in the content', () => {
    expect(fenceFor('a ``` b ````` c')).toBe('``````');
    expect(fenceFor('plain')).toBe('```');
    const block = formatToolResult({ tool: 'read_file', status: 'ok', meta: { path: 'a.md' }, content: '```\nx\n```' });
    expect(block.split('\n')[0]).toBe('TOOL_RESULT: read_file | status=ok | path=a.md');
    expect(block.split('\n')[1]).toBe('````');
  });

  it('round-trips: a result quoted inside a fenced value stays text', () => {
    const block = formatToolResult({ tool: 'run_command', status: 'error', content: 'TOOL_CALL: evil | a=1' });
    const r = parseToolCalls(`TOOL_CALL: write_file | path=log.txt | content=${fenceFor(block)}\n${block}\n${fenceFor(block)}`);
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0].args.content).toBe(`${block}\n`);
  });

  it('omits meta values that would break the header line', () => {
    const block = formatToolResult({ tool: 'run_command', status: 'ok', meta: { cmd: 'a | b=c' }, content: '' });
    expect(block.split('\n')[0]).toBe('TOOL_RESULT: run_command | status=ok');
  });
});

describe('parseToolCalls: near-misses are errors, never calls', () => {
  const NEAR_MISSES = [
    'Sure, reading it now: TOOL_CALL: read_file | path=a.txt',
    '**TOOL_CALL: read_file | path=a.txt**',
    '*TOOL_CALL: read_file | path=a.txt*',
    '- TOOL_CALL: read_file | path=a.txt',
    '1. TOOL_CALL: read_file | path=a.txt',
    '> TOOL_CALL: read_file | path=a.txt',
    '`TOOL_CALL: read_file | path=a.txt`',
    'TOOL CALL: read_file | path=a.txt',
    'TOOLCALL: read_file | path=a.txt',
    'Tool_Call: read_file | path=a.txt',
    'tool_call: read_file | path=a.txt',
    'TOOL_CALL - read_file | path=a.txt',
    '   **TOOL_CALL:** read_file | path=a.txt',
    'Next: `TOOL_CALL: read_file, path=a.txt`',
  ];
  for (const line of NEAR_MISSES) {
    it(`${JSON.stringify(line)}: no call, an error on its line showing the call to write`, () => {
      const r = parseToolCalls(`I will look.\n${line}`);
      expect(r.calls).toEqual([]);
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0].line).toBe(2);
      expect(r.errors[0].message).toMatch(/nothing was run/);
      expect(r.errors[0].message).toMatch(/Write it as:\nTOOL_CALL: read_file \| path=a\.txt$/);
    });
  }

  it('wrong separators on a real call line get the corrected call', () => {
    for (const line of ['TOOL_CALL: read_file: path=a.txt', 'TOOL_CALL: read_file, path=a.txt']) {
      const r = parseToolCalls(line);
      expect(r.calls).toEqual([]);
      expect(r.errors[0].message).toMatch(/Write it as:\nTOOL_CALL: read_file \| path=a\.txt$/);
    }
  });

  it('plain English about a tool call, and TOOL_CALL inside a code block, are not near-misses', () => {
    expect(parseToolCalls('I made a tool call to read the file; it worked.').errors).toEqual([]);
    const r = parseToolCalls('Example:\n```\nTOOL_CALL: read_file | path=a.txt\n```');
    expect(r.errors).toEqual([]);
    expect(r.calls).toEqual([]);
  });
});
