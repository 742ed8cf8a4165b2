// CheckDirectory: the main thread's map of every check, uuid → project and badge key → check, in typed
// arrays. With 1,000,000 checks, Maps of strings cost about 170 bytes a check on this thread and 1.3 s
// of inserts per shard at start (measured); here an entry is 36 bytes in one dense array plus a 4-byte
// slot in each of two open-addressing index tables, and a shard hands its part over as one typed array.
//
// Keys are canonical uuids (8-4-4-4-12, lower-case hex), as hcd makes them: 16 bytes, 4 words. Any
// other string (never made by hcd, but a store may hold one) lives in plain Maps beside, so lookups
// stay exact for every string.
//
// Entry e: words [e*9, e*9+4) the check uuid, [e*9+4, e*9+8) its badge key, e*9+8 its project's index.
// The index tables hold e+1 (0 = empty), probed linearly; deletion shifts later entries back, so no
// tombstones. Freed entries are reused.

const WORDS = 9; // per entry
const UUID_LENGTH = 36;

/** A shard's checks, packed for the hand-over: `words` as entries above, project indexes into `projectIds`. */
export type PackedChecks = {
  readonly projectIds: string[];
  readonly words: Uint32Array;
  readonly count: number;
  /** [uuid, projectId, badgeKey] of checks whose uuid or badge key isn't a canonical uuid. */
  readonly odd: [string, string, string][];
};

/** Packs [uuid, projectId, badgeKey] routes for CheckDirectory.addPacked. */
export function packChecks(routes: Iterable<readonly [string, string, string]>, size: number): PackedChecks {
  const projectIds: string[] = [];
  const projectIndex = new Map<string, number>();
  const words = new Uint32Array(size * WORDS);
  const odd: [string, string, string][] = [];
  let count = 0;
  for (const [uuid, projectId, badgeKey] of routes) {
    const at = count * WORDS;
    if (count >= size || !parseUuid(uuid, words, at) || !parseUuid(badgeKey, words, at + 4)) {
      odd.push([uuid, projectId, badgeKey]);
      continue;
    }
    words[at + 8] = indexOfProject(projectIds, projectIndex, projectId);
    count += 1;
  }
  return { projectIds, words, count, odd };
}

/** Returns the index of `projectId` in `ids`, appending it (and indexing it in `index`) when new. */
function indexOfProject(ids: string[], index: Map<string, number>, projectId: string): number {
  let at = index.get(projectId);
  if (at === undefined) index.set(projectId, (at = ids.push(projectId) - 1));
  return at;
}

export class CheckDirectory {
  #entries = new Uint32Array(WORDS * 1024);
  #used = 0; // entries ever allocated (the free ones are in #free)
  #free: number[] = [];
  #byUuid = new Uint32Array(2048); // slots: entry + 1
  #byBadge = new Uint32Array(2048);
  #count = 0;
  readonly #projectIds: string[] = [];
  readonly #projectIndex = new Map<string, number>();
  readonly #oddChecks = new Map<string, string>(); // uuid → project id
  readonly #oddBadges = new Map<string, string>(); // badge key → uuid
  readonly #key = new Uint32Array(4); // the parsed key of the current lookup

  /** Number of checks. */
  get size(): number {
    return this.#count + this.#oddChecks.size;
  }

  /** Adds (or replaces) a check. */
  add(uuid: string, projectId: string, badgeKey: string): void {
    this.delete(uuid);
    const e = this.#allocate();
    const at = e * WORDS;
    if (!parseUuid(uuid, this.#entries, at) || !parseUuid(badgeKey, this.#entries, at + 4)) {
      this.#free.push(e); // not canonical: kept beside, exact
      this.#oddChecks.set(uuid, projectId);
      this.#oddBadges.set(badgeKey, uuid);
      return;
    }
    this.#entries[at + 8] = this.#projectIndexOf(projectId);
    this.#index(e);
  }

  /** Adds every check of a shard's hand-over. */
  addPacked(packed: PackedChecks): void {
    const remap = packed.projectIds.map((id) => this.#projectIndexOf(id));
    this.#reserve(this.#count + packed.count);
    this.#growEntries(this.#used + packed.count); // to the exact size: a million entries are 36 MB
    for (let i = 0; i < packed.count; i++) {
      const e = this.#allocate();
      this.#entries.set(packed.words.subarray(i * WORDS, i * WORDS + 8), e * WORDS);
      this.#entries[e * WORDS + 8] = remap[packed.words[i * WORDS + 8]];
      this.#index(e);
    }
    for (const [uuid, projectId, badgeKey] of packed.odd) this.add(uuid, projectId, badgeKey);
  }

  /** Returns the project id of a check, or undefined. */
  projectOf(uuid: string): string | undefined {
    const e = parseUuid(uuid, this.#key, 0) ? this.#find(this.#byUuid, 0) : -1;
    return e >= 0 ? this.#projectIds[this.#entries[e * WORDS + 8]] : this.#oddChecks.get(uuid);
  }

  /** Returns the uuid of the check with this badge key, or undefined. */
  checkOfBadge(badgeKey: string): string | undefined {
    const e = parseUuid(badgeKey, this.#key, 0) ? this.#find(this.#byBadge, 4) : -1;
    return e >= 0 ? formatUuid(this.#entries, e * WORDS) : this.#oddBadges.get(badgeKey);
  }

  /** Removes a check (and its badge key); false when unknown. */
  delete(uuid: string): boolean {
    const e = parseUuid(uuid, this.#key, 0) ? this.#find(this.#byUuid, 0) : -1;
    if (e < 0) {
      if (!this.#oddChecks.delete(uuid)) return false;
      for (const [badge, owner] of this.#oddBadges) if (owner === uuid) this.#oddBadges.delete(badge);
      return true;
    }
    this.#unindex(this.#byUuid, 0, e);
    this.#unindex(this.#byBadge, 4, e);
    this.#free.push(e);
    this.#count -= 1;
    return true;
  }

  // ---- internals ----

  #projectIndexOf(projectId: string): number {
    return indexOfProject(this.#projectIds, this.#projectIndex, projectId);
  }

  #allocate(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    this.#reserve(this.#count + 1);
    if ((this.#used + 1) * WORDS > this.#entries.length) this.#growEntries(Math.ceil(this.#used * 1.5));
    return this.#used++;
  }

  #growEntries(entries: number): void {
    if (entries * WORDS <= this.#entries.length) return;
    const grown = new Uint32Array(entries * WORDS);
    grown.set(this.#entries);
    this.#entries = grown;
  }

  /** Grows the index tables (and rebuilds them) so that `count` entries keep them at most 3/4 full. */
  #reserve(count: number): void {
    if (count * 4 <= this.#byUuid.length * 3) return;
    let slots = this.#byUuid.length;
    while (count * 4 > slots * 3) slots *= 2;
    this.#byUuid = new Uint32Array(slots);
    this.#byBadge = new Uint32Array(slots);
    const free = new Set(this.#free);
    for (let e = 0; e < this.#used; e++) if (!free.has(e)) this.#place(e);
  }

  #index(e: number): void {
    this.#place(e);
    this.#count += 1;
  }

  #place(e: number): void {
    this.#placeIn(this.#byUuid, 0, e);
    this.#placeIn(this.#byBadge, 4, e);
  }

  #placeIn(table: Uint32Array, offset: number, e: number): void {
    const mask = table.length - 1;
    let slot = this.#home(e * WORDS + offset, mask);
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = e + 1;
  }

  /** Returns the entry whose key at `offset` equals the parsed #key, or -1. */
  #find(table: Uint32Array, offset: number): number {
    const k = this.#key,
      entries = this.#entries,
      mask = table.length - 1;
    for (let slot = hash(k[0], k[1], k[2], k[3]) & mask; ; slot = (slot + 1) & mask) {
      const held = table[slot];
      if (held === 0) return -1;
      const at = (held - 1) * WORDS + offset;
      if (entries[at] === k[0] && entries[at + 1] === k[1] && entries[at + 2] === k[2] && entries[at + 3] === k[3]) return held - 1;
    }
  }

  /** Removes entry e from a table, shifting back the entries after it that belong before the gap. */
  #unindex(table: Uint32Array, offset: number, e: number): void {
    const mask = table.length - 1;
    let gap = this.#home(e * WORDS + offset, mask);
    while (table[gap] !== e + 1) gap = (gap + 1) & mask;
    for (let next = (gap + 1) & mask; table[next] !== 0; next = (next + 1) & mask) {
      const home = this.#home((table[next] - 1) * WORDS + offset, mask);
      // the entry at `next` may fill the gap when its home is not in (gap, next], cyclically
      const stays = gap <= next ? home > gap && home <= next : home > gap || home <= next;
      if (!stays) {
        table[gap] = table[next];
        gap = next;
      }
    }
    table[gap] = 0;
  }

  #home(at: number, mask: number): number {
    const w = this.#entries;
    return hash(w[at], w[at + 1], w[at + 2], w[at + 3]) & mask;
  }
}

/** Mixes a key's four words (murmur3's finaliser over their combination). */
function hash(a: number, b: number, c: number, d: number): number {
  let h = a ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ Math.imul(d, 0x27d4eb2f);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const HEX = new Int8Array(128).fill(-1); // char code → its value as a lower-case hex digit, or -1
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

/** Writes a canonical uuid's 4 words to out[at..at+4) and returns true; false (out may be written) if `text` isn't one. */
export function parseUuid(text: string, out: Uint32Array, at: number): boolean {
  if (text.length !== UUID_LENGTH) return false;
  if (text.charCodeAt(8) !== 45 || text.charCodeAt(13) !== 45 || text.charCodeAt(18) !== 45 || text.charCodeAt(23) !== 45) return false; // "-"
  let word = 0,
    nibbles = 0,
    index = at,
    invalid = 0;
  for (let i = 0; i < UUID_LENGTH; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    const code = text.charCodeAt(i);
    const nibble = code < 128 ? HEX[code] : -1;
    invalid |= nibble; // negative once any digit is not hex
    word = (word << 4) | (nibble & 15);
    if (++nibbles === 8) {
      out[index++] = word;
      word = 0;
      nibbles = 0;
    }
  }
  return invalid >= 0;
}

/** Returns the canonical uuid of the 4 words at words[at..at+4). */
export function formatUuid(words: Uint32Array, at: number): string {
  const hex = (i: number) => words[at + i].toString(16).padStart(8, "0");
  const all = hex(0) + hex(1) + hex(2) + hex(3);
  return `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20)}`;
}
