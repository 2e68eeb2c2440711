// "devx: Ask about selection": the question, the file (its path relative to the workspace), the selected
// lines with their numbers and the diagnostics the editor shows on them, as one prompt. No `vscode` import:
// extension.ts turns the editor's state into a SelectionContext.
import path from 'node:path';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export interface DiagnosticInfo {
  /** 1-based line the diagnostic starts on. */
  line: number;
  severity: Severity;
  message: string;
  /** The tool that reported it (tsc, eslint, ...). */
  source?: string;
  code?: string;
}

export interface SelectionContext {
  /** Absolute path of the file. */
  file: string;
  /** The workspace folder holding it (paths are shown relative to it). */
  root?: string;
  languageId?: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The selected text (the whole lines when nothing is selected). */
  text: string;
  /** Diagnostics of the file; those on the selected lines are shown, the rest counted. */
  diagnostics: DiagnosticInfo[];
  /** The buffer has unsaved changes (devx reads it through the editor, so it sees them). */
  dirty?: boolean;
}

/** The file as the prompt names it: relative to the workspace when inside it. */
export function displayPath(file: string, root?: string): string {
  if (!root) return file;
  const rel = path.relative(root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** A fence longer than any run of backticks in the text. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

export function buildSelectionPrompt(question: string, ctx: SelectionContext): string {
  const where = displayPath(ctx.file, ctx.root);
  const lines = ctx.startLine === ctx.endLine ? `line ${ctx.startLine}` : `lines ${ctx.startLine}-${ctx.endLine}`;
  const numbered = ctx.text
    .replace(/\r\n/g, '\n')
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => `${String(ctx.startLine + i).padStart(String(ctx.endLine).length)}| ${l}`)
    .join('\n');
  const f = fence(numbered);
  const on = ctx.diagnostics.filter((d) => d.line >= ctx.startLine && d.line <= ctx.endLine).sort((a, b) => a.line - b.line);
  const elsewhere = ctx.diagnostics.length - on.length;
  const out = [
    question.trim() || 'Explain this code.',
    '',
    `File: ${where} (${lines}${ctx.languageId ? `, ${ctx.languageId}` : ''}${ctx.dirty ? ', unsaved changes' : ''})`,
    `${f}${ctx.languageId ?? ''}`,
    numbered,
    f,
  ];
  if (on.length) {
    out.push('', 'Diagnostics on these lines:');
    for (const d of on) out.push(`- ${where}:${d.line} ${d.severity}${d.source ? ` (${d.source}${d.code ? ` ${d.code}` : ''})` : ''}: ${d.message}`);
  }
  if (elsewhere > 0) out.push('', `(${elsewhere} more diagnostic${elsewhere === 1 ? '' : 's'} elsewhere in ${where}.)`);
  return out.join('\n');
}
