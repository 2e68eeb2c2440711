// generate_image: a PNG made by the provider's image model, written into the project like any file write
// (the policy asks, showing the path; undo keeps what was there through the tool's write location).
import fs from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, ToolError, type ToolContext } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { writeFileAtomic } from '../util/atomicWrite.js';
import { prepareWrite, readOnlyReason } from './prepareWrite.js';
import { sniffImageType } from './loadImage.js';
import { ImageModelError } from '../providers/gemini/imageModel.js';

function model(ctx: Pick<ToolContext, 'imageModel'>) {
  return ctx.imageModel?.() ?? { unavailable: 'generate_image is not available in this session (no image model is wired in).' };
}

export const generateImageTool = defineTool({
  name: 'generate_image',
  needs: ['imageModel', 'resolve', 'root', 'signal'],
  kind: 'write',
  descriptionFile: 'tools/generate_image.md',
  locations: (a) => [{ path: String(a.path), intent: 'write' }],
  describe: (a) => `generate the image ${a.path}`,
  aliases: [],
  example: 'TOOL_CALL: generate_image | prompt=a flat app icon: a green leaf on a white circle | path=assets/icon.png',
  schema: z.object({
    prompt: z.string().min(1).describe('what the image should show (subject, style, colours, layout)'),
    path: pathArg('where to write the PNG, relative to the project root (ends in .png)').refine(
      (p) => /\.png$/i.test(p),
      'the path must end in .png (the image is written as a PNG)',
    ),
  }),
  unavailable: (ctx) => {
    const m = model(ctx);
    return 'unavailable' in m ? m.unavailable : null;
  },
  async preview(ctx, args) {
    const abs = ctx.resolve(args.path);
    const shown = displayPath(ctx.root, abs);
    const before = await fs.stat(abs).catch(() => null);
    const ro = before ? await readOnlyReason(abs) : null;
    const m = model(ctx);
    const by = 'unavailable' in m ? 'the image model' : m.model;
    return `${ro ? `note: ${shown} is ${ro}; devx will refuse to write it\n` : ''}${before ? `overwrite ${shown} (${before.size} bytes)` : `create ${shown}`} with a PNG from ${by}\nprompt: ${args.prompt}`;
  },
  async execute(ctx, args) {
    const m = model(ctx);
    if ('unavailable' in m) throw new ToolError(m.unavailable);
    const { abs, shown, existed } = await prepareWrite(ctx, args.path);
    let out: Awaited<ReturnType<typeof m.generate>>;
    try {
      out = await m.generate(args.prompt, ctx.signal);
    } catch (err) {
      if (err instanceof ImageModelError) throw new ToolError(`${err.message}. Nothing was written.`);
      throw err;
    }
    // The bytes decide: what is written under .png is a PNG.
    if (sniffImageType(out.bytes) !== 'image/png')
      throw new ToolError(`the image model returned ${out.mimeType} data that is not a PNG; nothing was written to ${shown}.`);
    await writeFileAtomic(abs, out.bytes);
    return {
      content: `${existed ? 'overwrote' : 'created'} ${shown}: a ${out.bytes.length}-byte PNG from ${m.model}${out.text ? `\nthe model said: ${out.text.slice(0, 500)}` : ''}`,
      meta: { path: shown },
    };
  },
});
