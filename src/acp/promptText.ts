// An ACP prompt (content blocks) as the text devx sends the model.
import type * as acp from '@agentclientprotocol/sdk';

export function promptText(blocks: acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text') parts.push(b.text);
    else if (b.type === 'resource_link') parts.push(`@${b.uri}`);
    else if (b.type === 'resource') {
      const r = b.resource as { uri: string; text?: string };
      parts.push(r.text !== undefined ? `<file uri="${r.uri}">\n${r.text}\n</file>` : `@${r.uri}`);
    } else parts.push(`(${b.type} content is not supported by devx and was left out)`);
  }
  return parts.join('\n');
}
