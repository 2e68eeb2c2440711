// Renders tool results back to the model as TOOL_RESULT blocks.

export type ResultStatus = 'ok' | 'error';

export interface ToolResultBlock {
  tool: string;
  status: ResultStatus;
  /** Short identifying args echoed on the header line (path, cmd, ...). */
  meta?: Record<string, string | number | boolean | undefined>;
  content: string;
}

/** A fence strictly longer than any backtick run in the content, so content cannot close it. */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function safeMeta(value: string): string | null {
  if (value.length > 200 || /[\n\r|]/.test(value)) return null;
  return value;
}

export function formatToolResult(r: ToolResultBlock): string {
  const parts = [`TOOL_RESULT: ${r.tool}`, `status=${r.status}`];
  for (const [k, v] of Object.entries(r.meta ?? {})) {
    if (v === undefined) continue;
    const s = safeMeta(String(v));
    if (s !== null) parts.push(`${k}=${s}`);
  }
  const fence = fenceFor(r.content);
  return `${parts.join(' | ')}\n${fence}\n${r.content}\n${fence}`;
}
