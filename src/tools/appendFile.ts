import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import * as z from 'zod';
import { defineTool, ToolError, type PlannedChange, type ToolContext } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { fileKind } from '../util/readRegularFileSync.js';
import { readIfExists } from './diffPreview.js';
import { prepareWrite } from './prepareWrite.js';

/** Whole lines: the text ends with a newline, and starts on a fresh line when the file lacks one. */
export function linesToAppend(existing: string | null, content: string): string {
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return existing && !existing.endsWith('\n') ? `\n${body}` : body;
}

const lineCount = (t: string) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0);

/** The change as it would land (the confirmation and the editor's diff show this). */
async function planAppend(ctx: ToolContext, args: { path: string; content: string }): Promise<PlannedChange> {
  const abs = ctx.resolve(args.path);
  const before = await readIfExists(abs);
  return {
    kind: before === null ? 'create' : 'append',
    path: abs,
    shown: displayPath(ctx.root, abs),
    oldText: before,
    newText: `${before ?? ''}${linesToAppend(before, args.content)}`,
  };
}

export const appendFileTool = defineTool({
  name: 'append_file',
  kind: 'write',
  descriptionFile: 'tools/append_file.md',
  locations: (a) => [{ path: String(a.path), intent: 'write' }],
  describe: (a) => `append to ${a.path} (${lineCount(String(a.content ?? ''))} lines)`,
  example: 'TOOL_CALL: append_file | path=notes/changelog.md | content=- 2025-05-02T10:00:00Z Generated initial context.',
  schema: z.object({
    path: pathArg('file to append to, relative to the project root (created if missing)'),
    content: z.string().min(1, 'give the line(s) to append').describe('the line(s) to add at the end of the file'),
  }),
  plan: planAppend,
  async preview(ctx, args, planned) {
    const p = planned ?? (await planAppend(ctx, args));
    const add = p.newText.slice((p.oldText ?? '').length).replace(/^\n/, '');
    const lines = add.slice(0, -1).split('\n');
    return `${p.oldText === null ? 'create' : 'append to'} ${p.shown}: ${lines.length} line(s)\n${lines.map((l) => `+${l}`).join('\n')}`;
  },
  async execute(ctx, args) {
    const { abs, shown, existed: st } = await prepareWrite(ctx, args.path);
    // O_APPEND: the existing content is never rewritten, only extended.
    // O_NOFOLLOW: a link swapped in after the path was checked is refused, not followed out of the project.
    // O_NONBLOCK: a FIFO opens at once (and is then refused) instead of blocking; no effect on a regular file.
    const { O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fsConstants;
    const handle = await fs.open(abs, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP') throw new ToolError(`${shown} is a symbolic link; append_file writes only regular files.`);
      if (err.code === 'ENXIO') throw new ToolError(`${shown} is not a regular file; append_file writes only regular files.`);
      throw err;
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new ToolError(`${shown} is ${fileKind(stat)}, not a regular file; append_file writes only regular files.`);
      const size = stat.size;
      let lastByte: string | null = null;
      if (size > 0) {
        const buf = Buffer.alloc(1);
        await handle.read(buf, 0, 1, size - 1);
        lastByte = buf.toString('utf8');
      }
      const add = linesToAppend(lastByte, args.content);
      await handle.appendFile(add, 'utf8');
      const added = lineCount(add.replace(/^\n/, ''));
      return { content: `${st ? 'appended' : 'created'} ${shown}: ${added} line(s) added, now ${size + Buffer.byteLength(add)} bytes`, meta: { path: shown } };
    } finally {
      await handle.close();
    }
  },
});
