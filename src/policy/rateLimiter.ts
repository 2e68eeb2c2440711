/** Sliding one-minute window: stops runaway loops of tool calls or commands. */
export class RateLimiter {
  private readonly stamps: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a call; false when the limit for the last 60 s is already reached. */
  take(): boolean {
    const t = this.now();
    while (this.stamps.length && t - this.stamps[0] >= 60_000) this.stamps.shift();
    if (this.stamps.length >= this.perMinute) return false;
    this.stamps.push(t);
    return true;
  }
}
