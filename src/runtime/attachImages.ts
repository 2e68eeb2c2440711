// `@path/to/image.png` in a user message: the image goes to the model with the message, after the
// path policy (a denied path is refused, as it would be for a tool) and the type and size checks.
import type { LoopDeps } from '../core/loop.js';
import { analyzeImageTool } from '../tools/analyzeImage.js';
import { ImageError, loadImage, MAX_IMAGES_PER_MESSAGE, type LoadedImage } from '../tools/loadImage.js';
import { displayPath } from '../sandbox/resolvePath.js';
import type { Tool } from '../tools/types.js';

const MENTION = /(?:^|[\s(])@(?:"([^"]+\.(?:png|jpe?g|webp|gif))"|([^\s"'()]+\.(?:png|jpe?g|webp|gif)))(?=$|[\s),.;:!?])/gim;

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
  if (paths.length > MAX_IMAGES_PER_MESSAGE) return { ok: false, message: `${paths.length} images in one message; at most ${MAX_IMAGES_PER_MESSAGE} can be sent` };
  const images: LoadedImage[] = [];
  for (const p of paths) {
    const decision = await deps.decide(analyzeImageTool as unknown as Tool, { path: p });
    // The user named the file, so an `ask` is answered; a deny holds, as for every tool.
    if (decision.decision === 'deny') return { ok: false, message: `@${p}: ${decision.reason} (${decision.rule}); the image was not sent` };
    let abs: string;
    try {
      abs = deps.ctx.resolve(p);
    } catch (err) {
      return { ok: false, message: `@${p}: ${(err as Error).message}` };
    }
    try {
      images.push(await loadImage(abs, displayPath(deps.ctx.root, abs)));
    } catch (err) {
      if (err instanceof ImageError) return { ok: false, message: `@${p}: ${err.message}` };
      throw err;
    }
  }
  return { ok: true, images };
}
