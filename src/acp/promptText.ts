// An ACP prompt (content blocks) as the text devx sends the model.
import type * as acp from '@agentclientprotocol/sdk';
import { MAX_MEDIA_BYTES, sniffMediaType } from '../tools/loadMedia.js';

export function promptText(blocks: acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`@${b.uri}`);
    else if (b.type === 'resource') {
      const r = b.resource as { uri: string; text?: string };
      parts.push(r.text !== undefined ? `<file uri="${r.uri}">\n${r.text}\n</file>` : `@${r.uri}`);
    } else if (b.type === 'image' || b.type === 'audio')
      continue; // sent as they are (promptImages)
    else parts.push(`(${(b as { type: string }).type} content is not supported by devx and was left out)`);
  }
  return parts.join('\n');
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** The prompt's image and audio blocks as attachments for the model, or why one cannot be sent. */
export function promptImages(
  blocks: acp.ContentBlock[],
  maxBytes: number,
): { images: { path: string; mimeType: string; bytes: number; data: string }[] } | { error: string } {
  const images = [];
  let n = 0;
  let a = 0;
  for (const b of blocks) {
    if (b.type === 'audio') {
      a++;
      // Told apart by the bytes, as an @mention is: the declared type is the client's word only.
      const buf = Buffer.from(b.data, 'base64');
      const mime = sniffMediaType(buf);
      if (!mime?.startsWith('audio/')) return { error: `audio ${a} (${b.mimeType}) is not MP3, WAV, OGG or FLAC audio by its content` };
      if (buf.length > MAX_MEDIA_BYTES.audio)
        return { error: `audio ${a} is ${(buf.length / 1024 / 1024).toFixed(1)} MB; audio is limited to ${MAX_MEDIA_BYTES.audio / 1024 / 1024} MB` };
      images.push({ path: `audio ${a} from the editor`, mimeType: mime, bytes: buf.length, data: b.data });
      continue;
    }
    if (b.type !== 'image') continue;
    n++;
    const mime = b.mimeType as (typeof IMAGE_TYPES)[number];
    if (!IMAGE_TYPES.includes(mime)) return { error: `image ${n} is ${b.mimeType}; devx sends PNG, JPEG, WebP and GIF images` };
    const bytes = Buffer.byteLength(b.data, 'base64');
    if (bytes > maxBytes) return { error: `image ${n} is ${(bytes / 1024 / 1024).toFixed(1)} MB; images are limited to ${maxBytes / 1024 / 1024} MB` };
    images.push({ path: b.uri ?? `image ${n} from the editor`, mimeType: mime, bytes, data: b.data });
  }
  return { images };
}
