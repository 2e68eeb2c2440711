// An MCP tool result as the model reads it: text content as is; images, audio and resources
// summarised with their type and size (their bytes would only fill the context).

type Item = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  size?: number;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
};

/** Decoded size of base64 data. */
export function base64Bytes(b64: string): number {
  const clean = b64.replace(/\s/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

function sizeOf(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} bytes`;
}

function formatItem(c: Item): string {
  switch (c.type) {
    case 'text':
      return c.text ?? '';
    case 'image':
    case 'audio':
      return `[${c.type}: ${c.mimeType ?? 'unknown type'}, ${sizeOf(base64Bytes(c.data ?? ''))}]`;
    case 'resource': {
      const r = c.resource ?? {};
      const size = r.text !== undefined ? `${r.text.length} characters of text` : sizeOf(base64Bytes(r.blob ?? ''));
      return `[resource: ${r.uri ?? '(no uri)'}, ${r.mimeType ?? 'unknown type'}, ${size}]`;
    }
    case 'resource_link':
      return `[resource link: ${c.uri ?? '(no uri)'}${c.name ? ` "${c.name}"` : ''}, ${c.mimeType ?? 'unknown type'}${c.size !== undefined ? `, ${sizeOf(c.size)}` : ''}]`;
    default:
      return `[${c.type} content]`;
  }
}

export function formatCallResult(result: { content?: unknown; structuredContent?: unknown; isError?: boolean; toolResult?: unknown }): {
  text: string;
  isError: boolean;
} {
  const items = Array.isArray(result.content) ? (result.content as Item[]) : [];
  let text = items.map(formatItem).join('\n');
  if (!items.length && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent, null, 1);
  if (!items.length && result.toolResult !== undefined)
    text = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 1);
  return { text: text || '(the tool returned no content)', isError: Boolean(result.isError) };
}
