import * as z from 'zod';
import { defineTool, type PlannedChange, type ToolContext } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { unifiedDiff } from './diffPreview.js';
import { encodingMeta, readForRewrite, replacementFor } from './fileText.js';
import { prepareWrite, readOnlyReason } from './prepareWrite.js';

/** Lines as an editor counts them: a final newline ends the last line, it does not start another. */
function lineCount(t: string): number {
  return t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0);
}

/** The change as it would land (the confirmation and the editor's diff show this): an existing file keeps its form and encoding. */
async function planWrite(ctx: Pick<ToolContext, 'root' | 'resolve' | 'editorFs'>, args: { path: string; content: string }): Promise<PlannedChange> {
  const abs = ctx.resolve(args.path);
  const shown = displayPath(ctx.root, abs);
  const before = await readForRewrite(abs, shown);
  const refused = before === null ? null : await readOnlyReason(abs);
  return {
    kind: before === null ? 'create' : 'overwrite',
    path: abs,
    shown,
    oldText: before?.text ?? null,
    newText: replacementFor(before, args.content, shown).text,
    ...(refused ? { refused } : {}),
  };
}

export const writeFileTool = defineTool({
  name: 'write_file',
  needs: ['editorFs', 'resolve', 'root'],
  kind: 'write',
  descriptionFile: 'tools/write_file.md',
  locations: (a) => [{ path: String(a.path), intent: 'write' }],
  describe: (a) => `write ${a.path} (${lineCount(String(a.content ?? ''))} lines)`,
  aliases: ['Write'],
  example: 'TOOL_CALL: write_file | path=src/hello.ts | content=```ts\nexport const hello = "world";\n```',
  schema: z.object({
    path: pathArg('file to create or overwrite, relative to the project root'),
    content: z.string().describe('the complete new file content (use a fenced value)'),
  }),
  plan: planWrite,
  async preview(ctx, args, planned) {
    const { shown, oldText: before, newText: after, refused: ro } = planned ?? (await planWrite(ctx, args));
    const head =
      before === null
        ? `create ${shown} (${lineCount(after)} lines, ${Buffer.byteLength(after)} bytes)`
        : `overwrite ${shown}: replaces ${Buffer.byteLength(before)} bytes (${lineCount(before)} lines) with ${Buffer.byteLength(after)} bytes (${lineCount(after)} lines)`;
    return `${ro ? `note: ${shown} is ${ro}; devx will refuse to write it\n` : ''}${head}\n${unifiedDiff(shown, before ?? '', after)}`;
  },
  async execute(ctx, args) {
    const { abs, shown, existed: st } = await prepareWrite(ctx, args.path);
    const { text, encoding, bytes } = replacementFor(st ? await readForRewrite(abs, shown) : null, args.content, shown);
    // Through the editor when it offers to write (its buffer and the disk stay one), else atomically here;
    // a file that is not UTF-8 is written here, byte for byte (an editor's text API carries UTF-8).
    if (ctx.editorFs?.write && encoding === 'utf8') await ctx.editorFs.write(abs, text);
    else await writeFileAtomic(abs, bytes);
    return {
      content: `${st ? 'overwrote' : 'created'} ${shown}: ${bytes.length} bytes, ${lineCount(text)} lines`,
      meta: { path: shown, ...encodingMeta(encoding) },
    };
  },
});
