// sed: the script is parsed, command by command (GNU syntax). GTFOBins: `e` and the s///e flag run
// programs (deny); `w FILE`, `W FILE` and the s///w flag write files; `r FILE`, `R FILE` read them;
// -i rewrites its operands. Scripts from -f files cannot be seen in advance: ask.
import type { Word } from '../shellWords.js';
import { ASK, DENY, decideEffect, fromSpec, strictest, word, type Model, type Parsed, type PolicyDecision, type RuleContext } from './kit.js';

export interface SedScript {
  exec: boolean;
  writes: string[];
  reads: string[];
  /** Set when the script uses something the parser does not know. */
  unknown?: string;
}

/** The script and how far it has been read. */
interface Cursor {
  s: string;
  i: number;
}

const skipBlanks = (c: Cursor) => {
  while (c.s[c.i] === ' ' || c.s[c.i] === '\t') c.i++;
};

function restOfLine(c: Cursor): string {
  const start = c.i;
  while (c.i < c.s.length && c.s[c.i] !== '\n') c.i++;
  return c.s.slice(start, c.i);
}

/** Where the [...] expression opened at `i` ends (just past its `]`), or -1 when it does not. */
function bracketEnd(s: string, i: number): number {
  // `]` right after `[` or `[^` is literal; [:class:], [.x.] and [=x=] hold their own `]`.
  let j = i + 1;
  if (s[j] === '^') j++;
  if (s[j] === ']') j++;
  while (j < s.length && s[j] !== ']') {
    if (s[j] === '[' && /[:.=]/.test(s[j + 1] ?? '')) {
      const close = s.indexOf(`${s[j + 1]}]`, j + 2);
      if (close < 0) return -1;
      j = close + 2;
    } else if (s[j] === '\n') return -1;
    else j++;
  }
  return j < s.length ? j + 1 : -1;
}

/** Skips a regex or replacement through its closing `delim`; false when unterminated. `brackets`: GNU sed reads a
 * [...] expression whole, so `s|[|]|x|` is one regex. */
function delimited(c: Cursor, delim: string, brackets = false): boolean {
  while (c.i < c.s.length) {
    const ch = c.s[c.i];
    if (ch === '\\') c.i += 2;
    else if (brackets && ch === '[') {
      c.i = bracketEnd(c.s, c.i);
      if (c.i < 0) return false;
    } else if (ch === '\n' && delim !== '\n') return false;
    else if (c.s[c.i++] === delim) return true;
  }
  return false;
}

/** Skips one address (`/re/I`, `\%re%`, `$`, `N`, `N~M`), if there is one; false when its regex is unterminated. */
function address(c: Cursor): boolean {
  skipBlanks(c);
  const open = c.s[c.i] === '/' ? 1 : c.s[c.i] === '\\' && c.i + 1 < c.s.length ? 2 : 0;
  if (!open) {
    c.i += c.s[c.i] === '$' ? 1 : (/^\d+(~\d+)?/.exec(c.s.slice(c.i))?.[0].length ?? 0);
    return true;
  }
  const delim = c.s[c.i + open - 1];
  c.i += open;
  if (!delimited(c, delim, true)) return false;
  while (/[IM]/.test(c.s[c.i] ?? '')) c.i++;
  return true;
}

/** Skips the addresses before a command (`1,/x/`, `/a/,+3`): what is wrong with them, or null. */
function addresses(c: Cursor): string | null {
  const before = c.i;
  if (!address(c)) return 'an unterminated address';
  if (c.i === before) return null;
  skipBlanks(c);
  if (c.s[c.i] !== ',') return null;
  c.i++;
  skipBlanks(c);
  if (c.s[c.i] !== '+' && c.s[c.i] !== '~') return address(c) ? null : 'an unterminated address';
  const m = /^\d+/.exec(c.s.slice(++c.i));
  if (!m) return 'a bad address range';
  c.i += m[0].length;
  return null;
}

/** s/re/text/flags and y/abc/xyz/: the e flag runs a program, the w flag writes a file. */
function substitute(c: Cursor, cmd: string, out: SedScript): string | null {
  const d = c.s[c.i++];
  if (d === undefined || d === '\n' || d === '\\') return `a bad ${cmd} command`;
  if (!delimited(c, d, cmd === 's') || !delimited(c, d)) return `an unterminated ${cmd} command`;
  while (cmd === 's' && c.i < c.s.length && /[gpiImMe0-9w]/.test(c.s[c.i])) {
    const f = c.s[c.i++];
    if (f === 'e') out.exec = true;
    if (f === 'w') {
      skipBlanks(c);
      out.writes.push(restOfLine(c).trim());
      break;
    }
  }
  return null;
}

/** Reads the rest of the command `cmd`, noting what it runs, reads and writes: what devx does not know in it, or null. */
function command(c: Cursor, cmd: string, out: SedScript): string | null {
  if ('{}=dDgGhHnNpPxzF'.includes(cmd)) return null;
  if (cmd === 's' || cmd === 'y') return substitute(c, cmd, out);
  if ('lqQL'.includes(cmd)) {
    skipBlanks(c);
    while (/\d/.test(c.s[c.i] ?? '')) c.i++;
  } else if (':btTv'.includes(cmd)) {
    // A label ends at white space or ';' (GNU sed 4.9: `:x e id` is the label x, then the command e).
    skipBlanks(c);
    while (c.i < c.s.length && !/[\s;]/.test(c.s[c.i])) c.i++;
  } else if ('aic'.includes(cmd)) {
    // Text to the end of the line (a\ continuation lines included).
    while (c.i < c.s.length && c.s[c.i] !== '\n') c.i += c.s[c.i] === '\\' && c.i + 1 < c.s.length ? 2 : 1;
  } else if (cmd === 'e') {
    out.exec = true;
    restOfLine(c);
  } else if ('rRwW'.includes(cmd)) {
    skipBlanks(c);
    (cmd === 'r' || cmd === 'R' ? out.reads : out.writes).push(restOfLine(c).trim());
  } else return `the command ${JSON.stringify(cmd)}`;
  return null;
}

/** Parses a GNU sed script. Never throws; anything unrecognised sets `unknown`. */
export function parseSedScript(s: string): SedScript {
  const out: SedScript = { exec: false, writes: [], reads: [] };
  const c: Cursor = { s, i: 0 };
  while (c.i < s.length) {
    while (c.i < s.length && /[\s;]/.test(s[c.i])) c.i++;
    if (c.i >= s.length) break;
    if (s[c.i] === '#') {
      restOfLine(c);
      continue;
    }
    const badAddress = addresses(c);
    if (badAddress) return { ...out, unknown: badAddress };
    while (/[ \t!]/.test(s[c.i] ?? '')) c.i++;
    const cmd = s[c.i++];
    if (cmd === undefined) break;
    const unknown = command(c, cmd, out);
    if (unknown) return { ...out, unknown };
  }
  return out;
}

/** What one script given on the command line does. */
function judgeScript(w: Word, ctx: RuleContext): PolicyDecision[] {
  if (!w.literal) return [ASK('the sed script is computed at run time', 'command:expansion')];
  const sc = parseSedScript(w.text);
  return [
    ...(sc.exec ? [DENY('the sed script runs a program (the e command or the s///e flag)', 'command:exec:sed')] : []),
    ...sc.writes.map((f) =>
      f === '/dev/stdout' || f === '/dev/stderr'
        ? decideEffect('sed', 'none', undefined, 'w to stdout', ctx)
        : decideEffect('sed', 'write', word(w, f), `the script's w command`, ctx),
    ),
    ...sc.reads.map((f) => decideEffect('sed', 'read', word(w, f), `the script's r command`, ctx)),
    ...(sc.unknown ? [ASK(`the sed script uses ${sc.unknown}, which devx does not model`, 'command:unknown-option:sed')] : []),
  ];
}

/** The files sed reads: its operands, but the first when that is the script (no -e or -f). */
const files = (p: Parsed) => p.operands.slice(p.opts.has('-e') || p.opts.has('-f') ? 0 : 1);

export const sed: Model = fromSpec(
  'sed',
  '-[nErsuzb] --quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug --sandbox --follow-symlinks --binary -e|--expression= -f|--file=read -l|--line-length= -i|--in-place=?write',
  {
    operands: (_ops, p) => files(p).map((w) => ({ word: w, effect: p.opts.has('-i') ? 'write' : 'read' })),
    check: (p, _cmd, ctx) => {
      const scripts = [...(p.values.get('-e') ?? [])];
      if (!p.opts.has('-e') && !p.opts.has('-f')) {
        if (!p.operands[0]) return ASK('sed without a script', 'command:sed-script');
        scripts.push(p.operands[0]);
      }
      const ds: PolicyDecision[] = [];
      if (p.opts.has('-f')) ds.push(ASK('sed -f runs a script file devx cannot see in advance', 'command:sed-script-file'));
      if (p.opts.has('-i') && !files(p).length) ds.push(ASK('sed -i without files', 'command:sed-in-place'));
      // A backup suffix with a slash (-i'../*') names the backup in another folder, from each file's own.
      const suffix = p.values.get('-i')?.find((w) => w.text.includes('/'));
      if (suffix) ds.push(DENY(`sed -i${suffix.text} writes its backups in another folder`, 'command:sed-backup-elsewhere'));
      for (const w of scripts) ds.push(...judgeScript(w, ctx));
      return ds.length ? ds.reduce(strictest) : null;
    },
  },
);
