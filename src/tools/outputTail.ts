// What a background command printed, bounded: the newest `max` characters are kept, older ones dropped
// and counted, and a reader is given what arrived since its last look. Appending is amortised O(1): the
// kept text is cut back to `max` only once it has grown half as much again.

export interface TailRead {
  /** What arrived since the last read that is still kept. */
  text: string;
  /** Characters that arrived since the last read but were dropped before it (the buffer keeps the tail). */
  dropped: number;
}

export class OutputTail {
  private kept = '';
  /** Offset, in everything ever appended, of the first kept character. */
  private keptFrom = 0;
  /** Characters ever appended. */
  private total = 0;
  /** Offset the reader has seen up to. */
  private readTo = 0;

  constructor(private readonly max: number) {}

  append(text: string): void {
    if (!text) return;
    this.kept += text;
    this.total += text.length;
    if (this.kept.length > this.max * 1.5) this.trimTo(this.max);
  }

  /** Characters not yet read (dropped ones included). */
  get unread(): number {
    return this.total - this.readTo;
  }

  /** Characters ever appended. */
  get size(): number {
    return this.total;
  }

  /** What arrived since the last read (at most `max` characters of it), and how much of it was dropped. */
  read(): TailRead {
    const from = Math.max(this.readTo, this.keptFrom, this.total - this.max);
    const r = { text: this.kept.slice(from - this.keptFrom), dropped: from - this.readTo };
    this.readTo = this.total;
    return r;
  }

  /** What arrived since the last read, without marking it read. */
  peek(): string {
    return this.kept.slice(Math.max(this.readTo, this.keptFrom) - this.keptFrom);
  }

  /** Lines of what arrived since the last read that are still kept (a last line without its newline counts). */
  unreadLines(): number {
    const text = this.peek();
    if (!text) return 0;
    let n = 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
    return text.endsWith('\n') ? n : n + 1;
  }

  /** Everything still kept, read or not, without marking it read (what a person looks at). */
  text(): string {
    return this.kept;
  }

  private trimTo(n: number): void {
    const cut = this.kept.length - n;
    this.kept = this.kept.slice(cut);
    this.keptFrom += cut;
  }
}
