import * as z from 'zod';
import { defineTool, type PlannedChange, type ToolContext } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { readIfExists, unifiedDiff } from './diffPreview.js';
import { prepareWrite, readOnlyReason } from './prepareWrite.js';

/** Lines as an editor counts them: a final newline ends the last line, it does not start another. */
function lineCount(t: string): number {
  return t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0);
}

/** The change as it would land (the confirmation and the editor's diff show this). */
async function planWrite(ctx: ToolContext, args: { path: string; content: string }): Promise<PlannedChange> {
  const abs = ctx.resolve(args.path);
  const before = await readIfExists(abs);
  const refused = before === null ? null : await readOnlyReason(abs);
  return {
    kind: before === null ? 'create' : 'overwrite',
    path: abs,
    shown: displayPath(ctx.root, abs),
    oldText: before,
    newText: args.content,
    ...(refused ? { refused } : {}),
  };
}

export const writeFileTool = defineTool({
  name: 'write_file',
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
    // Through the editor when it offers to write (its buffer and the disk stay one), else atomically here.
    if (ctx.editorFs?.write) await ctx.editorFs.write(abs, args.content);
    else await writeFileAtomic(abs, args.content);
    const lines = lineCount(args.content);
    return {
      content: `${st ? 'overwrote' : 'created'} ${shown}: ${Buffer.byteLength(args.content)} bytes, ${lines} lines`,
      meta: { path: shown },
    };
  },
});
