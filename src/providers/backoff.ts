/** Exponential backoff with jitter: base * 2^round, capped, scaled by a random factor in [0.5, 1). */
export function backoffDelay(round: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** round);
  return Math.round(exp * (0.5 + random() * 0.5));
}
