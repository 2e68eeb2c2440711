// Splits Markdown into chunks along headings, then paragraphs, so an existing research archive can be
// imported. Each chunk carries its heading trail, which helps both lexical and dense retrieval.

export interface Chunk {
  content: string;
  /** "Heading > Sub-heading" trail of the chunk. */
  heading: string;
}

export function chunkMarkdown(text: string, maxChars = 1500): Chunk[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const trail: string[] = [];
  const sections: { heading: string; body: string[] }[] = [{ heading: '', body: [] }];
  let fence = false;
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const h = fence ? null : /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      trail.splice(h[1].length - 1);
      trail[h[1].length - 1] = h[2];
      sections.push({ heading: trail.filter(Boolean).join(' > '), body: [] });
    } else sections[sections.length - 1].body.push(line);
  }
  const chunks: Chunk[] = [];
  for (const s of sections) {
    const body = s.body.join('\n').trim();
    if (!body) continue;
    let current = '';
    for (const para of body.split(/\n{2,}/)) {
      if (current && current.length + para.length + 2 > maxChars) {
        chunks.push({ heading: s.heading, content: current });
        current = '';
      }
      current = current ? `${current}\n\n${para}` : para;
      while (current.length > maxChars) {
        chunks.push({ heading: s.heading, content: current.slice(0, maxChars) });
        current = current.slice(maxChars);
      }
    }
    if (current.trim()) chunks.push({ heading: s.heading, content: current });
  }
  return chunks.map((c) => ({ ...c, content: c.heading ? `${c.heading}\n\n${c.content}` : c.content }));
}
