// MinuteCounts: counts per key in fixed one-minute windows of the clock; a new minute forgets every key,
// so memory stays bounded by one minute's keys. The one home of hcd's per-minute limits (an API key's
// requests, a client address's failed sign-ins). Pure: every instant is passed in.

const MINUTE_MS = 60_000;

export class MinuteCounts {
  #window = -1;
  #counts = new Map<string, number>();

  /** Adds one to `key`'s count in the minute of `at`; returns the new count. */
  add(key: string, at: number): number {
    this.#roll(at);
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    return count;
  }

  /** Returns `key`'s count in the minute of `at`. */
  count(key: string, at: number): number {
    this.#roll(at);
    return this.#counts.get(key) ?? 0;
  }

  /** The instant the minute of the latest count ends. */
  windowEndsAt(): number {
    return (this.#window + 1) * MINUTE_MS;
  }

  #roll(at: number): void {
    const window = Math.floor(at / MINUTE_MS);
    if (window === this.#window) return;
    this.#window = window;
    this.#counts = new Map();
  }
}
