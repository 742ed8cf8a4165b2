// TimerWheel: one deadline per key; answers "which keys are due at this instant?".
//
// Slots: time is cut into ticks of `tickMs`; tick t lives in slot t mod `slots`. An entry due at
// `at` sits in the slot of tick floor(at / tickMs), or of the current tick when `at` is already past
// (so the next advance sees it). One turn is slots × tickMs; an entry further ahead than one turn
// shares its slot with nearer ones and is simply skipped (at > now) until its own turn comes.
//
// Invariants: every entry is in exactly one slot Set and in the key Map; every entry's tick is ≥ the
// wheel's current tick (past deadlines are clamped to it), so the slots of ticks current..floor(now /
// tickMs) hold everything due by `now`. advance(now) visits those slots (at most one full turn, which
// covers every slot), returns only entries with at ≤ now (never early), removes them, and makes
// floor(now / tickMs) the current tick (it never moves back).
// It reads no clock and calls nothing: the caller passes `now`.
//
// Cost: set and delete are O(1) (a Map lookup plus a Set add/delete). advance is
// O(slots visited + entries in those slots + k log k) for k due keys; entries more than one turn
// ahead are rescanned once per turn they wait. A jump of any size visits at most one turn: O(slots + n).
// nextDueAt is O(1) while the cached earliest entry stays, O(n) once after it leaves.
import type { Millis } from "./model.ts";

type Entry<K> = { readonly key: K; readonly at: Millis; readonly slot: number };

/** Deadlines per key in ticks of `tickMs`, fired by advance(now), earliest first and never early. */
export class TimerWheel<K> {
  readonly #tickMs: number;
  readonly #slots: Set<Entry<K>>[];
  readonly #entries = new Map<K, Entry<K>>();
  #tick: number;
  #earliestAt: Millis | null = null; // cache for nextDueAt; valid when #earliestKnown
  #earliestKnown = true;

  constructor(opts: { tickMs: number; slots: number; now: Millis }) {
    if (!(opts.tickMs > 0) || !Number.isInteger(opts.slots) || opts.slots < 1) throw new Error("TimerWheel: bad tickMs or slots");
    this.#tickMs = opts.tickMs;
    this.#slots = Array.from({ length: opts.slots }, () => new Set<Entry<K>>());
    this.#tick = Math.floor(opts.now / opts.tickMs);
  }

  /** Number of keys waiting. */
  get size(): number {
    return this.#entries.size;
  }

  /** Sets `key` to fall due at `at` (epoch ms), replacing its previous deadline. */
  set(key: K, at: Millis): void {
    this.delete(key);
    const tick = Math.max(Math.floor(at / this.#tickMs), this.#tick); // a past deadline fires on the next advance
    const entry: Entry<K> = { key, at, slot: this.#slotOf(tick) };
    this.#slots[entry.slot].add(entry);
    this.#entries.set(key, entry);
    if (this.#earliestKnown && (this.#earliestAt === null || at < this.#earliestAt)) this.#earliestAt = at;
  }

  /** Removes `key`; returns false when it was not waiting. */
  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#slots[entry.slot].delete(entry);
    if (entry.at === this.#earliestAt) this.#earliestKnown = false;
    return true;
  }

  /** Returns the deadline (epoch ms) set for `key`, or null when it is not waiting. */
  dueAt(key: K): Millis | null {
    return this.#entries.get(key)?.at ?? null;
  }

  /** Returns the earliest deadline waiting (epoch ms), or null when empty; O(n) after the earliest leaves. */
  nextDueAt(): Millis | null {
    if (!this.#earliestKnown) {
      let earliest: Millis | null = null;
      for (const entry of this.#entries.values()) if (earliest === null || entry.at < earliest) earliest = entry.at;
      this.#earliestAt = earliest;
      this.#earliestKnown = true;
    }
    return this.#earliestAt;
  }

  /** Moves to `now`; returns the keys that fell due (deadline ≤ now), earliest first, and forgets them. */
  advance(now: Millis): K[] {
    const last = Math.floor(now / this.#tickMs);
    const visits = Math.min(Math.max(last - this.#tick + 1, 1), this.#slots.length); // one turn sees every slot
    const due: Entry<K>[] = [];
    for (let i = 0; i < visits; i++) {
      const slot = this.#slots[this.#slotOf(this.#tick + i)];
      const before = due.length;
      for (const entry of slot) if (entry.at <= now) due.push(entry);
      // a slot that fell due whole (every check of the same second) is emptied at once, not entry by entry
      if (due.length - before === slot.size) slot.clear();
      else for (let j = before; j < due.length; j++) slot.delete(due[j]);
    }
    this.#tick = Math.max(this.#tick, last);
    for (const entry of due) {
      this.#entries.delete(entry.key);
      if (entry.at === this.#earliestAt) this.#earliestKnown = false;
    }
    return due.sort((a, b) => a.at - b.at).map((entry) => entry.key);
  }

  #slotOf(tick: number): number {
    const n = this.#slots.length;
    return ((tick % n) + n) % n;
  }
}
