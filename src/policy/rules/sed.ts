// sed: the script is parsed, command by command (GNU syntax). GTFOBins: `e` and the s///e flag run
// programs (deny); `w FILE`, `W FILE` and the s///w flag write files; `r FILE`, `R FILE` read them;
// -i rewrites its operands. Scripts from -f files cannot be seen in advance: ask.
import { ASK, DENY, decideEffect, flags, strictest, word, type Model, type PolicyDecision } from './kit.js';

export interface SedScript {
  exec: boolean;
  writes: string[];
  reads: string[];
  /** Set when the script uses something the parser does not know. */
  unknown?: string;
}

/** Parses a GNU sed script. Never throws; anything unrecognised sets `unknown`. */
export function parseSedScript(s: string): SedScript {
  const out: SedScript = { exec: false, writes: [], reads: [] };
  let i = 0;
  const n = s.length;
  const ws = () => {
    while (i < n && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const restOfLine = () => {
    const start = i;
    while (i < n && s[i] !== '\n') i++;
    return s.slice(start, i);
  };
  // A delimited regex (`brackets`: GNU sed reads a [...] expression whole, so `s|[|]|x|` is one regex)
  // or replacement: returns false when unterminated.
  const delimited = (delim: string, brackets = false): boolean => {
    while (i < n) {
      if (s[i] === '\\') {
        i += 2;
        continue;
      }
      if (brackets && s[i] === '[') {
        // `]` right after `[` or `[^` is literal; [:class:], [.x.] and [=x=] hold their own `]`.
        let j = i + 1;
        if (s[j] === '^') j++;
        if (s[j] === ']') j++;
        while (j < n && s[j] !== ']') {
          if (s[j] === '[' && /[:.=]/.test(s[j + 1] ?? '')) {
            const close = s.indexOf(`${s[j + 1]}]`, j + 2);
            if (close < 0) return false;
            j = close + 2;
            continue;
          }
          if (s[j] === '\n') return false;
          j++;
        }
        if (j >= n) return false;
        i = j + 1;
        continue;
      }
      if (s[i] === '\n' && delim !== '\n') return false;
      if (s[i] === delim) {
        i++;
        return true;
      }
      i++;
    }
    return false;
  };
  const address = (): boolean => {
    ws();
    if (s[i] === '/') {
      i++;
      if (!delimited('/', true)) return false;
      while (/[IM]/.test(s[i] ?? '')) i++;
      return true;
    }
    if (s[i] === '\\' && i + 1 < n) {
      const d = s[i + 1];
      i += 2;
      if (!delimited(d, true)) return false;
      while (/[IM]/.test(s[i] ?? '')) i++;
      return true;
    }
    if (s[i] === '$') {
      i++;
      return true;
    }
    const m = /^\d+(~\d+)?/.exec(s.slice(i));
    if (m) {
      i += m[0].length;
      return true;
    }
    return true; // no address
  };
  while (i < n) {
    while (i < n && /[\s;]/.test(s[i])) i++;
    if (i >= n) break;
    if (s[i] === '#') {
      restOfLine();
      continue;
    }
    const before = i;
    if (!address()) return { ...out, unknown: 'an unterminated address' };
    if (i > before) {
      ws();
      if (s[i] === ',') {
        i++;
        ws();
        if (s[i] === '+' || s[i] === '~') {
          i++;
          const m = /^\d+/.exec(s.slice(i));
          if (!m) return { ...out, unknown: 'a bad address range' };
          i += m[0].length;
        } else if (!address()) return { ...out, unknown: 'an unterminated address' };
      }
    }
    ws();
    while (s[i] === '!') {
      i++;
      ws();
    }
    const c = s[i++];
    if (c === undefined) break;
    switch (c) {
      case '{':
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case 'l':
      case 'q':
      case 'Q':
      case 'L':
        ws();
        while (/\d/.test(s[i] ?? '')) i++;
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v': {
        // A label ends at white space or ';' (GNU sed 4.9: `:x e id` is the label x, then the command e).
        ws();
        while (i < n && !/[\s;]/.test(s[i])) i++;
        break;
      }
      case 'a':
      case 'i':
      case 'c': {
        // Text to the end of the line (a\ continuation lines included).
        while (i < n) {
          if (s[i] === '\\' && i + 1 < n) {
            i += 2;
            continue;
          }
          if (s[i] === '\n') break;
          i++;
        }
        break;
      }
      case 'e':
        out.exec = true;
        restOfLine();
        break;
      case 'r':
      case 'R':
      case 'w':
      case 'W': {
        ws();
        const f = restOfLine().trim();
        if (c === 'r' || c === 'R') out.reads.push(f);
        else out.writes.push(f);
        break;
      }
      case 's':
      case 'y': {
        const d = s[i++];
        if (d === undefined || d === '\n' || d === '\\') return { ...out, unknown: `a bad ${c} command` };
        if (!delimited(d, c === 's') || !delimited(d)) return { ...out, unknown: `an unterminated ${c} command` };
        if (c === 'y') break;
        while (i < n && /[gpiImMe0-9w]/.test(s[i])) {
          const f = s[i++];
          if (f === 'e') out.exec = true;
          if (f === 'w') {
            ws();
            out.writes.push(restOfLine().trim());
            break;
          }
        }
        break;
      }
      default:
        return { ...out, unknown: `the command ${JSON.stringify(c)}` };
    }
  }
  return out;
}

export const sed: Model = {
  id: 'sed',
  opts: {
    '--help': {},
    '--version': {},
    ...flags('nErsuzb', '--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug --sandbox', '--follow-symlinks --binary'),
    '-e|--expression': { v: true },
    '-f|--file': { v: true, e: 'read', why: '-f reads a script file' },
    '-l|--line-length': { v: true },
    '-i|--in-place': { v: 'attached', e: 'write', why: '-i rewrites its files' },
  },
  operands: (ops, p) => {
    const scriptGiven = p.opts.has('-e') || p.opts.has('-f');
    const files = ops.slice(scriptGiven ? 0 : 1);
    return files.map((w) => ({ word: w, effect: p.opts.has('-i') ? 'write' : 'read' }));
  },
  check: (p, cmd, ctx) => {
    const scripts = [...(p.values.get('-e') ?? [])];
    if (!p.opts.has('-e') && !p.opts.has('-f')) {
      if (!p.operands[0]) return ASK('sed without a script', 'command:sed-script');
      scripts.push(p.operands[0]);
    }
    let d: PolicyDecision | null = null;
    const add = (x: PolicyDecision) => (d = d ? strictest(d, x) : x);
    if (p.opts.has('-f')) add(ASK('sed -f runs a script file devx cannot see in advance', 'command:sed-script-file'));
    if (p.opts.has('-i') && !ops(p).length) add(ASK('sed -i without files', 'command:sed-in-place'));
    for (const w of scripts) {
      if (!w.literal) {
        add(ASK('the sed script is computed at run time', 'command:expansion'));
        continue;
      }
      const sc = parseSedScript(w.text);
      if (sc.exec) add(DENY('the sed script runs a program (the e command or the s///e flag)', 'command:exec:sed'));
      for (const f of sc.writes)
        add(
          f === '/dev/stdout' || f === '/dev/stderr'
            ? decideEffect('sed', 'none', undefined, 'w to stdout', ctx)
            : decideEffect('sed', 'write', word(w, f), `the script's w command`, ctx),
        );
      for (const f of sc.reads) add(decideEffect('sed', 'read', word(w, f), `the script's r command`, ctx));
      if (sc.unknown) add(ASK(`the sed script uses ${sc.unknown}, which devx does not model`, 'command:unknown-option:sed'));
    }
    return d;
  },
};

const ops = (p: { operands: unknown[]; opts: Map<string, string[]> }) => p.operands.slice(p.opts.has('-e') || p.opts.has('-f') ? 0 : 1);
