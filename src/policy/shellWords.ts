// Static evaluation of bash words from tree-sitter nodes. A word is literal only when its value is
// known without running anything: no expansions, substitutions, ANSI-C quoting or brace expansion.
import type { Node } from './bashParser.js';

export interface Word {
  /** The value bash would see, as far as it is known (quotes removed, escapes resolved). */
  text: string;
  /** True when the value is fully known statically. */
  literal: boolean;
  /** Unquoted glob characters: the value is a pattern bash expands against the filesystem. */
  glob: boolean;
  /** A single plain `word` node with no quotes or escapes (what a command name must be). */
  plain: boolean;
  /** Command and process substitutions found inside (their commands must be checked too). */
  substitutions: Node[];
  /** Node kinds the evaluator does not understand (the whole command is then refused). */
  unknownKinds: string[];
}

/** A word whose value is known as written: nothing in it expands. */
export const literalWord = (text: string): Word => ({ text, literal: true, glob: false, plain: true, substitutions: [], unknownKinds: [] });

const SUBST = new Set(['command_substitution', 'process_substitution']);

function collectSubstitutions(node: Node, out: Node[]): void {
  if (SUBST.has(node.type)) {
    out.push(node);
    return;
  }
  for (const c of node.namedChildren) if (c) collectSubstitutions(c, out);
}

function unescapeUnquoted(s: string): { text: string; glob: boolean; escaped: boolean; brace: boolean } {
  let text = '';
  let glob = false;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && i + 1 < s.length) {
      escaped = true;
      text += s[++i];
      continue;
    }
    if (ch === '*' || ch === '?' || ch === '[') glob = true;
    text += ch;
  }
  const brace = /\{[^}]*(,|\.\.)[^}]*\}/.test(s);
  return { text, glob, escaped, brace };
}

function unescapeDoubleQuoted(s: string): string {
  return s.replace(/\\([\\"$`\n])/g, (_, c) => (c === '\n' ? '' : c));
}

export function evalWord(node: Node): Word {
  const w: Word = { text: '', literal: true, glob: false, plain: false, substitutions: [], unknownKinds: [] };
  collectSubstitutions(node, w.substitutions);
  visit(node, w, true);
  if (w.substitutions.length) w.literal = false;
  // The parser splits `{.env,x}` into several words; bash expands the braces across them (quoted parts included).
  const shape = unquotedShape(node);
  if (BRACE.test(shape)) {
    w.literal = false;
    w.plain = false;
  }
  // ~user, ~+ and ~- are other users' homes, $PWD and $OLDPWD; only ~ and ~/ (the home) are known here.
  if (/^~[^/\0]/.test(shape)) {
    w.literal = false;
    w.plain = false;
  }
  return w;
}

const BRACE = /\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The word as bash sees it before quote removal: unquoted text as written, quoted or escaped parts as NUL. */
function unquotedShape(node: Node): string {
  if (node.type === 'word') return node.text.replace(/\\[^]/g, '\0');
  if (node.type === 'concatenation') return node.children.map((c) => (c ? unquotedShape(c) : '')).join('');
  if (node.type === 'brace_expression' || !node.isNamed) return node.text;
  return '\0';
}

function visit(node: Node, w: Word, top: boolean): void {
  switch (node.type) {
    case 'word': {
      const u = unescapeUnquoted(node.text);
      w.text += u.text;
      if (u.glob) w.glob = true;
      if (u.brace) w.literal = false;
      if (top) w.plain = !u.escaped && !u.brace && !u.glob;
      return;
    }
    case 'number':
      w.text += node.text;
      if (top) w.plain = true;
      return;
    case 'raw_string':
      w.text += node.text.slice(1, -1);
      return;
    case 'string':
      for (const c of node.namedChildren) {
        if (!c) continue;
        if (c.type === 'string_content') w.text += unescapeDoubleQuoted(c.text);
        else visit(c, w, false);
      }
      return;
    case 'concatenation':
      for (const c of node.namedChildren) if (c) visit(c, w, false);
      return;
    case 'simple_expansion':
    case 'expansion':
    case 'command_substitution':
    case 'process_substitution':
    case 'arithmetic_expansion':
    case 'ansi_c_string':
    case 'translated_string':
    case 'brace_expression':
      w.literal = false;
      w.text += node.text;
      return;
    default:
      w.literal = false;
      w.text += node.text;
      w.unknownKinds.push(node.type);
  }
}
