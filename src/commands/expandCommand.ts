// A custom command's text with its arguments put in, cut into what devx sends as it is and what it must
// fetch first: shell output (`!{…}` in Gemini CLI's syntax, !`…` in Claude Code's) and file contents
// (`@{…}`, `@path`). The fetching is the runtime's: every injection goes through the policy like a call.
import { parse as shellParse } from 'shell-quote';
import type { CustomCommand } from './loadCommands.js';

export type Part = { text: string } | { shell: string } | { file: string; raw: string };

/** The words of an argument string, as a shell would split them (quotes respected). */
export function argWords(args: string): string[] {
  return shellParse(args).map((w) => (typeof w === 'string' ? w : 'op' in w ? String(w.op) : String((w as { pattern?: string }).pattern ?? '')));
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `!{…}` with balanced braces inside. */
function takeBraced(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function expandGemini(body: string, args: string): Part[] {
  const words = argWords(args);
  const usesArgs = /\{\{\s*args\s*\}\}|\{\{\s*arg\d+\s*\}\}/.test(body);
  // Inside a shell injection an argument is quoted, so what the user typed cannot become shell syntax.
  const fill = (s: string, inShell: boolean) =>
    s
      .replace(/\{\{\s*args\s*\}\}/g, () => (inShell ? shellQuote(args) : args))
      .replace(/\{\{\s*arg(\d+)\s*\}\}/g, (_m, n: string) => (inShell ? shellQuote(words[Number(n)] ?? '') : (words[Number(n)] ?? '')));
  const parts: Part[] = [];
  let text = '';
  for (let i = 0; i < body.length;) {
    if ((body.startsWith('!{', i) || body.startsWith('@{', i)) && takeBraced(body, i + 1) > 0) {
      const end = takeBraced(body, i + 1);
      const inner = body.slice(i + 2, end).trim();
      if (text) parts.push({ text: fill(text, false) });
      text = '';
      parts.push(body[i] === '!' ? { shell: fill(inner, true) } : { file: fill(inner, false), raw: body.slice(i, end + 1) });
      i = end + 1;
      continue;
    }
    text += body[i++];
  }
  if (text) parts.push({ text: fill(text, false) });
  // Gemini CLI: a prompt without {{args}} gets what the user typed after it.
  if (!usesArgs && args.trim()) parts.push({ text: `\n\n${args}` });
  return parts;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Claude Code's placeholders, as its 2.1 binary fills them: `$ARGUMENTS` the whole text, `$ARGUMENTS[N]` and
 * `$N` the Nth word counted from 0, `$name` a word named in the front-matter's `arguments`; `\$…` stays literal,
 * a placeholder past the last word stays as written, and what is filled in is never filled again. No
 * placeholder filled: the arguments follow the text as `ARGUMENTS: …`.
 */
export function fillClaudeArgs(body: string, args: string, names: string[] = []): string {
  const words = argWords(args);
  const named = names
    .map((name, i) => ({ name, i }))
    .filter((n) => n.name && !/^\d+$/.test(n.name))
    .sort((a, b) => b.name.length - a.name.length);
  const alternatives = [...named.map((n) => `${escapeRe(n.name)}(?![\\[\\w])`), 'ARGUMENTS\\[(\\d+)\\]', '(\\d+)(?!\\w)', 'ARGUMENTS'];
  const re = new RegExp(`(\\\\?)\\$(${alternatives.join('|')})`, 'g');
  let filled = false;
  const out = body.replace(re, (whole, escape: string, what: string, indexed?: string, numbered?: string) => {
    if (escape) return `$${what}`;
    const n = indexed ?? numbered;
    const value = n !== undefined ? words[Number(n)] : what === 'ARGUMENTS' ? args : words[named.find((x) => x.name === what)!.i];
    if (value === undefined) return whole;
    filled = true;
    return value;
  });
  return !filled && args ? `${out}\n\nARGUMENTS: ${args}` : out;
}

function expandClaude(body: string, args: string, names?: string[]): Part[] {
  const filled = fillClaudeArgs(body, args, names);
  const parts: Part[] = [];
  // !`command` runs; @path (a word that looks like a path) is read.
  const re = /!`([^`]+)`|(^|[\s(])@([\w./~-]*[./][\w./~-]*)/g;
  let last = 0;
  for (let m = re.exec(filled); m; m = re.exec(filled)) {
    const start = m.index + (m[2]?.length ?? 0);
    if (start > last) parts.push({ text: filled.slice(last, start) });
    parts.push(m[1] !== undefined ? { shell: m[1] } : { file: m[3], raw: `@${m[3]}` });
    last = m.index + m[0].length;
  }
  if (last < filled.length) parts.push({ text: filled.slice(last) });
  return parts;
}

export function expandCommand(cmd: Pick<CustomCommand, 'body' | 'syntax' | 'argumentNames'>, args: string): Part[] {
  return cmd.syntax === 'gemini' ? expandGemini(cmd.body, args) : expandClaude(cmd.body, args, cmd.argumentNames);
}

/** An MCP prompt's arguments from what the user typed: words in the prompt's declared order; the last takes the rest. */
export function promptArgs(declared: { name: string; required: boolean }[], args: string): { values: Record<string, string> } | { missing: string[] } {
  const words = argWords(args);
  const values: Record<string, string> = {};
  declared.forEach((a, i) => {
    const v = i === declared.length - 1 ? words.slice(i).join(' ') : words[i];
    if (v) values[a.name] = v;
  });
  const missing = declared.filter((a) => a.required && !values[a.name]).map((a) => a.name);
  return missing.length ? { missing } : { values };
}
