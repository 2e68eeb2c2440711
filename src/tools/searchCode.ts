import fs from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { fileKind } from '../util/readRegularFileSync.js';
import { decodedName, shownBytes } from '../util/fileNames.js';
import { searchWithJs, type Match, type SearchResult } from './searchFallback.js';

/** Matches the model sees (the limit module saves the rest); COLLECT bounds the search itself. */
export const MAX_MATCHES = 200;
export const COLLECT = 2000;
const MAX_LINE = 300;

export type { Match };

export function formatMatches(matches: Match[], pattern: string): string {
  if (matches.length === 0) return `no matches for ${pattern}`;
  const out = matches.slice(0, COLLECT).map((m) => {
    const t = m.text.replace(/\r?\n$/, '');
    return `${m.path}:${m.line}: ${t.length > MAX_LINE ? t.slice(0, MAX_LINE) + '…' : t}`;
  });
  if (matches.length > COLLECT) out.push(`[the search stopped after ${COLLECT} matches; narrow the pattern, path or glob]`);
  return out.join('\n');
}

export const searchCodeTool = defineTool({
  name: 'search_code',
  needs: ['readDenied', 'resolve', 'rgPath', 'root', 'runner', 'signal'],
  kind: 'read',
  descriptionFile: 'tools/search_code.md',
  locations: (a) => [{ path: String(a.path ?? '.'), intent: 'read' }],
  describe: (a) => `search ${a.pattern} in ${a.path ?? '.'}${a.glob ? ` (${a.glob})` : ''}`,
  aliases: ['Grep'],
  limits: { maxLines: MAX_MATCHES },
  example: 'TOOL_CALL: search_code | pattern=function\\s+main | path=src | glob=*.ts',
  schema: z.object({
    pattern: z.string().min(1).describe('regular expression (ripgrep syntax)'),
    path: pathArg('directory or file to search (default: the project root)').optional(),
    glob: z.string().optional().describe('only search files matching this glob, e.g. *.ts'),
  }),
  async execute(ctx, args) {
    const abs = ctx.resolve(args.path ?? '.');
    const rel = displayPath(ctx.root, abs);
    // rg given a FIFO or a device reads it until the timeout; only files and folders are searched.
    const st = await fs.stat(abs).catch(() => null);
    if (st && !st.isFile() && !st.isDirectory()) throw new ToolError(`${rel} is ${fileKind(st)}; search_code searches only files and folders.`);
    const { matches: found, leftOut } = ctx.rgPath
      ? await searchWithRg(ctx, args.pattern, rel, args.glob)
      : await searchWithJs(ctx.root, abs, args.pattern, args.glob, COLLECT + 1);
    // Files the policy denies reading never reach the model, whichever search found them; nor does a file
    // with several links, which may be a file from outside the project under another name (read_file asks for it).
    const withheld = new Set<string>();
    const linked = await multiLinked(ctx.root, found);
    const matches = found.filter((m) => (ctx.readDenied?.(path.resolve(ctx.root, m.path)) ? (withheld.add(m.path), false) : !linked.has(m.path)));
    const note =
      (withheld.size ? `\n[${withheld.size} file(s) with matches withheld: the policy denies reading them]` : '') +
      (linked.size
        ? `\n[skipped ${[...linked].slice(0, 5).join(', ')}${linked.size > 5 ? ` and ${linked.size - 5} more` : ''}: a file with several hard links may be a file from outside the project; read_file asks the user for it]`
        : '') +
      leftOutNote(leftOut);
    return {
      content: formatMatches(matches, args.pattern) + note,
      meta: { pattern: args.pattern, path: rel, matches: matches.length > COLLECT ? `${COLLECT}+` : matches.length },
    };
  },
});

/** What the model is told about files whose names are not UTF-8: no check (links, denied paths) can be made on such a name. */
function leftOutNote(leftOut: string[]): string {
  if (!leftOut.length) return '';
  const shown = `${leftOut.slice(0, 5).join(', ')}${leftOut.length > 5 ? ` and ${leftOut.length - 5} more` : ''}`;
  return `\n[left out ${leftOut.length} file(s) or folder(s) whose names are not UTF-8 (${shown}): devx cannot check what such a name leads to (a hard link, a denied file), so nothing from them is shown; rename them to search them]`;
}

/** The matched files (project-relative) that have more than one link. */
async function multiLinked(root: string, matches: Match[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const p of new Set(matches.map((m) => m.path))) {
    const st = await fs.lstat(path.resolve(root, p)).catch(() => null);
    if (st?.isFile() && st.nlink > 1) out.add(p);
  }
  return out;
}

async function searchWithRg(
  ctx: { root: string; rgPath: string | null; runner: import('../util/processRunner.js').ProcessRunner; signal: AbortSignal },
  pattern: string,
  rel: string,
  glob: string | undefined,
): Promise<SearchResult> {
  const rgArgs = ['--json', '--no-config', '--sort', 'path', '--max-count', String(COLLECT + 1)];
  if (glob) rgArgs.push('--glob', glob);
  rgArgs.push('-e', pattern, '--', rel);
  const r = await ctx.runner(ctx.rgPath!, rgArgs, { cwd: ctx.root, timeoutMs: 60_000, signal: ctx.signal, extendEnv: true });
  if (r.exitCode === 2 && !r.stdout.includes('"type":"match"')) {
    throw new ToolError(`search failed: ${r.stderr.trim().split('\n').slice(-3).join(' ') || 'ripgrep exited with an error'}`);
  }
  const matches: Match[] = [];
  const leftOut = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{"type":"match"')) continue;
    const ev = JSON.parse(line) as { data: { path: RgText; line_number: number; lines: { text?: string } } };
    const file = textOf(ev.data.path);
    if (file === null) leftOut.add(shownBytes(Buffer.from(ev.data.path.bytes ?? '', 'base64')).replace(/^\.\//, ''));
    else matches.push({ path: file.replace(/^\.\//, ''), line: ev.data.line_number, text: ev.data.lines.text ?? '' });
    if (matches.length > COLLECT) break;
  }
  return { matches, leftOut: [...leftOut] };
}

/** ripgrep's JSON form of a path or line: `text` when it is UTF-8, else `bytes` (base64). */
interface RgText {
  text?: string;
  bytes?: string;
}

/** A path from ripgrep as a string, or null when it has none that names the same file. */
function textOf(p: RgText): string | null {
  return p.text !== undefined && decodedName(Buffer.from(p.text, 'utf8')) === p.text ? p.text : null;
}
