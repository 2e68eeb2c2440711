import * as z from 'zod';
import { defineTool, ToolError } from './types.js';
import { pathArg } from './argTypes.js';
import { displayPath } from '../sandbox/resolvePath.js';
import { ImageError } from './loadImage.js';
import { loadMedia, mediaKind, mediaLabel } from './loadMedia.js';

const ASK: Record<ReturnType<typeof mediaKind>, string> = {
  image: 'describe what you see in it',
  audio: 'listen to it and report what it holds',
  video: 'watch it and report what it shows',
  pdf: 'read it, text and pages alike',
};

export const analyzeMediaTool = defineTool({
  name: 'analyze_media',
  needs: ['resolve', 'root'],
  kind: 'read',
  descriptionFile: 'tools/analyze_media.md',
  locations: (a) => [{ path: String(a.path), intent: 'read' }],
  describe: (a) => `take in ${a.path}`,
  aliases: [],
  example: 'TOOL_CALL: analyze_media | path=docs/demo.mp4',
  schema: z.object({ path: pathArg('audio (MP3, WAV, OGG, FLAC), video (MP4, WebM, MOV), PDF or image file, relative to the project root') }),
  async execute(ctx, args) {
    const abs = ctx.resolve(args.path);
    try {
      const m = await loadMedia(abs, displayPath(ctx.root, abs));
      return { content: `${mediaLabel(m)} is attached to this result; ${ASK[mediaKind(m.mimeType)]} as the task needs.`, meta: { path: m.path }, images: [m] };
    } catch (err) {
      if (err instanceof ImageError) throw new ToolError(`${err.message}.`);
      throw err;
    }
  },
});
