// awk is an interpreter: its program can run commands (system(), print | "cmd", "cmd" | getline),
// write files (print > "f") and read any file (getline < "f"). Those are denied; any other program
// asks (never allowed on its own). Options before the program (-F, -v, --) are parsed, so the
// program is found wherever it is.
import { ALLOW, ASK, DENY, READ, options, strictest, type Effect, type Model, type Parsed, type PolicyDecision } from './kit.js';
import type { Word } from '../shellWords.js';

/** Strips string and regex literals so their contents cannot look like code. */
function code(program: string): string {
  return program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""').replace(/(^|[(,~!&|{};\s])\/(?:[^/\\\n]|\\.)+\//g, '$1//');
}

export function awkProgramDanger(program: string): string | null {
  const c = code(program);
  if (/\bsystem\s*\(/.test(c)) return 'system() runs a command';
  if (/(^|[^|])\|(?!\|)/.test(c)) return 'a pipe (| "cmd" or "cmd" | getline) runs a command';
  if (/\|&/.test(c)) return 'a coprocess (|&) runs a command';
  if (/\bgetline\b[^;{}]*</.test(c)) return 'getline < reads a file';
  if (/\b(print|printf)\b[^;{}]*>/.test(c)) return 'print > writes a file';
  if (/@load|@include|\bextension\s*\(/.test(c)) return 'it loads code';
  if (/@[A-Za-z_]/.test(c)) return 'an indirect call (@name) can call system()';
  if (/\bENVIRON\b/.test(c)) return 'ENVIRON reads the environment (secrets included), as env would print it';
  if (/\bARG[VC]\b/.test(c)) return 'ARGV and ARGC decide which files awk reads after BEGIN';
  return null;
}

const AWK_OPTS: Model['opts'] = {
  ...options('--help --version -F|--field-separator= -v|--assign='),
  '-f|--file': { ...READ, why: '-f reads the program from a file' },
  '-E|--exec': { ...READ, why: '-E reads the program from a file' },
  '-i|--include': { ...READ, why: '-i includes awk source' },
  '-l|--load': { v: true, e: 'exec', why: '-l loads a shared library' },
  ...options(
    '-b|--characters-as-bytes -c|--traditional -C|--copyright -e|--source= -N|--use-lc-numeric -n|--non-decimal-data -O|--optimize -P|--posix -r|--re-interval -s|--no-optimize -S|--sandbox -t|--lint-old -M|--bignum',
  ),
  '-d|--dump-variables': { v: 'attached', e: 'write', why: '-d writes a variable dump' },
  '-D|--debug': { v: 'attached', e: 'exec', why: '-D starts the interactive debugger' },
  '-o|--pretty-print': { v: 'attached', e: 'write', why: '-o writes a pretty-printed program' },
  '-p|--profile': { v: 'attached', e: 'write', why: '-p writes a profile' },
  '-L|--lint': { v: 'attached' },
  '-W': { v: true },
};

/** Anything that could reach past reading and printing, looked for in the program as written (strings and
 * regexes included, so no misread of `/` as a regex can hide one): such a program is not a plain reader. */
const MAYBE_MORE = /system|getline|[|>@]|ENVIRON|ARG[VC]|PROCINFO|extension|close|fflush/;

/** A program written out in the command, with none of the above even in its strings, and no option but -F and -v: awk as a reader. */
function readsOnly(p: Parsed, programs: Word[], fromFile: boolean): boolean {
  if (fromFile || p.opts.has('-e') || !programs.length) return false;
  if ([...p.opts.keys()].some((o) => o !== '-F' && o !== '-v')) return false;
  return programs.every((w) => w.literal && !MAYBE_MORE.test(w.text) && !awkProgramDanger(w.text));
}

export const awk = (id: string): Model => ({
  id,
  opts: AWK_OPTS,
  abbreviations: true,
  operands: (ops, p) => {
    const fromFile = p.opts.has('-f') || p.opts.has('-E') || p.opts.has('-e');
    return ops.slice(fromFile ? 0 : 1).map((w) => ({ word: w, effect: (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text) ? 'none' : 'read') as Effect }));
  },
  check: (p) => {
    const fromFile = p.opts.has('-f') || p.opts.has('-E');
    const programs = [...(p.values.get('-e') ?? [])];
    if (!fromFile && !p.opts.has('-e') && p.operands[0]) programs.push(p.operands[0]);
    let d: PolicyDecision = ASK(`${id} runs an awk program, which is a language interpreter; devx never runs one without asking`, `command:interpreter:${id}`);
    if (fromFile) d = ASK(`${id} -f runs a program file devx cannot see in advance`, `command:script-file:${id}`);
    if (!programs.length && !fromFile) return strictest(d, ASK(`${id} without a program`, `command:interpreter:${id}`));
    for (const w of programs) {
      if (!w.literal) {
        d = strictest(d, ASK('the awk program is computed at run time', 'command:expansion'));
        continue;
      }
      const danger = awkProgramDanger(w.text);
      if (danger) d = strictest(d, DENY(`the ${id} program can run commands or touch files: ${danger}`, `command:exec:${id}`));
    }
    if (p.opts.has('-W')) d = strictest(d, ASK(`${id} -W options are not modelled`, `command:unknown-option:${id}`));
    // `-v ARGC=…` or an ARGV=… operand changes which files it reads, like ARGV in the program.
    const assigned = [...(p.values.get('-v') ?? []), ...p.operands.slice(1)].find((w) => /^ARG[VC]\b/.test(w.text));
    if (assigned) d = strictest(d, DENY(`${id}: ${assigned.text} changes which files it reads`, `command:exec:${id}`));
    if (readsOnly(p, programs, fromFile) && d.rule === `command:interpreter:${id}`)
      return ALLOW(`${id} runs a program written out here that only reads its input and prints`, `command:read-only:${id}`);
    return d;
  },
});
