import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import * as z from 'zod';
import { defineTool, ToolError, type PlannedChange, type ToolContext } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { fileKind } from '../util/readRegularFileSync.js';
import { encodeText, encodingMeta, linesInFormOf, readForRewrite, rewritableText, type RewrittenFile } from './fileText.js';
import { prepareWrite } from './prepareWrite.js';
import { withAnchoredAsync } from '../util/guardedPath.js';

/** Whole lines: the text ends with a newline, and starts on a fresh line when the file lacks one. */
export function linesToAppend(existing: string | null, content: string): string {
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return existing && !existing.endsWith('\n') ? `\n${body}` : body;
}

const lineCount = (t: string) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0);

/** What is appended to a file holding `before`: whole lines, with CRLF endings in a CRLF file, in its encoding. */
function appendedTo(before: RewrittenFile | null, content: string, shown: string): { text: string; bytes: Buffer } {
  const text = linesInFormOf(before?.text ?? null, linesToAppend(before?.text ?? null, content));
  return { text, bytes: encodeText(text, before?.encoding ?? 'utf8', shown) };
}

/** The change as it would land (the confirmation and the editor's diff show this). */
async function planAppend(ctx: Pick<ToolContext, 'root' | 'resolve'>, args: { path: string; content: string }): Promise<PlannedChange> {
  const abs = ctx.resolve(args.path);
  const shown = displayPath(ctx.root, abs);
  const before = await readForRewrite(abs, shown);
  return {
    kind: before === null ? 'create' : 'append',
    path: abs,
    shown,
    oldText: before?.text ?? null,
    newText: `${before?.text ?? ''}${appendedTo(before, args.content, shown).text}`,
  };
}

export const appendFileTool = defineTool({
  name: 'append_file',
  needs: ['resolve', 'root'],
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
    const add = p.newText.slice((p.oldText ?? '').length).replace(/^\r?\n/, '');
    const lines = add.replace(/\r?\n$/, '').split(/\r?\n/);
    return `${p.oldText === null ? 'create' : 'append to'} ${p.shown}: ${lines.length} line(s)\n${lines.map((l) => `+${l}`).join('\n')}`;
  },
  async execute(ctx, args) {
    const { abs, shown, existed: st } = await prepareWrite(ctx, args.path);
    // O_APPEND: the existing content is never rewritten, only extended.
    // O_NOFOLLOW: a link swapped in after the path was checked is refused, not followed out of the project.
    // O_NONBLOCK: a FIFO opens at once (and is then refused) instead of blocking; no effect on a regular file.
    const { O_RDWR, O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = fsConstants;
    // Every folder on the way entered without following a link, too (util/guardedPath.ts).
    const open = withAnchoredAsync(abs, (p) => fs.open(p, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644));
    const handle = await open.catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP') throw new ToolError(`${shown} is a symbolic link; append_file writes only regular files.`);
      if (err.code === 'ENXIO') throw new ToolError(`${shown} is not a regular file; append_file writes only regular files.`);
      throw err;
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new ToolError(`${shown} is ${fileKind(stat)}, not a regular file; append_file writes only regular files.`);
      const before = stat.size > 0 ? rewritableText(await handle.readFile(), shown) : null;
      const add = appendedTo(before, args.content, shown);
      await handle.appendFile(add.bytes);
      const added = lineCount(add.text.replace(/^\r?\n/, ''));
      return {
        content: `${st ? 'appended' : 'created'} ${shown}: ${added} line(s) added, now ${stat.size + add.bytes.length} bytes`,
        meta: { path: shown, ...encodingMeta(before?.encoding ?? 'utf8') },
      };
    } finally {
      await handle.close();
    }
  },
});
