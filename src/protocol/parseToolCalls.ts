// Parser for the devx text tool protocol, spec v1 (see prompts/system.md for the model-facing manual).
// Pure function: no I/O. Never throws on model output; every problem becomes an error or warning.

export interface ParsedCall {
  tool: string;
  args: Record<string, string>;
  /** 1-based line of the TOOL_CALL line. */
  line: number;
}

export interface ParseError {
  /** 1-based line of the call the error belongs to. */
  line: number;
  /** Tool name when it could be read, so the error can be reported as that tool's result. */
  tool?: string;
  message: string;
}

export interface ParseResult {
  calls: ParsedCall[];
  errors: ParseError[];
  warnings: string[];
  /** The reply with protocol lines removed (what a person reads). Hallucinated results are cut. */
  prose: string;
  /** Line numbers of TOOL_CALL lines that sat inside ordinary code blocks and were ignored. */
  ignoredInCodeBlocks: number[];
  /** True when a code block was still open at the end of the reply. */
  unclosedCodeBlock: boolean;
  /** True when a TOOL_RESULT line was found in the reply and the rest discarded. */
  hallucinatedResult: boolean;
  /** The reply (LF line endings) up to any hallucinated TOOL_RESULT line: what history keeps. */
  kept: string;
}

const CALL_PREFIX = /^[ \t]*TOOL_CALL:/;
const RESULT_PREFIX = /^[ \t]*TOOL_RESULT:/;
const TOOL_NAME = /^[a-z][a-z0-9_]*$/;
// An argument separator: a pipe followed by a valid key and '='.
const ARG_START = /\|[ \t]*([a-z_][a-z0-9_]*)=/g;
const CODE_FENCE_OPEN = /^[ \t]*(`{3,})([^`]*)$/;
const VALUE_FENCE_OPEN = /^(`{3,})[^`]*$/;

// "TOOL_CALL" written anywhere else on a line (bold, list item, quote, after a sentence, inline
// code), or misspelt ("TOOL CALL", "TOOLCALL", "Tool_Call", "tool_call"). Plain English ("a tool
// call") is not a near-miss.
const NEAR_MISS = /TOOL[ _-]?CALL|Tool_?Call|tool_call|TOOL_call/;

/** What the model wrote, turned into the call it probably meant (or null when there is none). */
export function correctedCall(line: string): string | null {
  const m = /TOOL[ _-]?CALL\s*[:\-=]?\s*(.*)$/i.exec(line);
  if (!m) return null;
  let rest = m[1]
    .replace(/^[\s*_`]+/, '')
    .replace(/(\*\*|__|`+|\*|_)+\s*$/, '')
    .trim();
  // "read_file, path=a" / "read_file: path=a" / "read_file path=a" -> "read_file | path=a"
  const name = /^([a-z][a-z0-9_]*)\s*[,:;]?\s*(.*)$/.exec(rest);
  if (!name) return null;
  rest = name[2].replace(/^\|\s*/, '');
  const args = rest ? rest.split(/\s*[|,;]\s*(?=[a-z_][a-z0-9_]*=)/).filter(Boolean) : [];
  return `TOOL_CALL: ${[name[1], ...args].join(' | ')}`;
}

function nearMissMessage(line: string): string {
  const fix = correctedCall(line);
  return (
    `this line mentions a tool call but is not one, so nothing was run: "${line.trim().slice(0, 120)}". ` +
    'A call is a line of its own that starts with exactly "TOOL_CALL: " (no bold, list marker, quote, backticks or text before it), ' +
    'then the tool name and "| key=value" arguments' +
    (fix ? `. Write it as:\n${fix}` : '.')
  );
}

interface ArgSegment {
  key: string;
  value: string;
}

/** Splits `| k=v | k2=v2` text. Returns null when there is text that is not an argument. */
function splitArgs(text: string): { args: ArgSegment[]; malformed: boolean } {
  const trimmed = text.replace(/^[ \t]+/, '');
  const matches = [...trimmed.matchAll(ARG_START)];
  const args: ArgSegment[] = [];
  let malformed = false;
  if (trimmed.trim() === '') return { args, malformed };
  if (matches.length === 0 || matches[0].index !== 0) malformed = true;
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i];
    const start = m.index! + m[0].length;
    const end = i + 1 < matches.length ? matches[i + 1].index! : trimmed.length;
    args.push({ key: m[1], value: trimmed.slice(start, end).trim() });
  }
  return { args, malformed };
}

function isClosingFence(line: string, minLen: number): { rest: string } | null {
  const m = /^[ \t]*(`+)(.*)$/.exec(line);
  if (!m || m[1].length < minLen) return null;
  const rest = m[2];
  if (rest.trim() === '') return { rest: '' };
  // A closing fence line may continue with further arguments.
  if (/^[ \t]*\|/.test(rest)) return { rest };
  return null;
}

export function parseToolCalls(reply: string): ParseResult {
  const lines = reply.replace(/\r\n/g, '\n').split('\n');
  const result: ParseResult = {
    calls: [],
    errors: [],
    warnings: [],
    prose: '',
    ignoredInCodeBlocks: [],
    unclosedCodeBlock: false,
    hallucinatedResult: false,
    kept: '',
  };
  let cut = lines.length;
  const prose: string[] = [];
  let codeFence = 0; // >0 while inside an ordinary code block: length of its opening fence

  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (codeFence > 0) {
      prose.push(line);
      if (isClosingFence(line, codeFence)?.rest === '') codeFence = 0;
      else if (CALL_PREFIX.test(line)) result.ignoredInCodeBlocks.push(i + 1);
      i++;
      continue;
    }
    if (RESULT_PREFIX.test(line)) {
      result.hallucinatedResult = true;
      cut = i;
      result.warnings.push(`line ${i + 1}: the reply contained a TOOL_RESULT line; results come only from devx, so it and everything after it were discarded`);
      break;
    }
    if (CALL_PREFIX.test(line)) {
      i = parseCall(lines, i, result);
      continue;
    }
    const open = CODE_FENCE_OPEN.exec(line);
    if (open) codeFence = open[1].length;
    else if (NEAR_MISS.test(line)) {
      // Looks like a call but does not start its line as one: never run, always explained.
      result.errors.push({ line: i + 1, message: nearMissMessage(line) });
    }
    prose.push(line);
    i++;
  }
  if (codeFence > 0) {
    result.unclosedCodeBlock = true;
    result.warnings.push('a code block was opened and never closed, so it swallowed the rest of the reply');
  }
  for (const n of result.ignoredInCodeBlocks) {
    result.warnings.push(`line ${n}: a TOOL_CALL line inside a code block was ignored; write calls outside code blocks`);
  }
  result.prose = prose.join('\n').trim();
  result.kept = lines.slice(0, cut).join('\n').trimEnd();
  return result;
}

/** Parses the call starting at lines[start]; returns the index of the first line after it. */
function parseCall(lines: string[], start: number, result: ParseResult): number {
  const lineNo = start + 1;
  const body = lines[start].replace(CALL_PREFIX, '').replace(/^[ \t]+/, '');
  const nameMatch = /^[^\s|]*/.exec(body)!;
  const name = nameMatch[0];
  let error: string | undefined;
  if (!TOOL_NAME.test(name)) {
    error = name === '' ? 'malformed TOOL_CALL: missing tool name' : `invalid tool name "${name}": names are lowercase [a-z][a-z0-9_]*`;
  }
  const args: Record<string, string> = {};
  let rest = body.slice(name.length);
  let i = start + 1;

  // Each iteration handles one physical line of arguments; a trailing fence pulls in following lines.
  for (;;) {
    const { args: segs, malformed } = splitArgs(rest);
    if (malformed && !error) {
      error = `malformed TOOL_CALL: expected "| key=value" after the tool name, got "${rest.trim().slice(0, 60)}"`;
    }
    let fence: { key: string; len: number } | null = null;
    segs.forEach((seg, idx) => {
      const isLast = idx === segs.length - 1;
      const open = isLast ? VALUE_FENCE_OPEN.exec(seg.value) : null;
      if (open) fence = { key: seg.key, len: open[1].length };
      else addArg(seg.key, seg.value);
    });
    if (!fence) break;
    const { key, len } = fence as { key: string; len: number };
    const content: string[] = [];
    let closed: { rest: string } | null = null;
    while (i < lines.length) {
      closed = isClosingFence(lines[i], len);
      i++;
      if (closed) break;
      content.push(lines[i - 1]);
    }
    if (!closed) {
      error = `unterminated fenced value for "${key}": the reply ended before the closing fence, so the call was dropped`;
      break;
    }
    // As in Markdown, every line inside the fence ends with a newline: a file written from a fence ends with one.
    addArg(key, content.map((l) => `${l}\n`).join(''));
    if (closed.rest === '') break;
    rest = closed.rest;
  }

  function addArg(key: string, value: string) {
    if (key in args) {
      if (!error) error = `duplicate argument "${key}"`;
      return;
    }
    args[key] = value;
  }

  if (error) {
    // A single-line call with a wrong separator ("read_file: path=a") gets the call it probably meant.
    const fix = i === start + 1 ? correctedCall(lines[start]) : null;
    const message = fix && fix !== lines[start].trim() && !fix.endsWith(':') ? `${error}. Write it as:\n${fix}` : error;
    result.errors.push({ line: lineNo, message, ...(TOOL_NAME.test(name) ? { tool: name } : {}) });
  } else result.calls.push({ tool: name, args, line: lineNo });
  return i;
}
