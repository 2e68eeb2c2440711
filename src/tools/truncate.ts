/** Keeps the head and tail of long output, with a visible marker of what was cut. */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 100);
  const head = text.slice(0, Math.ceil(keep * 0.7));
  const tail = text.slice(text.length - Math.floor(keep * 0.3));
  return `${head}\n[... ${text.length - head.length - tail.length} characters truncated ...]\n${tail}`;
}
