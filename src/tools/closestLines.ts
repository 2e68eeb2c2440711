// Finds the window of file lines most similar to a failed edit's old_text, so the model can retry
// with the exact text (the approach Aider takes for failed search/replace blocks).

export interface ClosestMatch {
  startLine: number;
  endLine: number;
  score: number;
  text: string;
}

/** Similarity in [0,1] from the longest common subsequence of characters, bounded for speed. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  const x = a.slice(0, 200);
  const y = b.slice(0, 200);
  let prev = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const cur = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++) {
      cur[j] = x[i - 1] === y[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    }
    prev = cur;
  }
  return (2 * prev[y.length]) / (x.length + y.length);
}

export function findClosestLines(fileText: string, oldText: string, minScore = 0.5): ClosestMatch | null {
  const fileLines = fileText.split(/\r?\n/);
  const want = oldText
    .split(/\r?\n/)
    .slice(0, 40)
    .map((l) => l.trim());
  if (!want.some((l) => l)) return null;
  const anchor = want.find((l) => l) ?? '';
  const width = want.length;
  let best: ClosestMatch | null = null;
  // Limit work on huge files: only windows whose first line resembles the anchor line are scored fully.
  const maxStarts = Math.min(fileLines.length, 20_000);
  for (let s = 0; s < maxStarts; s++) {
    const first = want.findIndex((l) => l);
    const probe = fileLines[s + first];
    if (probe === undefined) break;
    if (similarity(probe.trim(), anchor) < 0.4) continue;
    let total = 0;
    for (let k = 0; k < width; k++) total += similarity((fileLines[s + k] ?? '').trim(), want[k]);
    const score = total / width;
    if (!best || score > best.score) {
      const end = Math.min(fileLines.length, s + width);
      best = { startLine: s + 1, endLine: end, score, text: fileLines.slice(s, end).join('\n') };
    }
  }
  return best && best.score >= minScore ? best : null;
}
