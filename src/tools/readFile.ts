import fs from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { intArg, pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { readFileNoFollow } from '../sandbox/openNoFollow.js';
import { fileKind } from '../util/readRegularFileSync.js';
import { decodeFile, encodingMeta, utf16Refusal, type TextEncoding } from './fileText.js';

const MAX_FILE_BYTES = 20 * 1024 * 1024;
const DEFAULT_LIMIT = 2000;
const MAX_CHARS = 100_000;

export const readFileTool = defineTool({
  name: 'read_file',
  needs: ['editorFs', 'resolve', 'root'],
  kind: 'read',
  descriptionFile: 'tools/read_file.md',
  locations: (a) => [{ path: String(a.path), intent: 'read' }],
  describe: (a) => `read ${a.path}${a.offset || a.limit ? ` (lines ${a.offset ?? 1}-${a.limit ? Number(a.offset ?? 1) + Number(a.limit) - 1 : 'end'})` : ''}`,
  aliases: ['Read', 'NotebookRead'],
  example: 'TOOL_CALL: read_file | path=src/main.ts | offset=1 | limit=200',
  schema: z.object({
    path: pathArg('file to read, relative to the project root'),
    offset: intArg('first line to show (1-based)', 1).optional(),
    limit: intArg('how many lines to show', 1).optional(),
  }),
  async execute(ctx, args) {
    const abs = ctx.resolve(args.path);
    const shown = displayPath(ctx.root, abs);
    const st = await fs.stat(abs).catch(() => null);
    if (!st) throw new ToolError(`file not found: ${shown}. Use list_directory or glob to find the right path.`);
    if (st.isDirectory()) throw new ToolError(`${shown} is a directory; use list_directory to see what it holds.`);
    if (!st.isFile()) throw new ToolError(`${shown} is ${fileKind(st)}, not a regular file; read_file reads only regular files.`);
    if (st.size > MAX_FILE_BYTES) {
      throw new ToolError(`${shown} is ${st.size} bytes, over the ${MAX_FILE_BYTES}-byte limit; use search_code to find the part you need.`);
    }
    // An editor that offers its buffers (ACP) is asked first: the model sees what the person sees, unsaved edits too.
    const fromEditor = ctx.editorFs?.read ? await ctx.editorFs.read(abs).catch(() => null) : null;
    let text: string;
    let encoding: TextEncoding = 'utf8';
    if (fromEditor !== null) text = fromEditor;
    else {
      const f = decodeFile(await readFileNoFollow(abs, shown));
      if (f.kind === 'utf16') throw new ToolError(utf16Refusal(shown, f.order, 'was not read'));
      if (f.kind === 'binary') throw new ToolError(`${shown} looks like a binary file (it contains NUL bytes); it was not read.`);
      ({ text, encoding } = f);
    }
    const lines = text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const total = lines.length;
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_LIMIT;
    if (total > 0 && offset > total) throw new ToolError(`offset ${offset} is past the end of ${shown}, which has ${total} lines.`);
    let end = Math.min(total, offset - 1 + limit);
    let body = lines.slice(offset - 1, end).join('\n');
    if (body.length > MAX_CHARS) {
      // Cut on a line boundary so the model can continue from an exact offset.
      let chars = 0;
      let n = offset - 1;
      while (n < end && chars + lines[n].length + 1 <= MAX_CHARS) chars += lines[n++].length + 1;
      end = Math.max(n, offset);
      body = lines
        .slice(offset - 1, end)
        .join('\n')
        .slice(0, MAX_CHARS);
    }
    const partial = offset > 1 || end < total;
    const marker = end < total ? `\n[truncated: showing lines ${offset}-${end} of ${total}; continue with offset=${end + 1}]` : '';
    return {
      content: body + marker,
      meta: { path: shown, lines: partial ? `${offset}-${end}/${total}` : `${total}`, ...encodingMeta(encoding) },
    };
  },
});
