// The stamps of pings on their way, each with how many pings carry it: a group write holds hundreds at a
// time, and a ping's entry and exit must not cost a scan of them; the earliest is what watermarks need.

export class StampCounts {
  readonly #counts = new Map<number, number>();

  add(at: number): void {
    this.#counts.set(at, (this.#counts.get(at) ?? 0) + 1);
  }

  remove(at: number): void {
    const left = (this.#counts.get(at) ?? 0) - 1;
    if (left > 0) this.#counts.set(at, left);
    else this.#counts.delete(at);
  }

  get empty(): boolean {
    return this.#counts.size === 0;
  }

  /** The earliest stamp held, or null when none is. */
  earliest(): number | null {
    let earliest: number | null = null;
    for (const at of this.#counts.keys()) if (earliest === null || at < earliest) earliest = at;
    return earliest;
  }
}
