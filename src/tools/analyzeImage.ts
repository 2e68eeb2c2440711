import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { ImageError, imageLabel, loadImage } from './loadImage.js';

export const analyzeImageTool = defineTool({
  name: 'analyze_image',
  needs: ['resolve', 'root'],
  kind: 'read',
  descriptionFile: 'tools/analyze_image.md',
  locations: (a) => [{ path: String(a.path), intent: 'read' }],
  describe: (a) => `look at the image ${a.path}`,
  aliases: [],
  example: 'TOOL_CALL: analyze_image | path=docs/screenshot.png',
  schema: z.object({ path: pathArg('image file (PNG, JPEG, WebP or GIF), relative to the project root') }),
  async execute(ctx, args) {
    const abs = ctx.resolve(args.path);
    try {
      const img = await loadImage(abs, displayPath(ctx.root, abs));
      return {
        content: `${imageLabel(img)} is attached to this result; describe what you see in it as the task needs.`,
        meta: { path: img.path },
        images: [img],
      };
    } catch (err) {
      if (err instanceof ImageError) throw new ToolError(`${err.message}.`);
      throw err;
    }
  },
});
