// Media the model can take in: images, audio (MP3, WAV, OGG, FLAC), video (MP4, WebM,
// MOV) and PDF, told apart by their bytes (magic numbers), never by their names, and capped per kind so a
// request stays within what the model APIs accept inline (Gemini: 20 MB per request, base64 included).
import fs from 'node:fs/promises';
import { readFileNoFollow } from '../sandbox/openNoFollow.js';
import { ImageError, MAX_IMAGE_BYTES, sniffImageType, type LoadedImage } from './loadImage.js';

export type MediaKind = 'image' | 'audio' | 'video' | 'pdf';

const MB = 1024 * 1024;
/** Per kind: what fits one inline request once base64 grows it by a third. */
export const MAX_MEDIA_BYTES: Record<MediaKind, number> = { image: MAX_IMAGE_BYTES, audio: 14 * MB, video: 14 * MB, pdf: 14 * MB };
/** All media of one message together (the Gemini API's 20 MB inline request, after base64). */
export const MAX_MEDIA_TOTAL_BYTES = 14 * MB;

export const MEDIA_TYPES_TEXT = 'PNG, JPEG, WebP or GIF images, MP3, WAV, OGG or FLAC audio, MP4, WebM or MOV video, or a PDF';

export function mediaKind(mimeType: string): MediaKind {
  if (mimeType === 'application/pdf') return 'pdf';
  return mimeType.startsWith('audio/') ? 'audio' : mimeType.startsWith('video/') ? 'video' : 'image';
}

const ascii = (buf: Buffer, from: number, to: number) => buf.subarray(from, to).toString('latin1');

/** The media type of a file's bytes, or null when devx does not send it. */
export function sniffMediaType(buf: Buffer): string | null {
  const image = sniffImageType(buf);
  if (image) return image;
  if (buf.length >= 5 && ascii(buf, 0, 5) === '%PDF-') return 'application/pdf';
  if (buf.length >= 12 && ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WAVE') return 'audio/wav';
  if (buf.length >= 4 && ascii(buf, 0, 4) === 'fLaC') return 'audio/flac';
  if (buf.length >= 4 && ascii(buf, 0, 4) === 'OggS') return 'audio/ogg';
  if (buf.length >= 3 && ascii(buf, 0, 3) === 'ID3') return 'audio/mpeg';
  // An MPEG audio frame: 11 sync bits, a version that is not 'reserved', layer I, II or III (not AAC's 00).
  if (buf.length >= 4 && buf[0] === 0xff && (buf[1] & 0xe0) === 0xe0 && (buf[1] & 0x18) !== 0x08 && (buf[1] & 0x06) !== 0 && (buf[2] & 0xf0) !== 0xf0)
    return 'audio/mpeg';
  if (buf.length >= 12 && ascii(buf, 4, 8) === 'ftyp') {
    const brand = ascii(buf, 8, 12);
    if (brand === 'qt  ') return 'video/quicktime';
    if (/^(M4A |M4B |mp4a)/.test(brand)) return 'audio/mp4';
    return 'video/mp4';
  }
  // QuickTime files older than the ftyp atom start with one of these atoms.
  if (buf.length >= 8 && ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(ascii(buf, 4, 8))) return 'video/quicktime';
  if (buf.length >= 4 && buf.readUInt32BE(0) === 0x1a45dfa3) {
    // EBML: WebM names its DocType in the header; other Matroska files are not sent.
    return buf.subarray(0, 64).includes(Buffer.from('webm', 'latin1')) ? 'video/webm' : null;
  }
  return null;
}

const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;
const KIND_NAME: Record<MediaKind, string> = { image: 'images', audio: 'audio files', video: 'videos', pdf: 'PDFs' };

function tooBig(shown: string, size: number, kind: MediaKind | null): string {
  if (!kind) return `${shown} is ${mb(size)}; media files are limited to ${mb(Math.max(...Object.values(MAX_MEDIA_BYTES)))}`;
  return `${shown} is ${mb(size)}; ${KIND_NAME[kind]} are limited to ${mb(MAX_MEDIA_BYTES[kind])}${kind === 'image' ? ' (scale it down or crop it)' : kind === 'pdf' ? ' (send the pages that matter)' : ' (cut it shorter)'}`;
}

/** The kind of a file too big to read whole, from its first bytes (for the message only; nothing is sent). */
async function headKind(abs: string): Promise<MediaKind | null> {
  const fh = await fs.open(abs, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await fh.read(head, 0, 64, 0);
    const mime = sniffMediaType(head.subarray(0, bytesRead));
    return mime ? mediaKind(mime) : null;
  } finally {
    await fh.close();
  }
}

/** Reads a media file for the model: the path policy is the caller's; its type comes from its bytes. */
export async function loadMedia(abs: string, shown: string): Promise<LoadedImage> {
  const biggest = Math.max(...Object.values(MAX_MEDIA_BYTES));
  let buf: Buffer;
  try {
    const size = (await fs.stat(abs).catch(() => null))?.size ?? 0;
    if (size > biggest) throw new ImageError(tooBig(shown, size, await headKind(abs)));
    buf = await readFileNoFollow(abs, shown);
  } catch (err) {
    if (err instanceof ImageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImageError(code === 'ENOENT' ? `file not found: ${shown}` : `cannot read ${shown} (${code ?? (err as Error).message})`);
  }
  const mimeType = sniffMediaType(buf);
  if (!mimeType) throw new ImageError(`${shown} is not one of the files devx sends to the model (${MEDIA_TYPES_TEXT}), judged by its content`);
  const kind = mediaKind(mimeType);
  if (buf.length > MAX_MEDIA_BYTES[kind]) throw new ImageError(tooBig(shown, buf.length, kind));
  return { path: shown, mimeType, bytes: buf.length, data: buf.toString('base64') };
}

/** The line the conversation keeps in place of the bytes. */
export function mediaLabel(m: Pick<LoadedImage, 'path' | 'mimeType' | 'bytes'>): string {
  return `[${mediaKind(m.mimeType)}: ${m.path} (${m.mimeType}, ${m.bytes} bytes)]`;
}
