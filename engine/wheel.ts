// TimerWheel: one deadline per key; answers "which keys are due at this instant?".
//
// Slots: time is cut into ticks of `tickMs`; tick t lives in slot t mod `slots`. A key due at `at`
// sits in the slot of tick floor(at / tickMs), or, when that tick is already behind the wheel's (a past
// deadline), in the overdue set, which the next advance sees first. One turn is slots × tickMs; a key
// further ahead than one turn shares its slot with nearer ones and is simply skipped (at > now) until
// its own turn comes. The wheel keeps only keys and their deadlines (a Map of key → at and the slots'
// Sets of keys): a key's slot follows from its deadline, so no entry object is made per key (48 bytes
// each: a shard holds one per check).
//
// Invariants: every key is in the Map and in exactly one of the overdue set and the slot of
// floor(at / tickMs); a key in a slot has a tick ≥ the wheel's current tick, so the overdue set and the
// slots of ticks current..floor(now / tickMs) hold everything due by `now`. advance(now) visits them (at
// most one full turn of slots, which covers every slot), returns only keys with at ≤ now (never early),
// removes them, and makes floor(now / tickMs) the current tick (it never moves back).
// It reads no clock and calls nothing: the caller passes `now`.
//
// Cost: set and delete are O(1) (Map and Set operations). advance is
// O(slots visited + keys in those slots + k log k) for k due keys; keys more than one turn
// ahead are rescanned once per turn they wait. A jump of any size visits at most one turn: O(slots + n).
// nextDueAt is O(1) while the cached earliest deadline stays, O(n) once after it leaves.
import type { Millis } from "./model.ts";

/** Deadlines per key in ticks of `tickMs`, fired by advance(now), earliest first and never early. */
export class TimerWheel<K> {
  readonly #tickMs: number;
  readonly #slots: Set<K>[];
  readonly #overdue = new Set<K>(); // keys set with a deadline before the current tick
  readonly #dueAt = new Map<K, Millis>();
  #tick: number;
  // cache for nextDueAt: the earliest deadline waiting (null: none), or NaN once it left (not known: NaN
  // compares false with every deadline, so a set never takes it for an earlier one)
  #earliestAt: Millis | null = null;

  constructor(opts: { tickMs: number; slots: number; now: Millis }) {
    if (!(opts.tickMs > 0) || !Number.isInteger(opts.slots) || opts.slots < 1) throw new Error("TimerWheel: bad tickMs or slots");
    this.#tickMs = opts.tickMs;
    this.#slots = Array.from({ length: opts.slots }, () => new Set<K>());
    this.#tick = Math.floor(opts.now / opts.tickMs);
  }

  /** Number of keys waiting. */
  get size(): number {
    return this.#dueAt.size;
  }

  /** Sets `key` to fall due at `at` (epoch ms), replacing its previous deadline. */
  set(key: K, at: Millis): void {
    this.delete(key);
    const tick = Math.floor(at / this.#tickMs);
    if (tick < this.#tick)
      this.#overdue.add(key); // a past deadline fires on the next advance
    else this.#slots[this.#slotOf(tick)].add(key);
    this.#dueAt.set(key, at);
    if (this.#earliestAt === null || at < this.#earliestAt) this.#earliestAt = at;
  }

  /** Removes `key`; returns false when it was not waiting. */
  delete(key: K): boolean {
    const at = this.#dueAt.get(key);
    if (at === undefined) return false;
    this.#dueAt.delete(key);
    if (!this.#overdue.delete(key)) this.#slots[this.#slotOf(Math.floor(at / this.#tickMs))].delete(key);
    if (at === this.#earliestAt) this.#earliestAt = NaN;
    return true;
  }

  /** Returns the deadline (epoch ms) set for `key`, or null when it is not waiting. */
  dueAt(key: K): Millis | null {
    return this.#dueAt.get(key) ?? null;
  }

  /** Returns the earliest deadline waiting (epoch ms), or null when empty; O(n) after the earliest leaves. */
  nextDueAt(): Millis | null {
    if (Number.isNaN(this.#earliestAt)) {
      let earliest: Millis | null = null;
      for (const at of this.#dueAt.values()) if (earliest === null || at < earliest) earliest = at;
      this.#earliestAt = earliest;
    }
    return this.#earliestAt;
  }

  /** Moves to `now`; returns the keys that fell due (deadline ≤ now), earliest first, and forgets them. */
  advance(now: Millis): K[] {
    const last = Math.floor(now / this.#tickMs);
    const visits = Math.min(Math.max(last - this.#tick + 1, 1), this.#slots.length); // one turn sees every slot
    const keys: K[] = [],
      ats: Millis[] = [];
    const collect = (set: Set<K>) => {
      const before = keys.length;
      for (const key of set) {
        const at = this.#dueAt.get(key) as Millis; // every key of a slot or the overdue set is in the Map
        if (at <= now) {
          keys.push(key);
          ats.push(at);
        }
      }
      // a set that fell due whole (every check of the same second) is emptied at once, not key by key
      if (keys.length - before === set.size) set.clear();
      else for (let j = before; j < keys.length; j++) set.delete(keys[j]);
    };
    collect(this.#overdue);
    for (let i = 0; i < visits; i++) collect(this.#slots[this.#slotOf(this.#tick + i)]);
    this.#tick = Math.max(this.#tick, last);
    for (let j = 0; j < keys.length; j++) {
      this.#dueAt.delete(keys[j]);
      if (ats[j] === this.#earliestAt) this.#earliestAt = NaN;
    }
    // earliest first; keys due at the same instant keep the order they were found in (a stable sort)
    const order = Array.from(keys, (_key, j) => j).sort((a, b) => ats[a] - ats[b]);
    return order.map((j) => keys[j]);
  }

  #slotOf(tick: number): number {
    const n = this.#slots.length;
    return ((tick % n) + n) % n;
  }
}
