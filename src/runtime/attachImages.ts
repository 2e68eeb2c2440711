// `@path/to/image.png` (or `@talk.mp3`, `@demo.mp4`, `@spec.pdf`) in a user message: the file goes to the
// model with the message, after the path policy (a denied path is refused, as it would be for a tool) and
// the type and size checks. The name only makes it a mention; its bytes decide what it is.
import type { LoopDeps } from '../core/loop.js';
import { analyzeImageTool } from '../tools/analyzeImage.js';
import { analyzeMediaTool } from '../tools/analyzeMedia.js';
import { loadMedia, MAX_MEDIA_TOTAL_BYTES } from '../tools/loadMedia.js';
import { ImageError, loadImage, MAX_IMAGES_PER_MESSAGE, type LoadedImage } from '../tools/loadImage.js';
import { displayPath } from '../sandbox/resolvePath.js';
import type { Tool } from '../tools/types.js';

const EXT = '(?:png|jpe?g|webp|gif|mp3|wav|ogg|oga|opus|flac|mp4|m4v|webm|mov|pdf)';
const MENTION = new RegExp(`(?:^|[\\s(])@(?:"([^"]+\\.${EXT})"|([^\\s"'()]+\\.${EXT}))(?=$|[\\s),.;:!?])`, 'gim');
const IMAGE_NAME = /\.(?:png|jpe?g|webp|gif)$/i;

export function imageMentions(input: string): string[] {
  const out: string[] = [];
  for (const m of input.matchAll(MENTION)) {
    const p = m[1] ?? m[2];
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

export type AttachResult = { ok: true; images: LoadedImage[] } | { ok: false; message: string };

export async function attachImages(input: string, deps: LoopDeps): Promise<AttachResult> {
  const paths = imageMentions(input);
  if (!paths.length) return { ok: true, images: [] };
  if (paths.length > MAX_IMAGES_PER_MESSAGE)
    return { ok: false, message: `${paths.length} images in one message; at most ${MAX_IMAGES_PER_MESSAGE} can be sent` };
  const images: LoadedImage[] = [];
  for (const p of paths) {
    const image = IMAGE_NAME.test(p);
    const decision = await deps.decide((image ? analyzeImageTool : analyzeMediaTool) as unknown as Tool, { path: p });
    // The user named the file, so an `ask` is answered; a deny holds, as for every tool. A hard link is not
    // what the user named, though: it may be a file from outside the project under this name (read_file asks for it).
    if (decision.decision === 'ask' && decision.path === 'hardlink')
      return { ok: false, message: `@${p}: ${decision.reason}; it was not sent (ask the model to read it, and you will be asked)` };
    if (decision.decision === 'deny')
      return { ok: false, message: `@${p}: ${decision.reason} (${decision.rule}); the ${image ? 'image' : 'file'} was not sent` };
    let abs: string;
    try {
      abs = deps.ctx.resolve(p);
    } catch (err) {
      return { ok: false, message: `@${p}: ${(err as Error).message}` };
    }
    try {
      images.push(await (image ? loadImage : loadMedia)(abs, displayPath(deps.ctx.root, abs)));
    } catch (err) {
      if (err instanceof ImageError) return { ok: false, message: `@${p}: ${err.message}` };
      throw err;
    }
  }
  const total = images.reduce((n, i) => n + i.bytes, 0);
  if (images.length > 1 && total > MAX_MEDIA_TOTAL_BYTES)
    return {
      ok: false,
      message: `the attached files come to ${(total / 1024 / 1024).toFixed(1)} MB; one message can carry ${MAX_MEDIA_TOTAL_BYTES / 1024 / 1024} MB (mention fewer, or ask about them one by one)`,
    };
  return { ok: true, images };
}
