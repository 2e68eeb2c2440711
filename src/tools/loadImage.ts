// Images the model can see: PNG, JPEG, WebP and GIF, told apart by their bytes, not
// their names, and capped in size so a request stays within what the model APIs accept.
import fs from 'node:fs/promises';
import { readFileNoFollow } from '../sandbox/openNoFollow.js';

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES_PER_MESSAGE = 8;

export interface LoadedImage {
  /** As the user or the model wrote it (relative to the project). */
  path: string;
  /** An image type here; audio, video or PDF when loadMedia read it. */
  mimeType: string;
  bytes: number;
  /** Base64 of the file's bytes, exactly as read. */
  data: string;
}

export class ImageError extends Error {}

export function sniffImageType(buf: Buffer): 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif' | null {
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (buf.length >= 6 && /^GIF8[79]a$/.test(buf.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (buf.length >= 12 && buf.subarray(0, 4).toString('latin1') === 'RIFF' && buf.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export async function loadImage(abs: string, shown: string): Promise<LoadedImage> {
  let buf: Buffer;
  try {
    const size = (await fs.stat(abs).catch(() => null))?.size ?? 0;
    if (size > MAX_IMAGE_BYTES) throw new ImageError(`${shown} is ${mb(size)}; images are limited to ${mb(MAX_IMAGE_BYTES)} (scale it down or crop it)`);
    buf = await readFileNoFollow(abs, shown);
  } catch (err) {
    if (err instanceof ImageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImageError(code === 'ENOENT' ? `image not found: ${shown}` : `cannot read the image ${shown} (${code ?? (err as Error).message})`);
  }
  if (buf.length > MAX_IMAGE_BYTES)
    throw new ImageError(`${shown} is ${mb(buf.length)}; images are limited to ${mb(MAX_IMAGE_BYTES)} (scale it down or crop it)`);
  const mimeType = sniffImageType(buf);
  if (!mimeType) throw new ImageError(`${shown} is not a PNG, JPEG, WebP or GIF image`);
  return { path: shown, mimeType, bytes: buf.length, data: buf.toString('base64') };
}

/** The line the conversation keeps in place of the bytes. */
export function imageLabel(img: Pick<LoadedImage, 'path' | 'mimeType' | 'bytes'>): string {
  return `[image: ${img.path} (${img.mimeType}, ${img.bytes} bytes)]`;
}
