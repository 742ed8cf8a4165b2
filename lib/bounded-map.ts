// BoundedMap: a Map that holds at most `max` entries and forgets the oldest first, the one home of the
// eviction rule of hcd's caches. "Oldest" is the order of `set` (a set of a key already there moves it
// last); `get` leaves the order as it is, `touch` moves an entry last when a read should keep it.

export class BoundedMap<K, V> {
  readonly #max: number;
  readonly #map = new Map<K, V>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a bounded map holds at least one entry, not ${max}`);
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets the entry as the newest; the oldest entries beyond `max` go. */
  set(key: K, value: V): this {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value as K);
    return this;
  }

  /** Returns the entry's value and makes it the newest; undefined when absent. */
  touch(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) this.set(key, value);
    return value;
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }

  /** Entries oldest first. */
  entries(): IterableIterator<[K, V]> {
    return this.#map.entries();
  }

  keys(): IterableIterator<K> {
    return this.#map.keys();
  }

  values(): IterableIterator<V> {
    return this.#map.values();
  }
}
