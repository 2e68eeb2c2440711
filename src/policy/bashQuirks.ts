// Places where bash reads a command line otherwise than its text suggests, as plain string checks the
// command policy runs before and while it walks the parse tree.

/**
 * A line continuation (an odd run of backslashes, then a newline) with no blank on either side: bash
 * removes it before it splits words, so `.e\<newline>nv` is `.env`, where the parser sees two words.
 */
export function joinsWords(command: string): boolean {
  for (const m of command.matchAll(/\\+\n/g)) {
    const run = m[0].length - 1;
    const before = command[m.index - 1];
    const after = command[m.index + m[0].length];
    if (run % 2 === 1 && before !== undefined && /\S/.test(before) && after !== undefined && /\S/.test(after)) return true;
  }
  return false;
}

const POSIX_CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\s',
  blank: ' \\t',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
  graph: '!-~',
  print: ' -~',
  cntrl: '\\x00-\\x1f',
  word: '\\w',
};

/** Can this one-segment bash glob match `.` or `..` (as bash without globskipdots lets it)? */
export function matchesDotEntry(seg: string): boolean {
  // Without dotglob a leading dot is never matched by * or ?: the pattern must start with it.
  if (!seg.startsWith('.') && !seg.startsWith('[') && !seg.startsWith('\\.')) return false;
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const ch = seg[i];
    if (ch === '\\' && i + 1 < seg.length) re += `\\${seg[++i]}`;
    else if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const end = bracketEnd(seg, i);
      if (end < 0) {
        re += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      body = body.replace(/\[:(\w+):\]/g, (_, n: string) => POSIX_CLASSES[n] ?? '').replace(/[\\\]]/g, '\\$&');
      re += `[${negate ? '^' : ''}${body}]`;
      i = end;
    } else re += ch.replace(/[.+^${}()|]/g, '\\$&');
  }
  try {
    const r = new RegExp(`^${re}$`);
    return r.test('.') || r.test('..');
  } catch {
    return true;
  }
}

/** Where the bracket expression opened at `open` closes (a leading ] and [:class:] parts included), or -1. */
function bracketEnd(seg: string, open: number): number {
  let j = open + 1;
  if (seg[j] === '!' || seg[j] === '^') j++;
  if (seg[j] === ']') j++;
  for (; j < seg.length; j++) {
    if (seg[j] === '[' && seg[j + 1] === ':') {
      const close = seg.indexOf(':]', j + 2);
      if (close < 0) return -1;
      j = close + 1;
    } else if (seg[j] === ']') return j;
  }
  return -1;
}
